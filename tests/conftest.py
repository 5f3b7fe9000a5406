import json
import os
import tempfile
from contextlib import contextmanager
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import transaction

from genres_site import embedded_redis

# Fixtures that tests of several folders use.
pytest_plugins = ["tests.scoring.worker_fixtures"]

# Hashing a password at the production cost (PBKDF2, a million iterations) takes half a second
# of CPU; the tests check who may sign in, not the hasher's strength. PBKDF2 stays known, for the
# accounts of tests whose servers run as production does (``server_superuser``).
TEST_PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]


UNHASHED_STATIC_STORAGE = "whitenoise.storage.CompressedStaticFilesStorage"


def xdist_worker_number():
    """0, 1, … in a pytest-xdist worker (gw0, gw1, …); None in a run without workers."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker.removeprefix("gw")) if worker.startswith("gw") else None


def is_xdist_controller(config):
    return bool(getattr(config.option, "numprocesses", None)) and not hasattr(config, "workerinput")


def shared_redis_url(url, worker_number):
    """The shared Redis of REDIS_URL, one database per xdist worker so that workers never see
    each other's queues and keys (database 5 is the scale-out test's own)."""
    if worker_number is None:
        return url
    database = 1 + worker_number + (worker_number >= 4)
    return f"{url.rsplit('/', 1)[0]}/{database}"


def use_redis(url):
    """Point every Redis client of the settings at ``url``; mutated in place, as django_rq and
    channels keep references to these dictionaries."""
    settings.REDIS_URL = url
    for queue in settings.RQ_QUEUES.values():
        queue["URL"] = url
    settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"] = [url]
    if "LOCATION" in settings.CACHES["default"]:
        settings.CACHES["default"]["LOCATION"] = url


def pytest_configure(config):
    """Each test process gets its own var directory and Redis: the embedded one, or a database
    of its own on the Redis of REDIS_URL."""
    if is_xdist_controller(config):
        return  # the workers run the tests
    settings.PASSWORD_HASHERS = TEST_PASSWORD_HASHERS
    settings.VAR_DIR = Path(tempfile.mkdtemp(prefix="genres-test-var-"))
    # Pages link static files by their own names, served from the sources: the hashed names need
    # a collectstatic per test process first (tests/test_static_files.py checks those).
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": UNHASHED_STATIC_STORAGE}}
    if os.environ.get("REDIS_URL"):
        use_redis(shared_redis_url(os.environ["REDIS_URL"], xdist_worker_number()))
        return
    socket_path = settings.VAR_DIR / "redis" / "redis.sock"
    config._embedded_redis = embedded_redis.start(socket_path)
    use_redis(embedded_redis.socket_url(socket_path))


def pytest_collection_modifyitems(config, items):
    """Marks what the folder or a fixture tells: tests of tests/browser are ``browser``, tests on
    a SQLite file shared with worker processes are ``subprocess``."""
    for item in items:
        if item.nodeid.startswith("tests/browser/"):
            item.add_marker(pytest.mark.browser)
        if "file_database" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.subprocess)


def pytest_unconfigure(config):
    process = getattr(config, "_embedded_redis", None)
    if process:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(autouse=True)
def fresh_login_failures():
    """Every test starts with no failed sign-ins counted: the counts live in the test process's
    Redis, and the client of every test has the same address."""
    import django_rq

    from core.login_throttle import KEY_PREFIX

    connection = django_rq.get_connection()
    for key in connection.scan_iter(f"{KEY_PREFIX}*"):
        connection.delete(key)


@pytest.fixture
def admin_user(django_user_model):
    return django_user_model.objects.create_superuser("admin", "admin@example.org", "admin-pass-123")


@pytest.fixture
def annotator_user(django_user_model):
    return django_user_model.objects.create_user("annotator", "annotator@example.org", "annotator-pass-123")


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


@contextmanager
def shared_database_rows(django_db_blocker):
    """Rows made once for a whole module of tests, then rolled back.

    The rows are written in a transaction that stays open while the module's tests run: each
    test's own transaction (``django_db``) becomes a savepoint inside it, so what a test changes
    is undone after it and the shared rows are there, as made, for the next. Not for tests that
    need ``transactional_db``: they commit, and no outer transaction may be open.
    """
    with django_db_blocker.unblock(), transaction.atomic():
        yield
        transaction.set_rollback(True)


def load_demo_summary(*args):
    """``load_demo --json`` with ``args``: the JSON summary it prints."""
    out = StringIO()
    call_command("load_demo", "--json", *args, stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def unscored_demo(django_db_setup, django_db_blocker):
    """The demo's data, accounts, study and campaign without scores, loaded once per module."""
    with shared_database_rows(django_db_blocker):
        yield load_demo_summary("--no-scores")


@pytest.fixture(scope="module")
def scored_demo(django_db_setup, django_db_blocker):
    """The whole demo, scores included, loaded once per module."""
    with shared_database_rows(django_db_blocker):
        yield load_demo_summary()


@pytest.fixture(scope="module")
def triple_check(django_db_setup, django_db_blocker):
    """A triple-check campaign with two judges' verdicts, made once per module."""
    from tests.annotation.triple_check_fixtures import make_triple_check

    with shared_database_rows(django_db_blocker):
        yield make_triple_check()


@pytest.fixture(params=["openai", "lean"])
def transport(request, monkeypatch):
    """The OpenAI-compatible judge and embedder over each of their transports in turn."""
    monkeypatch.setenv("GENRES_OPENAI_TRANSPORT", request.param)
    return request.param
