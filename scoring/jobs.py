"""The RQ jobs of a scoring run, and how runs are started, resumed and run in-process.

    enqueue_run(run)  ->  prepare_run: LDA trained once (cached on disk), provenance recorded,
                          one score_chunk job per chunk
                          ->  score_chunk (on any worker): scores committed with the chunk;
                              the last chunk to commit finishes the run

Each job reports progress to the run's websocket group after it changes something. A job
that fails marks its chunk (and the run) failed with the error; ``resume_run`` then hands
every unfinished chunk to a new job, including running ones whose worker died: those have an
RQ job that is gone or ended, or stopped sending heartbeats. Which job may commit a chunk is
decided by the chunk itself (``RunChunk.claim``/``complete``), so re-queuing a chunk whose old
job is in fact still alive costs work, never correctness.
"""

import uuid
from datetime import timedelta

import django_rq
import redis
from django.conf import settings
from django.utils import timezone
from rq import Callback, get_current_job
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from scoring.cache_store import DatabaseRequestCache
from scoring.genres.embedders import get_embedder
from scoring.genres.judges import SPLIT, SUPPORT, RequestCount, get_judge
from scoring.genres.pricing import cost_usd
from scoring.genres.scorer import Scorer, TextRecord
from scoring.genres.topics import TopicModel
from scoring.models import Output
from scoring.progress import publish_progress
from scoring.runs import RunChunk, ScoringRun, TextScore

QUEUE = "default"
# A running chunk that has sent no heartbeat for this long is presumed dead by resume_run.
# Heartbeats come at least between systems and between batches of judge requests.
STALE_AFTER = timedelta(minutes=10)
ALIVE_JOB_STATES = {JobStatus.CREATED, JobStatus.QUEUED, JobStatus.DEFERRED, JobStatus.SCHEDULED}


def lda_cache_dir():
    return settings.VAR_DIR / "lda"


def make_judge(name, cache, heartbeat=None):
    if name == "heuristic":
        return get_judge(name)
    # The Redis client makes a configured requests-per-minute limit shared by every worker.
    return get_judge(name, cache=cache, progress=heartbeat, redis_client=redis.Redis.from_url(settings.REDIS_URL))


class RunScorer:
    """The scorer of one run in one process, and what its embedder and judge have cost so far."""

    def __init__(self, run, heartbeat=None):
        score_settings = run.settings_object()
        self.cache = DatabaseRequestCache()
        self.embedder = get_embedder(score_settings.embedder, cache=self.cache)
        self.judge = make_judge(score_settings.judge, self.cache, heartbeat)
        topic_model = None
        if "ts" in run.metrics:
            texts = run.dataset.texts.order_by("position").values_list("content", flat=True)
            topic_model = TopicModel.for_texts(texts, lda_cache_dir(), score_settings.topic_settings())
        self.scorer = Scorer(score_settings, self.embedder, self.judge, topic_model)

    def fingerprint(self):
        return self.scorer.settings.fingerprint(self.embedder, self.judge, self.scorer.topic_model)

    def usage(self):
        """Chunk counters: requests, cache hits, tokens and their cost at OpenAI list prices."""
        judge_usage = self.judge.usage
        embedder_usage = getattr(self.embedder, "usage", None)
        usage = {
            "requests": judge_usage.requests + (embedder_usage.requests if embedder_usage else 0),
            "cache_hits": self.cache.hits,
            "prompt_tokens": judge_usage.prompt_tokens,
            "completion_tokens": judge_usage.completion_tokens,
            "cost_usd": cost_usd(self.judge.model, judge_usage.prompt_tokens, judge_usage.completion_tokens),
        }
        if embedder_usage:
            usage["prompt_tokens"] += embedder_usage.prompt_tokens
            usage["cost_usd"] += cost_usd(self.embedder.model, embedder_usage.prompt_tokens)
        return usage


# Jobs --------------------------------------------------------------------------------------


def queue():
    return django_rq.get_queue(QUEUE)


def enqueue_run(run):
    queue().enqueue(prepare_run, run.pk, on_failure=Callback(run_job_failed), job_timeout=-1)


def prepare_run(run_id):
    """Train (or load) the LDA model once, record the provenance, and queue the chunks."""
    run = ScoringRun.objects.select_related("dataset").get(pk=run_id)
    if not run.start():
        return
    run_scorer = RunScorer(run)
    run.record_provenance(run_scorer.scorer.provenance(), run_scorer.fingerprint())
    enqueue_chunks(run.chunks.exclude(status=RunChunk.Status.DONE))
    publish_progress(run)


def enqueue_chunks(chunks):
    for chunk in chunks:
        job_id = f"genres-run-{chunk.run_id}-chunk-{chunk.index}-{uuid.uuid4().hex[:8]}"
        # The chunk names its job before the job exists, so the job always finds itself named.
        chunk.hand_to(job_id)
        queue().enqueue(score_chunk, chunk.pk, job_id=job_id, on_failure=Callback(chunk_job_failed))


def score_chunk(chunk_id):
    """The RQ job of one chunk."""
    run_chunk(chunk_id, get_current_job().id)


