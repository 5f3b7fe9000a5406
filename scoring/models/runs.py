"""Scoring runs and their chunks.

A run scores chosen systems' outputs on one dataset with one set of ``ScoreSettings``. Its texts
are cut into chunks (``chunk_texts`` texts each, all selected systems), and each chunk is one RQ
job, so several workers share a run; the state machine every chunked run shares, and its
invariants, are ``scoring.models.chunked``'s. A chunk commits its scores with its "done", so no
score is lost or doubled; the last chunk to commit stores the run's per-system aggregates, once;
a running chunk stops for a cancel at its next system boundary.

Scores are stored per (output, metric, settings fingerprint), the fingerprint being the hash
of the run's provenance (``ScoreSettings.fingerprint``), in ``scoring.models.scores``.
"""

from collections.abc import Iterable, Sequence
from dataclasses import asdict, replace
from typing import Any

from django.contrib.auth.models import User
from django.db import models, transaction
from django.db.models import Max, Sum
from django.db.models.functions import Coalesce
from django.dispatch import Signal
from django.urls import reverse
from django.utils import timezone

from scoring.genres.aspects import JUDGED_CODES, METRICS
from scoring.genres.scorer import ScoreSettings
from scoring.genres.topics import default_topic_count
from scoring.models.catalogue import Dataset, Output, System
from scoring.models.chunked import (  # noqa: F401 (STALE_AFTER, failure_in_words, moment: imported from here)
    DEFAULT_CHUNK_TEXTS,
    STALE_AFTER,
    Chunk,
    ChunkedRun,
    failure_in_words,
    moment,
)
from scoring.models.scores import SystemScore, TextScore

# Sent once a finished run's aggregates are committed, for pages that show scores (the leaderboard).
run_finished = Signal()


class RunRefused(ValueError):
    """A run that cannot be created as asked; the message says why."""


class ScoringRun(ChunkedRun):
    CHUNK_JOB = "scoring.jobs.score_chunk"
    JOB_PREFIX = "genres-run"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="scoring_runs")
    systems = models.ManyToManyField(System, related_name="scoring_runs")
    metrics = models.JSONField(help_text="The metrics computed, in the order of scorer.METRICS.")
    score_settings = models.JSONField(help_text="The ScoreSettings asked for, LDA topic count resolved.")
    provenance = models.JSONField(null=True, blank=True, help_text="What the scores were computed with.")

    class Meta(ChunkedRun.Meta):
        pass

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
    def heuristic_judge(self) -> bool:
        return bool(self.provenance and self.provenance.get("heuristic_judge"))

    def uses_judge(self) -> bool:
        return bool(set(JUDGED_CODES) & set(self.metrics))

    def record_provenance(self, provenance: dict[str, Any], fingerprint: str) -> None:
        """Keep what the scores are computed with; refuse a change of settings in mid-run."""
        if self.fingerprint and self.fingerprint != fingerprint:
            raise RuntimeError(
                f"run {self.pk} was started with settings {self.fingerprint[:12]} but now gets "
                f"{fingerprint[:12]}: a worker runs other code or models; start a new run instead"
            )
        ScoringRun.objects.filter(pk=self.pk).update(provenance=provenance, fingerprint=fingerprint)
        self.provenance, self.fingerprint = provenance, fingerprint

    @transaction.atomic
    def finish_if_complete(self) -> bool:
        """Mark the run done once every chunk is, storing the aggregates; True for the one caller that did."""
        finished = self.mark_done()
        if finished:
            SystemScore.store_means(self)
            transaction.on_commit(lambda: run_finished.send(sender=ScoringRun, run=self), robust=True)
        self.refresh_from_db()
        return finished

    def progress_state(self) -> dict[str, Any]:
        """Everything the run page shows while it runs, as JSON-ready values: counters, the chunk
        table, the run's times, which actions apply, and a failure in words."""
        state, totals = self.chunk_progress(missing_verdicts=Coalesce(Sum("missing_verdicts"), 0))
        return {**state, "missing_verdicts": totals["missing_verdicts"], "has_provenance": bool(self.provenance)}


class RunChunk(Chunk):
    run = models.ForeignKey(ScoringRun, on_delete=models.CASCADE, related_name="chunks")
    text_ids = models.JSONField(help_text="The texts of this chunk, scored for every system of the run.")
    missing_verdicts = models.PositiveIntegerField(
        default=0, help_text="Recorded judge: triples of the chunk without a recorded verdict (left out of fs/gs)."
    )

    class Meta(Chunk.Meta):
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="unique_chunk_index_per_run")]

    @transaction.atomic
    def complete(self, rows: Sequence[Sequence[Any]], usage: dict[str, int]) -> bool:
        """Store the chunk's scores and mark it done, together; False if another job took it over."""
        done = self._held().update(status=self.Status.DONE, finished_at=timezone.now(), **usage)
        if done:
            TextScore.store_rows(rows)
        return bool(done)


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
