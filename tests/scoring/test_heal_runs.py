"""A HealingWorker queues again, on start, the chunks no live job holds: every score stored once.

Orphans are made as a dead worker or a Redis that lost its data leaves them; the worker is a
real one in a subprocess (``--burst``: it heals, works the queue, and exits).
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from scoring.genres.scorer import ScoreSettings
from scoring.healing import heal_runs
from scoring.jobs import MAX_CHUNK_ATTEMPTS, enqueue_run, prepare_run, queue
from scoring.models import System
from scoring.models.runs import RunChunk, ScoringRun
from scoring.models.scores import SystemScore, TextScore
from scoring.workers import HEAL_LOCK, HealingWorker
from tests.scoring.run_fixtures import echo, tiny_dataset
from tests.scoring.worker_fixtures import run_burst_worker, worker_environment

HEALING_WORKER = "scoring.workers.HealingWorker"
METRICS = ["us", "fs"]


@pytest.fixture(autouse=True)
def no_heal_lock(file_database):
    """The lock a worker of an earlier test may have left: each test's worker heals at once."""
    queue().connection.delete(HEAL_LOCK)


def started_run(dataset):
    """A run over Ground truth and Echo, one text a chunk, prepared: its chunk jobs are queued."""
    run = ScoringRun.create(dataset, [System.ground_truth(), echo()], METRICS, ScoreSettings(), chunk_texts=1)
    prepare_run(run.pk)
    run.refresh_from_db()
    return run


def orphan(chunk):
    """The chunk as a worker killed in mid-chunk leaves it: running, for a job Redis does not know."""
    chunk.hand_to("genres-run-job-of-a-dead-worker")
    RunChunk.claim(chunk.pk, chunk.job_id)
    RunChunk.objects.filter(pk=chunk.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=5))


def assert_scored_once(run):
    run.refresh_from_db()
    assert run.status == "done", run.error
    outputs = sum(system.outputs.filter(text__dataset=run.dataset).count() for system in run.systems.all())
    scores = TextScore.objects.filter(run=run)
    assert scores.count() == outputs * len(METRICS)
    assert scores.values("output", "metric").distinct().count() == outputs * len(METRICS)
    assert SystemScore.objects.filter(run=run).count() == 2


@pytest.mark.slow
def test_a_worker_queues_an_orphaned_chunk_again_on_start(file_database):
    run = started_run(tiny_dataset())
    orphaned = run.chunks.first()
    orphan(orphaned)

    run_burst_worker(worker_environment(file_database), worker_class=HEALING_WORKER)

    assert_scored_once(run)
    assert list(run.chunks.values_list("index", "attempts")) == [(0, 2), (1, 1), (2, 1)]


@pytest.mark.slow
def test_runs_whose_jobs_redis_lost_are_finished(file_database):
    prepared = started_run(tiny_dataset("first"))
    other = tiny_dataset("second")  # scores of the same settings on the same dataset would be shared
    unprepared = ScoringRun.create(other, [System.ground_truth(), echo()], METRICS, ScoreSettings())
    enqueue_run(unprepared)
    queue().empty()  # Redis restarted without its data: every queued job is gone

    run_burst_worker(worker_environment(file_database), worker_class=HEALING_WORKER)

    assert_scored_once(prepared)
    assert_scored_once(unprepared)
    assert set(prepared.chunks.values_list("attempts", flat=True)) == {1}


def test_one_worker_heals_at_a_time(file_database):
    run = started_run(tiny_dataset())
    orphaned = run.chunks.first()
    orphan(orphaned)
    queue().connection.set(HEAL_LOCK, "another-worker", ex=60)
    worker = HealingWorker([queue()], connection=queue().connection)

    worker.heal()
    orphaned.refresh_from_db()
    assert orphaned.status == "running"  # the other worker's turn

    queue().connection.delete(HEAL_LOCK)
    worker.heal()
    orphaned.refresh_from_db()
    assert orphaned.status == "queued" and orphaned.job_id in queue().job_ids


def test_an_orphan_on_its_last_attempt_fails_its_run(file_database):
    run = started_run(tiny_dataset())
    orphaned = run.chunks.first()
    orphan(orphaned)
    RunChunk.objects.filter(pk=orphaned.pk).update(attempts=MAX_CHUNK_ATTEMPTS)

    assert heal_runs() == 0

    run.refresh_from_db()
    assert run.status == "failed"
    assert "chunk 1 of run" in run.error and "its job was lost" in run.error
    assert f"attempt {MAX_CHUNK_ATTEMPTS} of {MAX_CHUNK_ATTEMPTS}" in run.error
