"""Run the whole app on one machine: ``python -m genres_site.serve [--demo]`` (``make demo``).

Starts, in this order: the PostgreSQL database of DATABASE_URL when it does not exist yet,
the embedded Redis when REDIS_URL is not set, the database migrations, the static files, the
RQ workers, the demo data (with ``--demo``) and the web server (gunicorn with uvicorn workers:
HTTP and websockets). Once the app is up, a child that
dies (Redis, a worker, the web server) is started again, after 1 s, then 2, 4 … up to 30 s
when it keeps dying. Ctrl-C or SIGTERM stops them in reverse order, the web server first and
Redis last, and the command exits 0. A step that fails while starting stops the rest and
exits 1; a port already in use is reported before anything starts (exit 2).

The children run in process groups of their own, so a Ctrl-C in the terminal reaches only
this supervisor, which then stops them in order instead of all at once.
"""

import argparse
import errno
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import FrameType
from typing import IO, Any

from django.conf import settings

from core.databases import (
    DatabaseUnavailable,
    create_database_if_missing,
    database_name,
    is_postgres_url,
    server_description,
)
from genres_site import embedded_redis
from genres_site.gunicorn_conf import default_web_workers

SETTINGS_MODULE = "genres_site.settings"
ASGI_APPLICATION = "genres_site.asgi:application"
GUNICORN_CONFIG = Path(__file__).with_name("gunicorn_conf.py")
# rq's forking worker, healing scoring runs on start and every 15 s (scoring/workers.py): each
# job runs in a work horse, so a job that crashes or is killed cannot take the worker with it.
WORKER_CLASS = "scoring.workers.HealingWorker"
STOP_TIMEOUT_SECONDS = 10
READY_TIMEOUT_SECONDS = 120
ANSWER_TIMEOUT_SECONDS = 5
POLL_SECONDS = 0.2
# A child that dies is started again after a delay that doubles while it keeps dying soon
# after its start (a broken configuration must not spin), and starts over once it has
# stayed up for a while.
RESTART_FIRST_DELAY_SECONDS = 1
RESTART_MAX_DELAY_SECONDS = 30
RESTART_STABLE_SECONDS = 60
EXIT_CHILD_FAILED = 1
EXIT_PORT_TAKEN = 2


class ChildFailed(Exception):
    """A step or a child process failed; the message says which and how."""


class StopRequested(Exception):
    """Ctrl-C or SIGTERM arrived while the app was starting."""


_terminal = threading.Lock()


def say(line: str, name: str | None = "serve") -> None:
    """Write one whole line to the terminal, prefixed with the name of the process it is from."""
    with _terminal:
        sys.stdout.write(f"[{name}] {line.rstrip()}\n" if name else f"{line}\n")
        sys.stdout.flush()


def copy_lines(stream: Iterable[str], sink: Callable[[str], object]) -> None:
    for line in stream:
        sink(line)


class Child:
    """A process in a group of its own, which the supervisor stops, and the threads that copy
    its output."""

    def __init__(self, name: str, process: subprocess.Popen[Any]) -> None:
        self.name = name
        self.process = process
        self.started_at = time.monotonic()
        self.captured: list[str] = []
        self.copiers: list[threading.Thread] = []

    @classmethod
    def start(cls, name: str, args: Sequence[str], env: dict[str, str], capture: bool = False) -> "Child":
        """Start ``args`` in a process group of its own, its output going to the terminal.

        ``capture=True`` keeps stdout for the caller (a command's JSON answer); stderr still
        goes to the terminal.
        """
        process = subprocess.Popen(
            args,
            cwd=settings.BASE_DIR,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if capture else subprocess.STDOUT,
            text=True,
            errors="replace",
            process_group=0,
        )
        child = cls(name, process)
        child.follow(process.stderr if capture else process.stdout, child.show)
        if capture:
            child.follow(process.stdout, child.captured.append)
        return child

    def follow(self, stream: IO[str] | None, sink: Callable[[str], object]) -> None:
        thread = threading.Thread(target=copy_lines, args=(stream, sink), daemon=True)
        thread.start()
        self.copiers.append(thread)

    def show(self, line: str) -> None:
        say(line, self.name)

    def output(self) -> str:
        for thread in self.copiers:
            thread.join()
        return "".join(self.captured)

    def stop(self) -> None:
        """Ask politely, then kill after a timeout (the whole group: an rq work horse too)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_TIMEOUT_SECONDS)
            except subprocess.TimeoutExpired:
                say(f"{self.name} did not stop within {STOP_TIMEOUT_SECONDS} s; killing it")
                self.kill_group()
                self.process.wait()
        for thread in self.copiers:
            thread.join(timeout=2)

    def kill_group(self) -> None:
        """Kill whatever is left of the group: a dead worker's work horse, a dead gunicorn's workers."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class Service:
    """A child that runs as long as the app does: started again, with backoff, when it dies."""

    def __init__(self, name: str, launch: Callable[[], Child]) -> None:
        self.name = name
        self.launch = launch
        self.child: Child | None = None
        self.delay: float = RESTART_FIRST_DELAY_SECONDS
        self.restart_at: float | None = None

    def start(self) -> None:
        self.child = self.launch()
        self.restart_at = None

    def check(self, now: float) -> None:
        """Notice a death and schedule the restart; restart when its time has come."""
        assert self.child is not None  # a service is checked once started
        if self.restart_at is None:
            code = self.child.process.poll()
            if code is None:
                return
            self.child.kill_group()
            if now - self.child.started_at >= RESTART_STABLE_SECONDS:
                self.delay = RESTART_FIRST_DELAY_SECONDS
            say(f"{self.name} exited with code {code}; restarting it in {self.delay:g} s")
            self.restart_at = now + self.delay
            self.delay = min(2 * self.delay, RESTART_MAX_DELAY_SECONDS)
        elif now >= self.restart_at:
            try:
                self.start()
            except (OSError, RuntimeError) as error:
                say(f"{self.name} could not start ({error}); trying again in {self.delay:g} s")
                self.restart_at = now + self.delay
                self.delay = min(2 * self.delay, RESTART_MAX_DELAY_SECONDS)
                return
            say(f"{self.name} restarted (pid {self.child.process.pid})")

    def stop(self) -> None:
        if self.child is not None:
            self.child.stop()


