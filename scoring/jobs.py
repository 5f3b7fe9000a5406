"""The RQ jobs of a scoring run, how runs are started and run in-process.

    enqueue_run(run)  ->  prepare_run: LDA trained once (cached on disk), provenance recorded,
                          one score_chunk job per chunk
                          ->  score_chunk (on any worker): scores committed with the chunk;
                              the last chunk to commit finishes the run

Each job reports progress to the run's websocket group after it changes something. A chunk job
that fails is given again to a new job, up to MAX_CHUNK_ATTEMPTS attempts, by the heal pass
(``scoring.healing``), which also queues again what Redis or a dead worker lost.
"""

import logging
import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from functools import cache, lru_cache
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import django_rq
import redis
from django.conf import settings
from django.db import DatabaseError, connection, connections
from rq import Callback, get_current_job
from rq.job import Job

from scoring.genres.cache import InMemoryRequestCache
from scoring.genres.embedders import get_embedder
from scoring.genres.judges.base import SPLIT, SUPPORT, Judge, RequestCount
from scoring.genres.judges.recorded import RecordedJudge
from scoring.genres.judges.registry import get_judge
from scoring.genres.pricing import cost_usd
from scoring.genres.prompts import PromptTemplate
from scoring.genres.scorer import Scorer, TextRecord
from scoring.genres.topics import TopicModel
from scoring.models import Dataset, Output, System
from scoring.models.cache import DatabaseRequestCache
from scoring.models.chunked import Chunk
from scoring.models.generation import GenerationChunk, GenerationRun
from scoring.models.runs import RunChunk, ScoringRun
from scoring.models.scores import TextScore
from scoring.progress import publish_progress
from scoring.verdict_imports import recorded_verdicts

logger = logging.getLogger(__name__)

QUEUE = "default"
# A running chunk's heartbeat thread writes RunChunk.heartbeat_at every HEARTBEAT_SECONDS,
# whatever the chunk is waiting for; a chunk silent for STALE_AFTER (models.runs) has lost its
# work horse.
HEARTBEAT_SECONDS = 10
MAX_CHUNK_ATTEMPTS = 3


def lda_cache_dir() -> Path:
    return settings.VAR_DIR / "lda"


def make_judge(name: str, cache: Any, templates: Sequence[PromptTemplate] = ()) -> Judge:
    if name == "heuristic":
        return get_judge(name)
    if name == "recorded":  # for estimates: a run gives each system its own (RunScorer.scorer_for)
        return RecordedJudge("", [])
    # The Redis client makes a configured requests-per-minute limit shared by every worker.
    return get_judge(name, cache=cache, templates=templates, redis_client=redis.Redis.from_url(settings.REDIS_URL))


# Embedders computed on this machine: recomputing a vector costs less than fetching it from the
# database, so their vectors stay in the process, bounded, instead of the shared request cache.
LOCAL_EMBEDDERS = {"hashing", "minilm"}
LOCAL_VECTORS_KEPT = 50_000


