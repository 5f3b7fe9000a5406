"""Real RQ workers in subprocesses, for the tests that kill one or send it to an HTTP server.

A worker is another process, so it cannot see pytest-django's in-memory test database. The
``file_database`` fixture gives the test a SQLite file instead, a copy of one migrated once per
session, as its default database for the length of the test (the in-memory test database stays open, untouched, for
the other tests); workers started with ``worker_environment`` use the same file and the
test session's Redis. Tests using it must not ask for the ``django_db`` mark.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.request import urlopen

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management import call_command
from django.db import connections
from django.db.utils import load_backend

from scoring.jobs import QUEUE, queue

BASE_DIR = Path(settings.BASE_DIR)
SQLITE = "django.db.backends.sqlite3"


@pytest.fixture(scope="session")
def migrated_file(tmp_path_factory, django_db_blocker):
    """A SQLite file with every migration applied, made once: each test copies it."""
    path = tmp_path_factory.mktemp("migrated") / "genres.sqlite3"
    with django_db_blocker.unblock(), sqlite_file_as_default(path):
        call_command("migrate", verbosity=0)
    return path


@pytest.fixture
def file_database(migrated_file, tmp_path, django_db_blocker, settings):
    path = tmp_path / "genres.sqlite3"
    shutil.copyfile(migrated_file, path)
    settings.VAR_DIR = tmp_path / "var"
    with django_db_blocker.unblock(), sqlite_file_as_default(path):
        queue().empty()
        try:
            yield path
        finally:
            queue().empty()


@contextmanager
def sqlite_file_as_default(path, engine=SQLITE):
    """The default database is the SQLite file at ``path`` inside the block, the in-memory test
    database (left open, untouched) again after it; ``engine`` is its backend."""
    in_memory = connections["default"]
    settings_dict = {
        **in_memory.settings_dict,
        "ENGINE": engine,
        "NAME": str(path),
        "USER": "",
        "PASSWORD": "",
        "HOST": "",
        "PORT": "",
        # As in settings.py: workers and the test write to the same file, so wait for locks.
        "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
    }
    connections["default"] = load_backend(engine).DatabaseWrapper(settings_dict, "default")
    try:
        yield
    finally:
        connections["default"].close()
        connections["default"] = in_memory


def server_superuser(username, password):
    """A superuser who signs in to the app's own processes: they hash as production does (PBKDF2),
    not with the tests' fast hasher."""
    user = get_user_model().objects.create_superuser(username, f"{username}@example.org")
    user.password = make_password(password, hasher="pbkdf2_sha256")
    user.save(update_fields=["password"])
    return user


def worker_environment(database, **variables):
    """The environment of a worker (or web server) process sharing the test's database and Redis."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("OPENAI_", "GENRES_")) and key != "DJANGO_ALLOW_ASYNC_UNSAFE"
    }
    env.update(
        DJANGO_SETTINGS_MODULE="genres_site.settings",
        DATABASE_URL=f"sqlite:///{database}",
        REDIS_URL=settings.REDIS_URL,
        GENRES_VAR_DIR=str(settings.VAR_DIR),
        **variables,
    )
    return env


def worker_command(burst=True, worker_class="rq.worker.Worker"):
    return [
        sys.executable,
        "manage.py",
        "rqworker",
        QUEUE,
        "--worker-class",
        worker_class,
        *(["--burst"] if burst else []),
    ]


def run_burst_worker(env, timeout=120, worker_class="rq.worker.Worker"):
    """Work through the queue in a worker subprocess; its output, for failure messages."""
    finished = subprocess.run(
        worker_command(True, worker_class),
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    return finished.stdout + finished.stderr


def start_worker(env, burst=True):
    """A worker in a process group of its own, so that killing the group takes its work horse too."""
    return subprocess.Popen(
        worker_command(burst),
        cwd=BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        process_group=0,
    )


def wait_until(condition, timeout=60, interval=0.1, what="the condition"):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def answers(url):
    try:
        with urlopen(url, timeout=1):
            return True
    except OSError:
        return False


def start_web(env):
    """The web server as serve runs it (gunicorn, one uvicorn worker) on a free port, in a
    process group of its own; returns the process and its base URL.

    DEBUG on, for static files read from the source directories: nothing is collected here.
    """
    port = free_port()
    web = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--config",
            "genres_site/gunicorn_conf.py",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
            "genres_site.asgi:application",
        ],
        cwd=BASE_DIR,
        env=dict(env, DEBUG="1"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        process_group=0,
    )
    base = f"http://127.0.0.1:{port}"
    wait_until(lambda: answers(f"{base}/accounts/login/"), what="the web server to answer")
    return web, base


def stop(*processes, timeout=15):
    """Ask each process group to stop, then kill what is still there after ``timeout`` seconds."""
    for process in processes:
        os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