class Supervisor:
    def __init__(self) -> None:
        self.services: list[Service] = []
        self.step: Child | None = None
        self.stop_requested = False

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        self.stop_requested = True

    def start_service(self, name: str, launch: Callable[[], Child]) -> Service:
        service = Service(name, launch)
        self.services.append(service)
        service.start()
        return service

    def start_command(self, name: str, args: Sequence[str], env: dict[str, str]) -> Service:
        return self.start_service(name, lambda: Child.start(name, args, env))

    def run_step(self, name: str, args: Sequence[str], env: dict[str, str], capture: bool = False) -> str:
        """Run a command to completion; its stdout when captured."""
        self.step = child = Child.start(name, args, env, capture)
        while child.process.poll() is None:
            if self.stop_requested:
                raise StopRequested
            time.sleep(POLL_SECONDS)
        self.step = None
        output = child.output()
        if child.process.returncode != 0:
            raise ChildFailed(f"{name} failed with exit code {child.process.returncode}")
        return output

    def wait_until_answering(self, child: Child, host: str, port: int) -> None:
        """Wait for an HTTP answer, not just a listening socket: gunicorn listens before its
        workers have loaded the app."""
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while True:
            if self.stop_requested:
                raise StopRequested
            if child.process.poll() is not None:
                raise ChildFailed(f"{child.name} exited with code {child.process.returncode} while starting")
            connection = http.client.HTTPConnection(host, port, timeout=ANSWER_TIMEOUT_SECONDS)
            try:
                connection.request("HEAD", "/accounts/login/")
                connection.getresponse()
                return
            except OSError as error:
                if time.monotonic() > deadline:
                    raise ChildFailed(
                        f"{child.name} did not answer on {host}:{port} within {READY_TIMEOUT_SECONDS} s"
                    ) from error
                time.sleep(POLL_SECONDS)
            finally:
                connection.close()

    def watch(self) -> None:
        """Keep every service running until a stop is requested."""
        while not self.stop_requested:
            now = time.monotonic()
            for service in self.services:
                service.check(now)
            time.sleep(POLL_SECONDS)

    def shutdown(self) -> None:
        # Reverse start order: web server, workers, then Redis, which the others need until they stop.
        if self.step is not None:
            self.step.stop()
        for service in reversed(self.services):
            service.stop()
        self.services = []


def port_problem(host: str, port: int) -> str | None:
    """Why the web server could not listen on host:port, or None when it can."""
    try:
        socket.create_server((host, port)).close()
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            return f"Port {port} on {host} is already in use: stop the program using it or choose another with --port."
        return f"Cannot listen on {host}:{port}: {error.strerror or error}."
    return None


def create_postgres_database(url: str) -> None:
    """Create the PostgreSQL database of DATABASE_URL when it is missing: migrate needs it to exist,
    and a lab trying the app on PostgreSQL should not need psql first."""
    try:
        created = create_database_if_missing(url)
    except DatabaseUnavailable as error:
        raise ChildFailed(str(error)) from None
    state = "created" if created else "exists"
    say(f"PostgreSQL database {database_name(url)} on {server_description(url)}: {state}")


def manage(*args: str) -> list[str]:
    return [sys.executable, "-m", "genres_site", *args]


