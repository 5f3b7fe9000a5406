"""The GENRES side of a leaderboard: stored scores of one scoring setting, read, never recomputed.

A *setting* is a provenance fingerprint (``ScoreSettings.fingerprint``): scores from different
settings are never mixed. For each system the leaderboard takes the aggregates of the latest
finished run with that setting (``scoring.models.runs.latest_system_scores``) and, for metric battles,
the current per-text scores stored under it.
"""

from datetime import datetime
from typing import Any

from django.db.models import Count, Max

from scoring.genres.aspects import ASPECT_CODES, COLUMNS
from scoring.genres.rules import APP, REFERENCE, RULE_LABELS
from scoring.models import Dataset, Output, System
from scoring.models.runs import ScoringRun, latest_system_scores, settings_choices
from scoring.models.scores import TextScore

# The GENRES table's columns: every stored aggregate of the vocabulary, in its order.
COLUMN_KEYS = tuple(column.code for column in COLUMNS)
# Why a system with outputs has no current scores of a setting (``unscored_systems``).
NOT_SCORED, OUT_OF_DATE = "not scored yet", "scores out of date"


def column_provenance(provenance: dict[str, Any]) -> dict[str, str]:
    """What each column's values were computed with, in words (the headers' tooltips)."""
    embedder = f"embedder {provenance['embedder']}"
    if provenance.get("embedder_model"):
        embedder += f" ({provenance['embedder_model']})"
    embedding = f"{embedder}, φ {provenance['threshold']:g}, triple embedding: {provenance['embedding_mode']}"
    if provenance.get("heuristic_judge"):
        judge = f"judge {provenance['judge']} (offline heuristic, no LLM)"
    else:
        judge = f"judge {provenance['judge']}"
        if provenance.get("judge_model"):
            judge += f", model {provenance['judge_model']}"
    if provenance.get("prompt_version"):
        judge += f", prompt version {provenance['prompt_version']}"
    relaxed = f"token Jaccard ≥ {provenance['relaxed_threshold']:g} per element"
    reference = provenance.get("rules", APP) == REFERENCE
    rules = RULE_LABELS[REFERENCE if reference else APP]
    tokens = "word tokens, a text without triples counting 0" if reference else "whitespace tokens"
    return {
        "rules": rules,
        "tokens_per_triple": f"{tokens}; {rules}",
        "ts": f"LDA, {provenance['lda_topics']} topics, seed {provenance['lda_seed']}",
        "us": embedding,
        "cs": embedding,
        "fs": judge,
        "gs": f"{judge}; {rules}",
        "relaxed_precision": relaxed,
        "relaxed_recall": relaxed,
        "relaxed_f1": relaxed,
    }


def describe(run: ScoringRun) -> dict[str, Any]:
    """A setting as the page's selector and the JSON show it."""
    provenance = run.provenance or {}
    label = (
        f"{provenance.get('embedder', '?')} φ {provenance.get('threshold', 0):g} · judge {provenance.get('judge', '?')}"
    )
    label += f" · LDA {provenance.get('lda_topics', '?')} topics"
    if provenance.get("rules") == REFERENCE:
        label += " · reference rules"
    return {
        "key": run.fingerprint,
        "label": label,
        "provenance": provenance,
        "heuristic_judge": run.heuristic_judge,
        "run": run.pk,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "columns": column_provenance(provenance) if provenance else {},
    }


def scoring_settings(dataset: Dataset) -> list[dict[str, Any]]:
    """The dataset's settings with a finished run, newest first."""
    return [describe(run) for run in settings_choices(dataset)]


def scores_version(dataset: Dataset) -> tuple[int, datetime | None, datetime | None]:
    """Changes whenever a run of the dataset finishes or an output of it is uploaded again."""
    runs = ScoringRun.objects.filter(dataset=dataset, status=ScoringRun.Status.DONE).aggregate(
        count=Count("pk"), last=Max("finished_at")
    )
    outputs = Output.objects.filter(text__dataset=dataset).aggregate(last=Max("updated_at"))
    return (runs["count"], runs["last"], outputs["last"])


def metric_scores(dataset: Dataset, fingerprint: str) -> dict[str, Any]:
    """Aggregated rows per system, and per-text scores of the five aspects, for one setting.

    ``rows``: ``[{"system", "ground_truth", "replicate_group", "seed", "current", "run", "texts",
    "values": {column: value}, "provenance"}]``, the provenance being what generated a system made
    from an endpoint (None for an uploaded one),
    Ground truth first; ``per_text``: ``{aspect: {text id: {system: score}}}`` from current scores;
    ``unscored``: ``unscored_systems``.
    """
    rows = [
        {
            "system": row.system.name,
            "ground_truth": row.system.is_ground_truth,
            "replicate_group": row.system.replicate_group,
            "seed": row.system.seed,
            "provenance": row.system.provenance,
            "current": row.is_current,
            "run": row.run_id,
            "texts": row.values.get("texts"),
            "values": {key: row.values.get(key) for key in COLUMN_KEYS},
        }
        for row in latest_system_scores(dataset, fingerprint)
    ]
    per_text: dict[str, dict[int, dict[str, float | None]]] = {aspect: {} for aspect in ASPECT_CODES}
    stored = (
        TextScore.objects.current()
        .filter(fingerprint=fingerprint, metric__in=ASPECT_CODES, output__text__dataset=dataset)
        .values_list("metric", "output__text_id", "output__system__name", "values")
    )
    for aspect, text_id, system, values in stored:
        per_text[aspect].setdefault(text_id, {})[system] = values.get(aspect)
    return {"rows": rows, "per_text": per_text, "unscored": unscored_systems(dataset, rows)}


def unscored_systems(dataset: Dataset, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The systems with outputs on ``dataset`` but no current scores among ``rows`` (``metric_scores``),
    Ground truth first: ``[{"system", "ground_truth", "status"}]``, the status ``NOT_SCORED`` or,
    for a system whose outputs were uploaded again since its scores, ``OUT_OF_DATE``."""
    current = {row["system"]: row["current"] for row in rows}
    systems = System.objects.filter(outputs__text__dataset=dataset).distinct()
    return [
        {
            "system": system.name,
            "ground_truth": system.is_ground_truth,
            "status": OUT_OF_DATE if system.name in current else NOT_SCORED,
        }
        for system in systems
        if not current.get(system.name)
    ]
