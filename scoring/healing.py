"""Healing and resuming runs, scoring and generation runs alike: queuing again what a run needs and no live job does.

The database, not Redis, says what a run still needs. ``heal_runs`` (run by every
``scoring.workers.HealingWorker`` on start and every few seconds) hands each unfinished chunk
of a queued or running run that no live job holds to a new job: its job was lost with Redis's
data, failed, was stopped, or started and then stopped sending heartbeats (its work horse or
worker died). A chunk whose attempt failed waits a backoff first, and after MAX_CHUNK_ATTEMPTS
failed attempts it fails, and its run with it. ``resume_run`` (the Resume button) queues again
the same chunks at once, failed ones included. Which job may commit a chunk is decided by the
chunk itself (``Chunk.claim`` and its ``complete``), so re-queuing a chunk whose old job is in fact
still alive costs work, never correctness.

A job a worker has taken from its queue but not yet started is still "queued" in rq: rq moves it
to the queue's intermediate list, records its execution in the started registry, and only the
work horse marks it started. A worker killed in between leaves it there, and rq's own cleanup
fails it some 10-20 minutes later. The heal pass counts such a job alive only while the worker
that took it beats (``taken_job_is_alive``), so its chunk is queued again within a minute.

Retries are counted by the chunk (``Chunk.attempts``) rather than by rq's ``Retry``: the count
lives where the scores are, survives a Redis that lost its data, needs no rq scheduler process
for the backoff, and covers the killed work horse, for which rq calls no failure callback; and
a retried rq job keeps its id, which the chunk would have to let claim it twice.
"""

from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from datetime import datetime, timedelta

from django.utils import timezone
from redis import Redis
from rq.job import Job, JobStatus
from rq.queue import Queue
from rq.worker import Worker

from scoring.jobs import (
    MAX_CHUNK_ATTEMPTS,
    attempt_failed,
    enqueue_chunks,
    enqueue_run,
    fail_run,
    prepare_job_id,
    queue,
)
from scoring.models.chunked import STALE_AFTER, Chunk, ChunkedRun
from scoring.models.generation import GenerationRun
from scoring.models.runs import ScoringRun
from scoring.progress import publish_progress

# After a failed attempt a chunk waits this long from its last heartbeat, doubled each attempt.
RETRY_BACKOFF = timedelta(seconds=5)
WAITING_JOB_STATES = {JobStatus.CREATED, JobStatus.QUEUED, JobStatus.DEFERRED, JobStatus.SCHEDULED}
ENDED_JOB_STATES = {JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED}
# A worker beats before each wait for a job (every HEAL_INTERVAL_SECONDS, 15 s, at most); one
# silent this long since is gone. A worker that is building a run's scorer beats neither: a build
# longer than this has its chunk queued again, which costs a build, never correctness.
TAKEN_JOB_WORKER_SILENCE = timedelta(seconds=40)


def taken_jobs() -> set[str]:
    """Ids of the jobs workers have taken from the queue and not yet started (rq's intermediate list)."""
    return set(queue().intermediate_queue.get_job_ids())


def worker_beats(name: str, connection: Redis, now: datetime) -> bool:
    worker = Worker.find_by_key(f"{Worker.redis_worker_namespace_prefix}{name}", connection=connection)
    last_beat = worker.last_heartbeat if worker else None
    return last_beat is not None and now - last_beat < TAKEN_JOB_WORKER_SILENCE


def taken_job_is_alive(job: Job, now: datetime) -> bool:
    """Whether the worker that took ``job`` (still "queued") from the queue may yet start it.

    rq names the worker in the job's execution right after taking it; a worker killed between the
    two leaves no name, and the job counts as alive for one silence from when a heal pass first
    saw it so (rq's first-seen mark, which its own cleanup shares).
    """
    executions = job.get_executions()
    if executions:
        return any(worker_beats(execution.worker_name, job.connection, now) for execution in executions)
    intermediate = Queue(job.origin, connection=job.connection).intermediate_queue
    intermediate.set_first_seen(job.id)
    first_seen = intermediate.get_first_seen(job.id)
    return first_seen is not None and now - first_seen < TAKEN_JOB_WORKER_SILENCE


def waiting_job_is_alive(job: Job, now: datetime, taken: AbstractSet[str]) -> bool:
    """A job rq calls waiting will run while it is in its queue, or a live worker has ``taken`` it."""
    return job.id not in taken or taken_job_is_alive(job, now)


def chunk_job_is_alive(
    chunk: Chunk, job: Job | None, stale_after: timedelta, now: datetime, taken: AbstractSet[str]
) -> bool:
    """Whether ``job`` (None when Redis does not know it) will still run the chunk.

    It will while it waits in a queue, or a live worker has ``taken`` it, or while it runs and its
    chunk beats. A running chunk whose job Redis lost (restarted without its data) counts as alive
    while it beats: its work horse may well finish it.
    """
    status = job.get_status(refresh=False) if job else None
    if job is not None and status in WAITING_JOB_STATES:
        return waiting_job_is_alive(job, now, taken)
    if status == JobStatus.STARTED or (status is None and chunk.status == Chunk.Status.RUNNING):
        # Dequeued but not yet claimed, the chunk's heartbeat is still its last attempt's.
        running = chunk.status == Chunk.Status.RUNNING
        last_sign = chunk.heartbeat_at if running or job is None else job.started_at
        return last_sign is not None and now - last_sign < stale_after
    return False