class RunScorer:
    """The scorer of one run in one process, and what its embedder and judge have cost so far.

    Built once per run and process (``run_scorer``) and reused by the run's chunks: building reads
    and hashes every text of the dataset and loads the topic model, work that grows with the
    dataset and must not be repeated per chunk.
    """

    def __init__(self, run: ScoringRun) -> None:
        score_settings = run.settings_object()
        self.cache = DatabaseRequestCache()
        embedder_cache: DatabaseRequestCache | InMemoryRequestCache = self.cache
        if score_settings.embedder in LOCAL_EMBEDDERS:
            embedder_cache = InMemoryRequestCache(max_entries=LOCAL_VECTORS_KEPT)
        self.embedder = get_embedder(score_settings.embedder, cache=embedder_cache)
        self.verdict_source = score_settings.verdict_source
        # The recorded judges of the chunks not yet counted, and the missing verdicts of those that were.
        self.recorded_judges: list[RecordedJudge] = []
        self.missing_counted = 0
        self.judge: Judge
        if self.verdict_source:  # one judge per system and chunk, holding its verdicts (scorer_for)
            self.judge = RecordedJudge(self.verdict_source, [])
        else:
            self.judge = make_judge(score_settings.judge, self.cache, score_settings.judge_templates())
        topic_model = None
        if "ts" in run.metrics:
            texts = run.dataset.texts.order_by("position").values_list("content", flat=True)
            topic_model = TopicModel.for_texts(texts, lda_cache_dir(), score_settings.topic_settings())
        self.scorer = Scorer(score_settings, self.embedder, self.judge, topic_model)
        self.settings_fingerprint = self.scorer.settings.fingerprint(self.embedder, self.judge, topic_model)
        self.counted = self.counters()

    def fingerprint(self) -> str:
        return self.settings_fingerprint

    def scorer_for(self, system: System, text_ids: Sequence[int]) -> Scorer:
        """The scorer of ``system``'s outputs on these texts: with the recorded judge, one that
        holds the system's verdicts on them; else the run's own."""
        if not self.verdict_source:
            return self.scorer
        judge = RecordedJudge(self.verdict_source, recorded_verdicts(self.verdict_source, system, text_ids))
        self.recorded_judges.append(judge)
        return Scorer(self.scorer.settings, self.embedder, judge, self.scorer.topic_model)

    def counters(self) -> dict[str, int]:
        """Requests, cache hits and tokens since the scorer was built."""
        judge_usage = self.judge.usage
        embedder_usage = getattr(self.embedder, "usage", None)
        return {
            "judge_requests": judge_usage.requests,
            "embedder_requests": embedder_usage.requests if embedder_usage else 0,
            "cache_hits": self.cache.hits,
            "judge_prompt_tokens": judge_usage.prompt_tokens,
            "completion_tokens": judge_usage.completion_tokens,
            "embedder_prompt_tokens": embedder_usage.prompt_tokens if embedder_usage else 0,
            "missing_verdicts": self.missing_counted + sum(judge.missing for judge in self.recorded_judges),
        }

    def usage(self) -> dict[str, Any]:
        """Chunk counters since the last call: requests, cache hits, tokens and their cost at OpenAI list prices."""
        now = self.counters()
        spent = {name: now[name] - self.counted[name] for name in now}
        self.counted = now
        # Counted: the chunks' judges (and their verdicts) need not be kept any longer.
        self.missing_counted, self.recorded_judges = now["missing_verdicts"], []
        usage = {
            "requests": spent["judge_requests"] + spent["embedder_requests"],
            "cache_hits": spent["cache_hits"],
            "prompt_tokens": spent["judge_prompt_tokens"] + spent["embedder_prompt_tokens"],
            "completion_tokens": spent["completion_tokens"],
            "cost_usd": cost_usd(self.judge.model, spent["judge_prompt_tokens"], spent["completion_tokens"])
            + cost_usd(self.embedder.model, spent["embedder_prompt_tokens"]),
        }
        if self.verdict_source:
            usage["missing_verdicts"] = spent["missing_verdicts"]
        return usage


@lru_cache(maxsize=2)
def _run_scorer(run_id: int, created_at: datetime) -> RunScorer:
    return RunScorer(ScoringRun.objects.select_related("dataset").get(pk=run_id))


def run_scorer(run: ScoringRun) -> RunScorer:
    """This process's ``RunScorer`` of ``run``, built by the first chunk and reused by the next ones.

    The key holds the creation time as well: a test database that rolled back hands out the same
    primary keys again. Two runs are kept, for a worker whose chunks alternate between two runs.
    """
    return _run_scorer(run.pk, run.created_at)


def build_run_scorer_for(job: Job) -> None:
    """Before rq forks a work horse for a chunk job: build its run's scorer in the worker itself.

    Every work horse forked afterwards inherits it, so a run's chunks in one worker share one
    build. When the build fails here, the work horse builds it again and fails the chunk with the
    reason, where retries and the run's error are handled.
    """
    if job.func_name != f"{__name__}.score_chunk":
        return
    try:
        run_scorer(ScoringRun.objects.get(chunks=job.args[0]))
    except Exception:
        logger.exception("building the scorer of chunk %s before its job failed", job.args[0])


# Jobs --------------------------------------------------------------------------------------


@cache
def queue() -> Any:
    # One client per process: django_rq makes a new one, and so a new connection, on every call
    # (a save would pay for it). redis-py's pool reconnects after a fork or a Redis restart.
    return django_rq.get_queue(QUEUE)


def prepare_job_id(run: ScoringRun) -> str:
    return f"genres-run-{run.pk}-prepare"


