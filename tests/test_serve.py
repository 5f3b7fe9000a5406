"""`python -m genres_site.serve --demo` end to end: start, sign in over HTTP, a killed child
started again, Ctrl-C, nothing left behind."""

import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
from rq import Worker

from genres_site.serve import EXIT_CHILD_FAILED, EXIT_PORT_TAKEN

pytestmark = pytest.mark.subprocess

BASE_DIR = Path(__file__).resolve().parent.parent
STARTUP_TIMEOUT_SECONDS = 180
PORT_ATTEMPTS = 3


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def embedded_environment(var_dir):
    """The one-machine mode whatever the suite runs on: own SQLite file, own embedded Redis."""
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DATABASE_URL")}
    env["GENRES_VAR_DIR"] = str(var_dir)
    return env


class Served:
    """The serve command in a subprocess, its output collected line by line."""

    def __init__(self, var_dir, *args, port=None, **variables):
        self.port = port
        port_args = ("--port", str(port)) if port else ()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "genres_site.serve", *args, *port_args],
            cwd=BASE_DIR,
            env=dict(embedded_environment(var_dir), **variables),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines = []
        self.started_children = []
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        for line in self.process.stdout:
            self.lines.append(line)
            if line.startswith("Press Ctrl-C to stop."):
                self.ready.set()

    def wait_until_ready(self):
        """True once the banner is out; False if the command exited first or took too long."""
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while not self.ready.wait(0.5):
            if self.process.poll() is not None or time.monotonic() > deadline:
                return False
        return True

    @property
    def output(self):
        return "".join(self.lines)

    def children(self):
        """(pid, command line) of every process whose parent is the serve command."""
        found = []
        for status in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = status.read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == self.process.pid:
                    command = (status.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                    found.append((int(status.parent.name), command))
            except (OSError, IndexError, ValueError):
                continue  # the process ended while we looked
        return found


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def sign_in(base_url, username, password):
    """Sign in through the login form (cookie + CSRF token) and return the home page's HTML."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    login_url = base_url + "accounts/login/"
    with opener.open(login_url, timeout=30) as response:
        login_page = response.read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login_page).group(1)
    form = urllib.parse.urlencode(
        {"csrfmiddlewaretoken": token, "username": username, "password": password, "next": "/"}
    ).encode()
    with opener.open(urllib.request.Request(login_url, data=form), timeout=30) as response:
        return response.geturl(), response.read().decode()


def registered_workers(socket_path):
    connection = redis.Redis(unix_socket_path=str(socket_path))
    try:
        return Worker.all(connection=connection)
    finally:
        connection.close()


def wait_for(condition, what):
    deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)


@contextmanager
def serving(var_dir, *args):
    """Serve on a free port until the block ends; whatever is left running is killed afterwards.

    Other test runs on this machine may take the free port before the command binds it: then
    the command says so at once, and another port is tried.
    """
    for _ in range(PORT_ATTEMPTS):
        served = Served(var_dir, *args, port=free_port())
        if served.wait_until_ready() or served.process.returncode != EXIT_PORT_TAKEN:
            break
    try:
        assert served.ready.is_set(), served.output
        served.started_children = served.children()
        yield served
    finally:
        if served.process.poll() is None:
            served.process.kill()
            served.process.wait()
        for pid, _ in served.started_children:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
def test_demo_serves_the_app_and_stops_cleanly_on_ctrl_c(tmp_path):
    with serving(tmp_path, "--demo") as served:
        children = served.started_children
        commands = " | ".join(command for _, command in children)
        assert "redis-server" in commands and "gunicorn" in commands, served.output
        assert "rqworker default" in commands and "rqworker leaderboard" in commands, served.output

        url = re.search(r"GENRES Arena is running at (http://\S+)", served.output).group(1)
        assert url == f"http://127.0.0.1:{served.port}/"
        password = re.search(r"^\s+admin\s+password (\S+)", served.output, flags=re.MULTILINE).group(1)
        assert re.search(r"^\s+annotator1\s+password \S+", served.output, flags=re.MULTILINE)

        final_url, home = sign_in(url, "admin", password)
        assert final_url == url
        assert "demo-sentences" in home and "demo-documents" in home

        # DEBUG is off: a missing page is the site's own, with the site's security headers.
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(url + "no-such-page/", timeout=30)
        assert missing.value.code == 404
        assert "Using the URLconf" not in missing.value.read().decode()
        assert "script-src 'self'" in missing.value.headers["Content-Security-Policy"]

        wait_for(lambda: len(registered_workers(tmp_path / "redis.sock")) == 2, "both workers")
        queues = sorted(worker.queue_names()[0] for worker in registered_workers(tmp_path / "redis.sock"))
        assert queues == ["default", "leaderboard"]

        served.process.send_signal(signal.SIGINT)
        assert served.process.wait(timeout=60) == 0, served.output
        served.reader.join(timeout=10)
        assert served.output.rstrip().endswith("[serve] stopped")
        assert [pid for pid, _ in children if alive(pid)] == []


@pytest.mark.slow
def test_a_child_that_dies_is_started_again_and_the_app_keeps_running(tmp_path):
    with serving(tmp_path) as served:
        assert "No demo data" in served.output
        worker = next(pid for pid, command in served.started_children if "rqworker default" in command)
        os.kill(worker, signal.SIGKILL)

        wait_for(lambda: "[serve] worker-1 restarted" in served.output, "the worker to be started again")
        assert "[serve] worker-1 exited with code -9; restarting it in 1 s" in served.output
        assert served.process.poll() is None
        restarted = [pid for pid, command in served.children() if "rqworker default" in command]
        assert len(restarted) == 1 and restarted[0] != worker
        wait_for(
            lambda: restarted[0] in [worker.pid for worker in registered_workers(tmp_path / "redis.sock")],
            "the new worker to register",
        )

        served.process.send_signal(signal.SIGINT)
        assert served.process.wait(timeout=60) == 0, served.output
        assert not alive(restarted[0])


def test_a_taken_port_is_reported_before_anything_starts(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as occupant:
        port = occupant.getsockname()[1]
        served = Served(tmp_path, port=port)
        assert served.process.wait(timeout=60) == EXIT_PORT_TAKEN
    served.reader.join(timeout=10)
    assert f"Port {port} on 127.0.0.1 is already in use" in served.output
    assert not (tmp_path / "redis.sock").exists()


def test_a_postgresql_server_that_does_not_answer_is_reported_before_anything_starts(tmp_path):
    served = Served(tmp_path, DATABASE_URL="postgres://genres@127.0.0.1:1/genres")
    assert served.process.wait(timeout=60) == EXIT_CHILD_FAILED
    served.reader.join(timeout=10)
    assert "[serve] cannot connect to PostgreSQL on 127.0.0.1:1 as genres: " in served.output
    assert not (tmp_path / "redis.sock").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--reset-passwords"], "--reset-passwords only applies with --demo"),
        (["--workers", "0"], "--workers must be at least 1"),
        (["--web-workers", "0"], "--web-workers must be at least 1"),
    ],
)
def test_contradictory_options_are_refused(tmp_path, args, message):
    served = Served(tmp_path, *args)
    assert served.process.wait(timeout=60) == 2
    served.reader.join(timeout=10)
    assert message in served.output
