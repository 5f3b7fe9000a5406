"""What the settings are when nothing is set: no debug mode, a kept secret key, HTTPS hardening
only when asked for. Read in a fresh interpreter with a clean environment each time."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

BASE_DIR = Path(__file__).resolve().parent.parent
PROBE = """
import json, sys
sys.argv[1:] = {argv!r}
import django
django.setup()
from django.conf import settings
print(json.dumps({{name: getattr(settings, name) for name in {names!r}}}, default=str))
"""


JOURNAL_MODE_PROBE = """
import django
django.setup()
from django.db import connection
with connection.cursor() as cursor:
    print(cursor.execute("PRAGMA journal_mode").fetchone()[0])
"""


def clean_environment(var_dir, **variables):
    return {
        "PATH": os.environ["PATH"],
        "DJANGO_SETTINGS_MODULE": "genres_site.settings",
        "GENRES_VAR_DIR": str(var_dir),
        **variables,
    }


def settings_read(var_dir, names, argv=(), **variables):
    """The named settings as a process with only these variables set would see them."""
    finished = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=list(argv), names=list(names))],
        cwd=BASE_DIR, env=clean_environment(var_dir, **variables), capture_output=True, text=True, timeout=120,
        check=True,
    )  # fmt: skip
    return json.loads(finished.stdout.splitlines()[-1])


HTTPS_SETTINGS = ["SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS"]


@pytest.fixture(scope="module")
def defaults(tmp_path_factory):
    """The settings of a process with nothing set, read once for the tests below."""
    return settings_read(tmp_path_factory.mktemp("var"), ["DEBUG", "DATABASES", *HTTPS_SETTINGS])


def test_debug_is_off_unless_asked_for(defaults, tmp_path):
    assert defaults["DEBUG"] is False
    assert settings_read(tmp_path, ["DEBUG"], DEBUG="1") == {"DEBUG": True}


def test_without_secret_key_set_one_is_made_and_kept(tmp_path):
    first = settings_read(tmp_path, ["SECRET_KEY"])["SECRET_KEY"]
    assert len(first) >= 50
    assert settings_read(tmp_path, ["SECRET_KEY"])["SECRET_KEY"] == first
    assert settings_read(tmp_path, ["SECRET_KEY"], SECRET_KEY="from-the-environment") == {
        "SECRET_KEY": "from-the-environment"
    }


def test_https_hardening_follows_genres_https_not_debug(defaults, tmp_path):
    assert {name: defaults[name] for name in HTTPS_SETTINGS} == dict.fromkeys(HTTPS_SETTINGS[:3], False) | {
        "SECURE_HSTS_SECONDS": 0
    }
    assert settings_read(tmp_path, HTTPS_SETTINGS, GENRES_HTTPS="1") == dict.fromkeys(HTTPS_SETTINGS[:3], True) | {
        "SECURE_HSTS_SECONDS": 31536000
    }


def test_sqlite_waits_for_the_write_lock_in_wal_mode(defaults, tmp_path):
    options = defaults["DATABASES"]["default"]["OPTIONS"]
    assert options["transaction_mode"] == "IMMEDIATE"
    assert 0 < options["timeout"] < 30  # below the web server's worker timeout
    journal = subprocess.run(
        [sys.executable, "-c", JOURNAL_MODE_PROBE],
        cwd=BASE_DIR, env=clean_environment(tmp_path), capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert journal.stdout.split() == ["wal"]


@pytest.mark.slow
def test_postgresql_web_processes_pool_their_connections_and_rq_workers_do_not(tmp_path):
    url = "postgres://arena@db.example.org:5432/genres"
    web = settings_read(tmp_path, ["DATABASES"], DATABASE_URL=url, DATABASE_POOL_MAX_SIZE="7")
    assert web["DATABASES"]["default"]["OPTIONS"]["pool"] == {"min_size": 2, "max_size": 7, "timeout": 10}
    worker = settings_read(tmp_path, ["DATABASES"], argv=["rqworker", "default"], DATABASE_URL=url)
    assert "pool" not in worker["DATABASES"]["default"]["OPTIONS"]
    switched_off = settings_read(tmp_path, ["DATABASES"], DATABASE_URL=url, DATABASE_POOL="0")
    assert "pool" not in switched_off["DATABASES"]["default"]["OPTIONS"]
