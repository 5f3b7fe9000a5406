"""A work horse dies with its worker, even one killed with SIGKILL (Linux)."""

import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = [
    pytest.mark.subprocess,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's parent-death signal"),
]

# A worker forks a work horse in a process group of its own, as rq does, then is killed.
WORKER = """
import os, time
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "genres_site.settings")
django.setup()
from scoring.workers import die_with
worker_pid = os.getpid()
horse = os.fork()
if horse == 0:
    os.setpgrp()
    die_with(worker_pid)
    time.sleep(60)
    os._exit(0)
print(horse, flush=True)
time.sleep(60)
"""


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_killing_the_worker_kills_its_work_horse():
    worker = subprocess.Popen([sys.executable, "-c", WORKER], stdout=subprocess.PIPE, text=True)
    horse = int(worker.stdout.readline())
    time.sleep(0.5)  # the horse has told the kernel
    assert alive(horse)

    worker.send_signal(signal.SIGKILL)
    worker.wait()
    deadline = time.monotonic() + 5
    while alive(horse) and time.monotonic() < deadline:
        time.sleep(0.05)

    still_alive = alive(horse)
    if still_alive:
        os.kill(horse, signal.SIGKILL)
    assert not still_alive