def chunks_without_live_job(run: ChunkedRun, stale_after: timedelta, now: datetime) -> list[tuple[Chunk, Job | None]]:
    """The run's unfinished chunks that no live job holds, each with its job (None when lost)."""
    chunks = list(run.chunks.exclude(status=Chunk.Status.DONE))
    jobs = Job.fetch_many([chunk.job_id for chunk in chunks], connection=queue().connection)
    taken = taken_jobs()
    return [
        (chunk, job)
        for chunk, job in zip(chunks, jobs, strict=True)
        if not chunk_job_is_alive(chunk, job, stale_after, now, taken)
    ]


def why_job_ended(job: Job | None) -> str:
    """What became of a chunk's job, for the chunk's error."""
    if job is None:
        return "its job was lost (Redis restarted without it)"
    result = job.latest_result()
    if result is not None and result.exc_string:
        return result.exc_string.strip().splitlines()[-1]
    return f"its worker stopped sending heartbeats (job {job.get_status(refresh=False)})"


def heal_preparation(run: ScoringRun) -> int:
    """Queue the run's preparation again when Redis lost it or its worker died; 1 if queued.

    A preparation whose job failed fails the run (rq calls no failure callback when the work
    horse itself dies): preparing again would most likely fail the same way.
    """
    redis_connection, now = queue().connection, timezone.now()
    job = Job.fetch_many([prepare_job_id(run)], connection=redis_connection)[0]
    status = job.get_status(refresh=False) if job else None
    if job is not None and status in WAITING_JOB_STATES and waiting_job_is_alive(job, now, taken_jobs()):
        return 0
    # A live worker refreshes its key while it runs a job; a dead one's expires.
    worker_key = f"{Worker.redis_worker_namespace_prefix}{job.worker_name}" if job else ""
    if status == JobStatus.STARTED and redis_connection.exists(worker_key):
        return 0
    if status in ENDED_JOB_STATES:
        fail_run(run.pk, f"preparing the run failed: {why_job_ended(job)}")
        return 0
    enqueue_run(run)
    return 1


def retry_is_due(chunk: Chunk, backoff: timedelta, now: datetime) -> bool:
    """A chunk waits ``backoff`` after its first attempt's last heartbeat, twice that after the second..."""
    if chunk.heartbeat_at is None:
        return True
    return now - chunk.heartbeat_at >= backoff * 2 ** max(chunk.attempts - 1, 0)


def requeue(run: ChunkedRun, chunks: Iterable[Chunk]) -> int:
    """Hand ``chunks`` to new jobs, or finish the run when none is left; the number queued."""
    queued = enqueue_chunks(chunks)
    if not queued:
        run.finish_if_complete()  # the last chunk may have committed just before its worker died
    publish_progress(run)
    return queued


def heal_run(run: ChunkedRun, stale_after: timedelta = STALE_AFTER, backoff: timedelta = RETRY_BACKOFF) -> int:
    """Queue again what the run needs and no live job does; the number of jobs queued.

    A chunk whose attempt died fails with its run once it has had MAX_CHUNK_ATTEMPTS, else it
    is queued again once its backoff has passed.
    """
    if not run.fingerprint:  # a scoring run not yet prepared (a generation run has its fingerprint from the start)
        return heal_preparation(run)  # type: ignore[arg-type]
    now = timezone.now()
    due: list[Chunk] = []
    for chunk, job in chunks_without_live_job(run, stale_after, now):
        if chunk.status == Chunk.Status.RUNNING and chunk.attempts >= MAX_CHUNK_ATTEMPTS:
            attempt_failed(type(chunk), chunk.pk, chunk.job_id, why_job_ended(job))
        elif retry_is_due(chunk, backoff, now):
            due.append(chunk)
    run.refresh_from_db()
    return requeue(run, due) if run.is_active else 0


def heal_runs(stale_after: timedelta = STALE_AFTER, backoff: timedelta = RETRY_BACKOFF) -> int:
    """Heal every queued or running scoring or generation run (``heal_run``); the number of jobs queued again."""
    return sum(
        heal_run(run, stale_after, backoff)
        for run_model in (ScoringRun, GenerationRun)
        for run in run_model.objects.filter(status__in=ChunkedRun.ACTIVE)
    )


def resume_run(run: ChunkedRun, stale_after: timedelta = STALE_AFTER) -> int:
    """Queue again, now, what a run still needs: its preparation, or each chunk without a live job.

    Unlike the heal pass, a resume waits no backoff and queues failed chunks too, whatever their
    attempts. Returns the number of chunks queued again. Finished chunks are never redone.
    """
    if not run.can_resume:
        raise ValueError(f"run {run.pk} is {run.get_status_display().lower()}; only unfinished runs can be resumed")
    if not run.fingerprint:
        enqueue_run(run)  # type: ignore[arg-type]
        return 0
    run.start()
    return requeue(run, [chunk for chunk, _job in chunks_without_live_job(run, stale_after, timezone.now())])