def run_chunk(chunk_id, job_id, on_progress=publish_progress):
    """Score every system's outputs on the chunk's texts and commit them, unless cancelled or superseded."""
    chunk = RunChunk.claim(chunk_id, job_id)
    if chunk is None:
        return
    run = chunk.run
    run_scorer = RunScorer(run, heartbeat=lambda _done, _total: chunk.beat())
    if run_scorer.fingerprint() != run.fingerprint:
        raise RuntimeError(
            f"{chunk}: this worker would score with settings {run_scorer.fingerprint()[:12]}, "
            f"the run uses {run.fingerprint[:12]}; a worker runs other code or models"
        )
    rows = []
    for system in run.systems.order_by("name"):
        if run.is_cancelled():
            chunk.stop_for_cancel()
            run.refresh_from_db()
            on_progress(run)
            return
        outputs = list(Output.objects.filter(system=system, text_id__in=chunk.text_ids).select_related("text"))
        records = [TextRecord(output.pk, output.text.content, output.triples, output.text.gold) for output in outputs]
        for output, text_scores in zip(outputs, run_scorer.scorer.score(records, run.metrics)):
            rows.extend(TextScore.rows_for(run, output, text_scores))
        chunk.beat()
    if chunk.complete(rows, run_scorer.usage()):
        run.finish_if_complete()
    run.refresh_from_db()
    on_progress(run)


def run_job_failed(job, connection, exc_type, exc_value, traceback):
    run = ScoringRun.objects.get(pk=job.args[0])
    run.fail(f"preparing the run failed: {exc_type.__name__}: {exc_value}")
    publish_progress(run)


def chunk_job_failed(job, connection, exc_type, exc_value, traceback):
    chunk = RunChunk.objects.select_related("run").get(pk=job.args[0])
    if chunk.job_id != job.id:
        return  # superseded: the chunk is someone else's now
    message = f"{chunk}: {exc_type.__name__}: {exc_value}"
    chunk.fail(message)
    chunk.run.fail(message)
    publish_progress(chunk.run)


# Resuming and running in-process ------------------------------------------------------------


def job_is_alive(chunk, stale_after, now):
    """Whether the chunk's RQ job will still run it: waiting in a queue, or started and beating."""
    try:
        job = Job.fetch(chunk.job_id, connection=queue().connection)
    except NoSuchJobError:
        return False
    status = job.get_status(refresh=False)
    if status in ALIVE_JOB_STATES:
        return True
    return status == JobStatus.STARTED and chunk.heartbeat_at is not None and now - chunk.heartbeat_at < stale_after


def resume_run(run, stale_after=STALE_AFTER):
    """Queue again what a run still needs: its preparation, or each chunk without a live job.

    Returns the number of chunks queued again. Finished chunks are never redone.
    """
    if not run.can_resume:
        raise ValueError(f"run {run.pk} is {run.get_status_display().lower()}; only unfinished runs can be resumed")
    if not run.fingerprint:
        enqueue_run(run)
        return 0
    run.start()
    now = timezone.now()
    stalled = [
        chunk
        for chunk in run.chunks.exclude(status=RunChunk.Status.DONE)
        if chunk.status not in (RunChunk.Status.QUEUED, RunChunk.Status.RUNNING)
        or not job_is_alive(chunk, stale_after, now)
    ]
    enqueue_chunks(stalled)
    if not stalled:
        run.finish_if_complete()  # the last chunk may have committed just before its worker died
    publish_progress(run)
    return len(stalled)


def run_in_process(run, on_chunk=None):
    """Score the run here, chunk after chunk, without Redis; ``on_chunk(run)`` after each."""
    run.start()
    run_scorer = RunScorer(run)
    run.record_provenance(run_scorer.scorer.provenance(), run_scorer.fingerprint())
    for chunk in run.chunks.exclude(status=RunChunk.Status.DONE):
        chunk.hand_to(f"in-process-{uuid.uuid4().hex}")
        try:
            run_chunk(chunk.pk, chunk.job_id, on_progress=on_chunk or (lambda _run: None))
        except Exception as error:
            message = f"{chunk}: {type(error).__name__}: {error}"
            chunk.fail(message)
            run.fail(message)
            raise
    run.refresh_from_db()
    return run


# Estimates --------------------------------------------------------------------------------


def estimate_judge_requests(dataset, systems, metrics, judge_name):
    """What the judge would be asked for fs and gs, and how much of it the cache already holds."""
    tasks = [task for metric, task in (("fs", SUPPORT), ("gs", SPLIT)) if metric in metrics]
    if not tasks:
        return RequestCount(judgements=0, requests=0, cached=0)
    pairs = [
        (content, triple)
        for content, triples in Output.objects.filter(text__dataset=dataset, system__in=systems).values_list(
            "text__content", "triples"
        )
        for triple in triples
    ]
    judge = make_judge(judge_name, DatabaseRequestCache())
    counts = [judge.count_requests(pairs, task) for task in tasks]
    return RequestCount(
        judgements=sum(count.judgements for count in counts),
        requests=sum(count.requests for count in counts),
        cached=sum(count.cached for count in counts),
    )
