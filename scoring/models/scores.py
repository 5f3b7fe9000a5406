"""The scores runs store: one row per output, metric and settings (``TextScore``), and each
system's means over a finished run (``SystemScore``), computed from them by the database.

A score keeps the ``updated_at`` of the output it was computed from: once the output is
uploaded again, the score is no longer current and pages stop showing it.
"""

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from django.db import connection, models
from django.db.models import Avg, Case, Count, F, FloatField, Max, Q, Value, When

from scoring.genres.aspects import METRICS, PRF, PRF_CODES
from scoring.genres.rules import output_statistics
from scoring.genres.scorer import AVERAGED, ScoreSettings, mean
from scoring.models.catalogue import Dataset, Output, System
from scoring.sql import JSONNumber

if TYPE_CHECKING:
    from scoring.genres.scorer import TextScores


class Run(Protocol):
    """What storing scores reads of their run: a ``ScoringRun``, whose module imports this one."""

    @property
    def pk(self) -> Any: ...
    @property
    def fingerprint(self) -> str: ...
    @property
    def metrics(self) -> Any: ...
    @property
    def dataset(self) -> Dataset: ...
    @property
    def systems(self) -> Any: ...
    def settings_object(self) -> ScoreSettings: ...


# Rows fetched at a time where a query streams every scored output.
STREAM_ROWS = 5000
METRIC_CHOICES = [(metric, metric) for metric in METRICS]


def metric_names(metric: str) -> tuple[str, ...]:
    """The names of the values one metric produces."""
    return PRF_CODES if metric == PRF else (metric,)


def metric_values(metric: str, values: dict[str, Any]) -> dict[str, Any]:
    """The values one metric produces, out of a text's full set of values."""
    return {name: values[name] for name in metric_names(metric)}


def stored_value(name: str) -> JSONNumber:
    """One value of the stored per-text JSON for SQL: None (not applicable) is NULL, which AVG
    leaves out, as ``scorer.aggregate`` leaves out None."""
    return JSONNumber("values", name)


class TextScoreQuerySet(models.QuerySet["TextScore"]):
    def current(self) -> "TextScoreQuerySet":
        """Scores of outputs not uploaded again since they were scored."""
        return self.filter(output_updated_at=F("output__updated_at"))


class TextScore(models.Model):
    """One metric of one output under one settings fingerprint, with the judge's verdicts per triple."""

    output = models.ForeignKey(Output, on_delete=models.CASCADE, related_name="scores")
    run = models.ForeignKey("scoring.ScoringRun", on_delete=models.CASCADE, related_name="text_scores")
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

    def __str__(self) -> str:
        return f"{self.metric} of {self.output_id} ({self.fingerprint[:8]})"

    # A row as ``store_rows`` takes it, and the fields a later run with the same settings replaces.
    ROW_FIELDS = ("output", "run", "metric", "fingerprint", "output_updated_at", "values", "details")
    REPLACED_FIELDS = ("run", "output_updated_at", "values", "details")

    @classmethod
    def rows_for(
        cls, run: Run, output_id: int, output_updated_at: datetime, text_scores: "TextScores"
    ) -> list[tuple[Any, ...]]:
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
    def store(cls, scores: Iterable["TextScore"]) -> None:
        """Insert TextScore objects, or replace what an earlier run with the same settings stored."""
        attributes = [cls._own_field(name).attname for name in cls.ROW_FIELDS]
        cls.store_rows([tuple(getattr(score, attribute) for attribute in attributes) for score in scores])

    @classmethod
    def store_rows(cls, rows: Sequence[Sequence[Any]]) -> None:
        """Insert rows (tuples of ROW_FIELDS), or replace what an earlier run with the same settings stored.

        One prepared INSERT ... ON CONFLICT DO UPDATE (SQLite and PostgreSQL) for all the rows:
        a model object per score and bulk_create's SQL built value by value cost more than the
        scoring itself.
        """
        if not rows:
            return
        fields = [cls._own_field(name) for name in cls.ROW_FIELDS]
        quote = connection.ops.quote_name
        columns = ", ".join(quote(cls._column(name)) for name in cls.ROW_FIELDS)
        unique = ", ".join(quote(cls._column(name)) for name in ("output", "fingerprint", "metric"))
        replaced = ", ".join(
            f"{quote(column)} = excluded.{quote(column)}" for column in map(cls._column, cls.REPLACED_FIELDS)
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

    @classmethod
    def _own_field(cls, name: str) -> "models.Field[Any, Any]":
        """One of the model's own fields, not a relation pointing at it."""
        field = cls._meta.get_field(name)
        assert isinstance(field, models.Field)
        return field

    @classmethod
    def _column(cls, name: str) -> str:
        column = cls._own_field(name).column
        assert column is not None  # a field stored in the table has its column
        return column


class SystemScore(models.Model):
    """A system's means over the texts of a finished run (``scorer.aggregate``)."""

    run = models.ForeignKey("scoring.ScoringRun", on_delete=models.CASCADE, related_name="system_scores")
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="system_scores")
    values = models.JSONField()
    outputs_updated_at = models.DateTimeField(help_text="The newest of the scored outputs' updated_at.")
    # Whether the system's outputs are unchanged since, attached by ``latest_system_scores`` (not stored).
    is_current: bool

    class Meta:
        ordering = ["-system__is_ground_truth", "system__name"]
        constraints = [models.UniqueConstraint(fields=["run", "system"], name="one_aggregate_per_run_and_system")]

    def __str__(self) -> str:
        return f"{self.system} in run {self.run_id}"

    @classmethod
    def store_means(cls, run: Run) -> None:
        """Each system's means over a finished ``run`` (``scorer.aggregate``'s), computed by the
        database from the stored scores.

        One grouped query over the run's current scores, so memory does not grow with the number
        of texts. The output statistics are counted from each output's row of the run's first
        metric (every scored output has one row per metric); triples and tokens per triple, which
        follow the run's rules (``rules.output_statistics``), are the means taken in Python, from
        the outputs' triples streamed in batches.
        """
        first = Q(metric=run.metrics[0])
        scored = (
            TextScore.objects.current()
            .filter(fingerprint=run.fingerprint, metric__in=run.metrics)
            .filter(output__text__dataset=run.dataset, output__system__in=run.systems.all())
        )
        # Triples and tokens per triple follow the run's rules (the reference rules count the
        # malformed items too, with word tokens), so they are counted here, in one streamed pass.
        rules = run.settings_object().rules
        counts: dict[int, list[int]] = {}
        tokens: dict[int, list[float | None]] = {}
        outputs = scored.filter(first).values_list("output__system_id", "output__triples", "output__malformed")
        for system_id, triples, malformed in outputs.iterator(chunk_size=STREAM_ROWS):
            triple_count, triple_tokens = output_statistics(triples, malformed, rules)
            counts.setdefault(system_id, []).append(triple_count)
            tokens.setdefault(system_id, []).append(triple_tokens)
        means = {
            name: Avg(stored_value(name), filter=Q(metric=metric))
            for metric in run.metrics
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
        SystemScore.objects.filter(run_id=run.pk).delete()
        SystemScore.objects.bulk_create(
            SystemScore(
                run_id=run.pk,
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