def enqueue_run(run: ScoringRun) -> None:
    queue().enqueue(
        prepare_run, run.pk, job_id=prepare_job_id(run), on_failure=Callback(run_job_failed), job_timeout=-1
    )


def prepare_run(run_id: int) -> None:
    """Train (or load) the LDA model once, record the provenance, and queue the chunks."""
    run = ScoringRun.objects.select_related("dataset").get(pk=run_id)
    if not run.start():
        return
    built = run_scorer(run)
    run.record_provenance(built.scorer.provenance(), built.fingerprint())
    enqueue_chunks(run.chunks.exclude(status=RunChunk.Status.DONE))
    publish_progress(run)


def enqueue_chunks(chunks: Iterable[Chunk]) -> int:
    """Hand each chunk not yet done (of a scoring or a generation run) to a new job; the number queued."""
    queued = 0
    for chunk in chunks:
        run_model = chunk.run_model()
        job_id = f"{run_model.JOB_PREFIX}-{chunk.run_id}-chunk-{chunk.index}-{uuid.uuid4().hex[:8]}"
        # The chunk names its job before the job exists, so the job always finds itself named.
        if chunk.hand_to(job_id):
            queue().enqueue(run_model.CHUNK_JOB, chunk.pk, job_id=job_id, on_failure=Callback(chunk_job_failed))
            queued += 1
    return queued


def score_chunk(chunk_id: int) -> None:
    """The RQ job of one chunk."""
    job = get_current_job()
    assert job is not None  # run by a worker
    run_chunk(chunk_id, job.id)


class ChunkHeartbeat:
    """While a chunk runs, a thread of its own writes its heartbeat every ``seconds``.

    Beating from a thread keeps a live chunk from looking dead while it waits on a slow judge
    or scores a large system, so STALE_AFTER can be short. The thread's database connection
    is its own: a dropped one is closed and opened again at the next beat, and closed at the end.
    """

    def __init__(self, chunk: Chunk, seconds: float = HEARTBEAT_SECONDS) -> None:
        self.chunk = chunk
        self.seconds = seconds
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.beat_until_stopped, name=f"heartbeat of {chunk}", daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stopped.set()
        self.thread.join()

    def beat_until_stopped(self) -> None:
        try:
            while not self.stopped.wait(self.seconds):
                try:
                    self.chunk.beat()
                except DatabaseError:
                    connection.close()
        finally:
            connections.close_all()


def run_chunk(chunk_id: int, job_id: str, on_progress: Callable[[ScoringRun], object] = publish_progress) -> None:
    """Score every system's outputs on the chunk's texts and commit them, unless cancelled or superseded."""
    chunk = RunChunk.claim(chunk_id, job_id)
    if chunk is None:
        return
    run = chunk.run
    with ChunkHeartbeat(chunk):
        built = run_scorer(run)
        built.usage()  # what earlier chunks in this process spent is theirs
        if built.fingerprint() != run.fingerprint:
            raise RuntimeError(
                f"{chunk}: this worker would score with settings {built.fingerprint()[:12]}, "
                f"the run uses {run.fingerprint[:12]}; a worker runs other code or models"
            )
        rows: list[tuple[Any, ...]] = []
        for system in run.systems.order_by("name"):
            if run.is_cancelled():
                chunk.stop_for_cancel()
                run.refresh_from_db()
                on_progress(run)
                return
            # Plain tuples, not Output objects: only what scoring reads (not the raw reply) is fetched.
            outputs = list(
                Output.objects.filter(system=system, text_id__in=chunk.text_ids).values_list(
                    "pk", "updated_at", "text__content", "triples", "text__gold", "malformed"
                )
            )
            records = [TextRecord(pk, *record) for pk, _updated, *record in outputs]
            scorer = built.scorer_for(system, chunk.text_ids)
            for (pk, updated_at, *_record), text_scores in zip(
                outputs, scorer.score(records, run.metrics), strict=True
            ):
                rows.extend(TextScore.rows_for(run, pk, updated_at, text_scores))
        if chunk.complete(rows, built.usage()):
            run.finish_if_complete()
    run.refresh_from_db()
    on_progress(run)


