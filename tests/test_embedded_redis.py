"""The embedded Redis that ``genres_site.serve`` starts."""

import os

import redis

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


def test_what_was_answered_survives_a_killed_redis(tmp_path):
    # Queued jobs must outlive a crash: the append-only file has every write Redis answered.
    socket_path = tmp_path / "redis.sock"
    process = embedded_redis.start(socket_path)
    try:
        connection = redis.Redis(unix_socket_path=str(socket_path))
        connection.rpush("rq:queue:default", "job-1", "job-2")
        connection.close()
    finally:
        process.kill()
        process.wait(timeout=10)
    assert (tmp_path / embedded_redis.APPEND_ONLY_FILE).exists()

    process = embedded_redis.start(socket_path)
    try:
        connection = redis.Redis(unix_socket_path=str(socket_path))
        assert connection.lrange("rq:queue:default", 0, -1) == [b"job-1", b"job-2"]
        connection.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
