"""A chunk whose attempt fails goes back to the queue, after a backoff, up to MAX_CHUNK_ATTEMPTS.

The run fails only when a chunk has failed that many times; the failure callback records it
even when the database connection it finds has been dropped.
"""

from datetime import timedelta

import pytest
from django.db import connection
from rq.job import Job

from scoring.genres.scorer import Scorer, ScoreSettings
from scoring.healing import heal_runs
from scoring.jobs import MAX_CHUNK_ATTEMPTS, chunk_job_failed, enqueue_run, queue, score_chunk
from scoring.models.runs import RunChunk, ScoringRun
from scoring.models.scores import SystemScore, TextScore
from tests.scoring.run_fixtures import echo, tiny_dataset, work
from tests.scoring.worker_fixtures import file_database

pytestmark = pytest.mark.postgres_relevant

__all__ = ["file_database"]  # a fixture, used by name


def us_run():
    """Three texts of one system in two chunks, scored for uniqueness only."""
    return ScoringRun.create(tiny_dataset(), [echo()], ["us"], ScoreSettings(), chunk_texts=2)


@pytest.mark.django_db(transaction=True)
def test_a_chunk_that_fails_once_is_retried_and_the_run_finishes(monkeypatch):
    run = us_run()
    original = Scorer.score
    calls = []

    def fails_first(self, records, metrics):
        calls.append(records[0].key)
        if len(calls) == 1:
            raise ConnectionError("database connection dropped")
        return original(self, records, metrics)

    monkeypatch.setattr(Scorer, "score", fails_first)
    enqueue_run(run)
    work()
    run.refresh_from_db()
    first, second = run.chunks.all()
    assert run.status == "running" and run.error == ""
    assert (first.status, first.attempts, second.status) == ("running", 1, "done")

    assert heal_runs(backoff=timedelta(hours=1)) == 0  # it waits out its backoff
    assert heal_runs(backoff=timedelta(0)) == 1
    work()

    run.refresh_from_db()
    assert run.status == "done" and run.error == ""
    assert list(run.chunks.values_list("status", "attempts")) == [("done", 2), ("done", 1)]
    assert TextScore.objects.filter(run=run).count() == 3  # one us score per output, once
    assert SystemScore.objects.get(run=run).values["us"] == pytest.approx(1 / 3)


@pytest.mark.django_db(transaction=True)
def test_a_chunk_that_always_fails_fails_the_run_after_its_last_attempt(monkeypatch):
    run = us_run()

    def broken(self, records, metrics):
        raise RuntimeError("embedder exploded")

    monkeypatch.setattr(Scorer, "score", broken)
    enqueue_run(run)
    work()
    for _attempt in range(MAX_CHUNK_ATTEMPTS - 1):
        run.refresh_from_db()
        assert run.status == "running"
        assert heal_runs(backoff=timedelta(0)) == 2
        work()

    run.refresh_from_db()
    assert run.status == "failed"
    assert "RuntimeError: embedder exploded" in run.error
    assert f"attempt {MAX_CHUNK_ATTEMPTS} of {MAX_CHUNK_ATTEMPTS}" in run.error
    assert set(run.chunks.values_list("status", "attempts")) == {("failed", MAX_CHUNK_ATTEMPTS)}
    assert heal_runs(backoff=timedelta(0)) == 0  # a failed run waits for Resume
    assert not TextScore.objects.exists()


def test_the_failure_callback_opens_a_new_connection_when_its_own_was_dropped(file_database):
    run = us_run()
    run.start()
    chunk = run.chunks.first()
    chunk.hand_to("job-last-attempt")
    RunChunk.claim(chunk.pk, "job-last-attempt")
    RunChunk.objects.filter(pk=chunk.pk).update(attempts=MAX_CHUNK_ATTEMPTS)
    job = Job.create(score_chunk, args=(chunk.pk,), id="job-last-attempt", connection=queue().connection)
    connection.connection.close()  # dropped under Django's feet, as by a database restart

    chunk_job_failed(job, queue().connection, OSError, OSError("server closed the connection"), None)

    chunk.refresh_from_db()
    run.refresh_from_db()
    assert chunk.status == "failed" and run.status == "failed"
    assert "OSError: server closed the connection" in run.error
