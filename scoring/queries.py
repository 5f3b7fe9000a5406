"""Queries that several pages and the JSON API share (datasets with their counts, a dataset's
systems with their output statistics), each a single SQL statement however many rows."""

from typing import Any

from django.db.models import Aggregate, Count, F, FloatField, IntegerField, Max, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Cast, Coalesce

from scoring.models import Dataset, GenerationRun, Output, System, Text, Upload
from scoring.sql import JSONArrayLength


def per_dataset(queryset: QuerySet[Any], dataset_path: str, aggregate: Aggregate) -> Coalesce:
    """``aggregate`` over the rows of ``queryset`` that belong to the outer dataset, as a subquery.

    Subqueries instead of joins: joining texts and outputs in one GROUP BY would multiply the sums.
    """
    rows = (
        queryset.filter(**{dataset_path: OuterRef("pk")})
        .order_by()
        .values(dataset_path)
        .annotate(value=aggregate)
        .values("value")
    )
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def datasets_with_counts() -> QuerySet[Any]:  # datasets, each with its counts annotated
    """Every dataset with its number of texts, gold triples and systems (Ground truth excluded), in one query."""
    return Dataset.objects.annotate(
        text_count=per_dataset(Text.objects.all(), "dataset", Count("pk")),
        gold_count=per_dataset(Text.objects.all(), "dataset", Sum(JSONArrayLength("gold"))),
        system_count=per_dataset(
            Output.objects.of_complete_systems().filter(system__is_ground_truth=False),
            "text__dataset",
            Count("system", distinct=True),
        ),
    )


def systems_of(dataset: Dataset) -> QuerySet[System]:
    """The systems with outputs on ``dataset``, Ground truth first, with their output statistics."""
    return (
        System.objects.filter(outputs__text__dataset=dataset)
        .annotate(
            output_count=Count("outputs"),
            triple_count=Coalesce(Sum(JSONArrayLength("outputs__triples")), 0),
            empty_count=Count("outputs", filter=Q(outputs__triples=[])),
            warning_count=Coalesce(Sum(JSONArrayLength("outputs__parse_warnings")), 0),
            last_upload_at=Max("outputs__upload__created_at"),
        )
        .annotate(triples_per_text=Cast("triple_count", FloatField()) / F("output_count"))
        .order_by("-is_ground_truth", "name")
    )


def replicates_of(system: System, dataset: Dataset) -> QuerySet[System]:
    """The runs of ``system``'s replicate group with outputs on ``dataset`` (itself included), by seed; none for a single run."""
    if not system.replicate_group:
        return System.objects.none()
    return systems_of(dataset).filter(replicate_group=system.replicate_group).order_by("seed", "name")


def latest_output_upload(system: System, dataset: Dataset) -> Upload | None:
    """The last upload that wrote ``system``'s outputs on ``dataset``: None for outputs generated here."""
    uploads = Upload.objects.filter(outputs__system=system, outputs__text__dataset=dataset).distinct()
    return uploads.select_related("uploaded_by").order_by("-created_at", "-pk").first()


def generation_run_of(system: System) -> GenerationRun | None:
    """The generation run that made ``system``, with its template and who started it; None for an uploaded system."""
    return system.generation_runs.select_related("template", "created_by").order_by("-pk").first()
