"""/healthz: 200 while the database and Redis answer, 503 naming what failed; workers reported."""

import django_rq
import pytest
import redis
from django.db import OperationalError
from django.test import Client, override_settings
from rq import Queue, Worker

from genres_site import health

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


def test_a_healthy_process_answers_200_to_anyone(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["database"] == "ok" and body["redis"] == "ok"
    assert set(body["workers"]) == {"default", "leaderboard"}
    assert response["Cache-Control"].startswith("max-age=0")


def test_a_worker_that_beat_recently_is_counted_on_its_queues(client):
    connection = django_rq.get_connection()
    worker = Worker([Queue("leaderboard", connection=connection)], connection=connection, name="healthz-test")
    worker.register_birth()
    worker.heartbeat()
    try:
        before = client.get("/healthz").json()["workers"]
        assert before["leaderboard"] >= 1
    finally:
        worker.register_death()
    assert client.get("/healthz").json()["workers"]["leaderboard"] == before["leaderboard"] - 1


def test_redis_that_does_not_answer_makes_it_503(client, monkeypatch):
    unreachable = redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.5)
    monkeypatch.setattr(health.django_rq, "get_connection", lambda: unreachable)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "ok", "redis": "error: ConnectionError"}


def test_a_database_that_fails_makes_it_503(client, monkeypatch):
    def fail():
        raise OperationalError("server closed the connection")

    monkeypatch.setattr(health, "_database", fail)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == "error: OperationalError"


@override_settings(SECURE_SSL_REDIRECT=True)
def test_it_is_not_redirected_to_https_when_the_site_is(client):
    assert client.get("/healthz").status_code == 200
    assert client.get("/accounts/login/").status_code == 301


def test_another_method_is_405_not_a_csrf_refusal():
    response = Client(enforce_csrf_checks=True).post("/healthz")
    assert response.status_code == 405
    assert response["Allow"] == "GET"
