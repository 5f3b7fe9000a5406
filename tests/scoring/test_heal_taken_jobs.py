"""A worker killed after taking a chunk's job and before starting it: the job sits "queued" in rq's
intermediate list, and the heal pass queues the chunk again once that worker has gone silent."""

from datetime import timedelta

import pytest
from rq.utils import now, utcformat
from rq.worker import Worker

from scoring.genres.scorer import ScoreSettings
from scoring.healing import TAKEN_JOB_WORKER_SILENCE, heal_runs
from scoring.jobs import prepare_run, queue
from scoring.models import System
from scoring.models.runs import ScoringRun
from tests.scoring.run_fixtures import echo, tiny_dataset

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]
NO_BACKOFF = timedelta(0)


@pytest.fixture
def run(django_capture_on_commit_callbacks):
    redis = queue().connection
    queue().empty()
    redis.delete(queue().intermediate_queue_key)
    created = ScoringRun.create(tiny_dataset(), [System.ground_truth(), echo()], ["us"], ScoreSettings(), chunk_texts=3)
    with django_capture_on_commit_callbacks(execute=True):  # the chunks' jobs are queued on commit
        prepare_run(created.pk)
    assert queue().count
    created.refresh_from_db()
    yield created
    queue().empty()
    redis.delete(queue().intermediate_queue_key)


def take_a_job(record_execution=True):
    """What a worker does between taking a job and forking its work horse; the worker and the job."""
    worker = Worker([queue()], connection=queue().connection, name=f"worker-{now().timestamp()}")
    worker.register_birth()
    job, _queue = worker.dequeue_job_and_maintain_ttl(timeout=1)
    if record_execution:
        worker.prepare_execution(job)
    return worker, job


def falls_silent(worker):
    """The worker is killed: its last heartbeat ages past the silence."""
    silent_since = now() - TAKEN_JOB_WORKER_SILENCE - timedelta(seconds=1)
    queue().connection.hset(worker.key, "last_heartbeat", utcformat(silent_since))


def chunk_of(run, job):
    return run.chunks.get(index=int(job.id.split("-chunk-")[1].split("-")[0]))


def test_a_job_taken_by_a_killed_worker_is_queued_again(run):
    worker, job = take_a_job()
    assert job.get_status() == "queued"
    falls_silent(worker)

    assert heal_runs(backoff=NO_BACKOFF) == 1

    assert chunk_of(run, job).job_id != job.id


def test_a_job_taken_by_a_beating_worker_is_left_to_it(run):
    _worker, job = take_a_job()

    assert heal_runs(backoff=NO_BACKOFF) == 0
    assert chunk_of(run, job).job_id == job.id


def test_a_worker_killed_before_recording_the_execution_is_found_by_the_first_seen_mark(run):
    _worker, job = take_a_job(record_execution=False)
    assert heal_runs(backoff=NO_BACKOFF) == 0  # just taken: its worker may yet record it

    intermediate = queue().intermediate_queue
    earlier = (now() - TAKEN_JOB_WORKER_SILENCE - timedelta(seconds=1)).timestamp()
    queue().connection.set(intermediate.get_first_seen_key(job.id), earlier)

    assert heal_runs(backoff=NO_BACKOFF) == 1
    assert chunk_of(run, job).job_id != job.id
