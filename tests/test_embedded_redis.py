"""The embedded Redis that ``genres_site.serve`` starts."""

import os

from genres_site import embedded_redis


def test_embedded_redis_runs_in_a_process_group_of_its_own(tmp_path):
    # The terminal's Ctrl-C goes to the foreground process group; Redis must wait for serve's
    # ordered shutdown (web server, then workers, then Redis) instead.
    process = embedded_redis.start(tmp_path / "redis.sock")
    try:
        assert os.getpgid(process.pid) == process.pid != os.getpgrp()
        assert embedded_redis.answers(embedded_redis.socket_url(tmp_path / "redis.sock"))
    finally:
        process.terminate()
        process.wait(timeout=10)