def login_lines(accounts: list[dict[str, str]]) -> list[str]:
    lines = []
    for account in accounts:
        password = f"password {account['password']}" if account["password"] else "exists, password as first printed"
        lines.append(f"  {account['username']:<11} {password}   ({account['role']})")
    if not all(account["password"] for account in accounts):
        lines.append("  (--reset-passwords sets new passwords)")
    return lines


def banner(url: str, demo_summary: dict[str, Any] | None) -> str:
    lines = ["", "=" * 72, f"GENRES Arena is running at {url}"]
    if demo_summary is None:
        lines.append("No demo data (run with --demo); create an account with: python manage.py createsuperuser")
    else:
        datasets = ", ".join(f"{item['name']} ({item['texts']} texts)" for item in demo_summary["datasets"])
        systems = len({item["system"] for item in demo_summary["outputs"]})
        state = "already loaded" if demo_summary["unchanged"] else "loaded"
        lines += [f"Demo data {state}: {datasets}; {systems} systems.", "Sign in as:"]
        lines += login_lines(demo_summary["accounts"])
    lines += ["Press Ctrl-C to stop.", "=" * 72, ""]
    return "\n".join(lines)


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m genres_site.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--demo", action="store_true", help="load the demo data and accounts (harmless when loaded)")
    parser.add_argument("--reset-passwords", action="store_true", help="with --demo: set new demo passwords")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument(
        "--workers", type=int, default=1, help="RQ workers on the default queue, for scoring (default 1)"
    )
    parser.add_argument(
        "--web-workers",
        type=int,
        default=default_web_workers(),
        help=f"web server processes (default {default_web_workers()}: two per core)",
    )
    parser.add_argument("--debug", action="store_true", help="run with DEBUG=1 (development only)")
    options = parser.parse_args(argv)
    if options.reset_passwords and not options.demo:
        parser.error("--reset-passwords only applies with --demo")
    if options.workers < 1:
        parser.error("--workers must be at least 1")
    if options.web_workers < 1:
        parser.error("--web-workers must be at least 1")
    return options


def host_in_url(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def gunicorn(options: argparse.Namespace) -> list[str]:
    return [
        sys.executable, "-m", "gunicorn",
        "--config", str(GUNICORN_CONFIG),
        "--bind", f"{host_in_url(options.host)}:{options.port}",
        "--workers", str(options.web_workers),
        ASGI_APPLICATION,
    ]  # fmt: skip


def rq_worker(queue: str) -> list[str]:
    return manage("rqworker", queue, "--worker-class", WORKER_CLASS)


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_arguments(argv)
    # This process reads the settings only; the children run Django itself.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", SETTINGS_MODULE)

    problem = port_problem(options.host, options.port)
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_PORT_TAKEN

    supervisor = Supervisor()
    signal.signal(signal.SIGINT, supervisor.request_stop)
    signal.signal(signal.SIGTERM, supervisor.request_stop)
    env = dict(os.environ, PYTHONUNBUFFERED="1", DEBUG="1" if options.debug else "0")
    exit_code = 0
    try:
        if is_postgres_url(os.environ.get("DATABASE_URL", "")):
            create_postgres_database(os.environ["DATABASE_URL"])
        if not os.environ.get("REDIS_URL"):
            socket_path = settings.EMBEDDED_REDIS_SOCKET
            supervisor.start_service("redis", lambda: Child("redis", embedded_redis.start(socket_path)))
            env["REDIS_URL"] = embedded_redis.socket_url(socket_path)
            say(f"embedded Redis listening on {socket_path}, its data in {socket_path.parent}")
        supervisor.run_step("migrate", manage("migrate", "--noinput"), env)
        supervisor.run_step("collectstatic", manage("collectstatic", "--noinput", "--verbosity", "0"), env)
        # Workers start before the demo data loads: they take a few seconds to get ready too.
        for number in range(1, options.workers + 1):
            supervisor.start_command(f"worker-{number}", rq_worker("default"), env)
        supervisor.start_command("worker-leaderboard", rq_worker("leaderboard"), env)
        demo_summary = None
        if options.demo:
            reset = ["--reset-passwords"] if options.reset_passwords else []
            demo_summary = json.loads(
                supervisor.run_step("load_demo", manage("load_demo", "--json", *reset), env, capture=True)
            )
        web = supervisor.start_command("web", gunicorn(options), env)
        assert web.child is not None  # started by start_command
        supervisor.wait_until_answering(web.child, options.host, options.port)
        say(banner(f"http://{host_in_url(options.host)}:{options.port}/", demo_summary), name=None)
        supervisor.watch()
    except ChildFailed as failure:
        say(f"{failure}; stopping everything")
        exit_code = EXIT_CHILD_FAILED
    except StopRequested:
        pass
    finally:
        say("stopping")
        supervisor.shutdown()
    say("stopped")
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
