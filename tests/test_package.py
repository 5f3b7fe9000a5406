"""The project installs with pip: the wheel holds the apps, their templates, static files and
data, and the installed copy runs Django's commands from anywhere, its state in ./var."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

CHECKOUT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out), str(CHECKOUT)],
        check=True,
        capture_output=True,
    )
    (path,) = out.glob("genres_arena-*.whl")
    return path


def test_the_wheel_holds_the_apps_and_their_files_but_no_tests(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in (
        "genres_site/templates/base.html",
        "genres_site/static/js/annotate.js",
        "annotation/templates/annotation/annotate_item.html",
        "scoring/genres/calibration/pairs.jsonl",
        "leaderboard/migrations/0001_snapshots.py",
    ):
        assert expected in names
    assert not any(name.startswith(("tests/", "benchmarks/", "fixtures/")) for name in names)
    entry_points = next(name for name in names if name.endswith(".dist-info/entry_points.txt"))
    assert "genres-arena = genres_site.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


@pytest.mark.slow
def test_the_installed_copy_migrates_and_checks_from_any_directory(wheel, tmp_path):
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site), str(wheel)], check=True
    )
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    for name in ("GENRES_VAR_DIR", "DATABASE_URL", "DJANGO_SETTINGS_MODULE"):
        env.pop(name, None)
    for command in (["migrate", "--verbosity", "0"], ["check"]):
        subprocess.run(
            [sys.executable, "-m", "genres_site", *command], cwd=work, env=env, check=True, capture_output=True
        )
    assert (work / "var" / "genres.sqlite3").is_file()
    where = subprocess.run(
        [sys.executable, "-c", "import genres_site; print(genres_site.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert where.stdout.startswith(str(site))