def on_fresh_connection(action: Callable[[], object]) -> object:
    """``action()``, once more on a new database connection if the first attempt fails.

    Failure callbacks run just after an error that is often a dropped connection; their actions
    are conditional updates, safe to repeat.
    """
    try:
        return action()
    except DatabaseError:
        connection.close()
        return action()


def run_job_failed(
    job: Job, connection: Any, exc_type: type[BaseException], exc_value: BaseException, traceback: TracebackType
) -> None:
    on_fresh_connection(lambda: fail_run(job.args[0], f"preparing the run failed: {exc_type.__name__}: {exc_value}"))


def fail_run(run_id: int, message: str) -> None:
    run = ScoringRun.objects.get(pk=run_id)
    logger.error("Scoring run %s failed: %s", run_id, message, extra={"event": "run_failed", "run": run_id})
    run.fail(message)
    publish_progress(run)


def chunk_job_failed(
    job: Job, connection: Any, exc_type: type[BaseException], exc_value: BaseException, traceback: TracebackType
) -> None:
    """rq's failure callback of a chunk job: it raised, or rq found it abandoned by a dead worker."""
    reason = f"{exc_type.__name__}: {exc_value}"
    logger.warning(
        "Attempt at chunk %s failed: %s", job.args[0], reason,
        extra={"event": "chunk_attempt_failed", "chunk": job.args[0], "job": job.id},
    )  # fmt: skip
    chunk_model = GenerationChunk if job.func_name == GenerationRun.CHUNK_JOB else RunChunk
    on_fresh_connection(lambda: attempt_failed(chunk_model, job.args[0], job.id, reason))


def attempt_failed(chunk_model: type[Chunk], chunk_id: int, job_id: str, reason: str) -> None:
    """Job ``job_id``'s attempt at the chunk ended without committing it.

    The chunk, and its run, fail once it has had MAX_CHUNK_ATTEMPTS; before that, the heal pass
    queues it again after a backoff.
    """
    chunk = chunk_model.objects.select_related("run").get(pk=chunk_id)
    if chunk.job_id != job_id or chunk.status != RunChunk.Status.RUNNING or chunk.attempts < MAX_CHUNK_ATTEMPTS:
        return  # superseded, never started, or with attempts left
    message = f"{chunk}: {reason} (attempt {chunk.attempts} of {MAX_CHUNK_ATTEMPTS})"
    logger.error(
        "%s failed: %s", chunk.run, message,
        extra={"event": "run_failed", "run": chunk.run_id, "chunk": chunk_id},
    )  # fmt: skip
    chunk.fail(message)
    chunk.run.fail(message)
    publish_progress(chunk.run)


# Running in-process --------------------------------------------------------------------------


def run_in_process(run: ScoringRun, on_chunk: Callable[[ScoringRun], object] | None = None) -> ScoringRun:
    """Score the run here, chunk after chunk, without Redis; ``on_chunk(run)`` after each."""
    run.start()
    built = run_scorer(run)
    run.record_provenance(built.scorer.provenance(), built.fingerprint())
    return work_chunks_here(run, run_chunk, on_chunk)


def work_chunks_here(run: Any, work: Callable[..., None], on_chunk: Callable[[Any], object] | None) -> Any:
    """Work the run's unfinished chunks here, one after the other, with ``work(chunk id, job id, on_progress)``."""
    for chunk in run.chunks.exclude(status=Chunk.Status.DONE):
        chunk.hand_to(f"in-process-{uuid.uuid4().hex}")
        try:
            work(chunk.pk, chunk.job_id, on_progress=on_chunk or (lambda _run: None))
        except Exception as error:
            message = f"{chunk}: {type(error).__name__}: {error}"
            chunk.fail(message)
            run.fail(message)
            raise
    run.refresh_from_db()
    return run


# Estimates --------------------------------------------------------------------------------


def estimate_judge_requests(
    dataset: Dataset,
    systems: Iterable[System],
    metrics: Iterable[str],
    judge_name: str,
    templates: Sequence[PromptTemplate] = (),
) -> RequestCount:
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
    judge = make_judge(judge_name, DatabaseRequestCache(), templates)
    counts = [judge.count_requests(pairs, task) for task in tasks]
    return RequestCount(
        judgements=sum(count.judgements for count in counts),
        requests=sum(count.requests for count in counts),
        cached=sum(count.cached for count in counts),
    )
