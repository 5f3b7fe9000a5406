"""Stored scores as the pages show them: one settings fingerprint at a time, never mixed.

The dataset page shows each system's aggregates from the latest finished run with the chosen
settings (``dataset_scores``); the text page shows each output's current per-text scores and
the judge's verdict on each of its triples (``text_scores``). The latest settings are the
default; ``?settings=<fingerprint>`` picks another.
"""

from collections.abc import Iterable
from typing import Any

from scoring.genres.aspects import ASPECT_CODES, BY_CODE
from scoring.models import Dataset, Output, ScoringRun, System, Text
from scoring.models.runs import latest_system_scores, settings_choices
from scoring.models.scores import SystemScore, TextScore

RECENT_RUNS = 10
# The columns of the scoring pages' tables, named and scaled by the vocabulary (scoring.genres.aspects).
SCORE_COLUMNS = (
    *("triples_per_text", "tokens_per_triple"),
    *ASPECT_CODES,
    *("precision", "recall", "f1", "relaxed_f1"),
    "empty_share",
)
TEXT_SCORE_KEYS = (*ASPECT_CODES, "precision", "recall", "f1", "relaxed_f1")


def score_table(rows: Iterable[SystemScore], heuristic: bool, codes: tuple[str, ...] = SCORE_COLUMNS) -> dict:
    """Columns and rows of a score table; ``rows`` are SystemScore rows (``is_current`` where known)."""
    columns = [BY_CODE[code] for code in codes]
    return {
        "heuristic": heuristic,
        "columns": [
            {"heading": column.heading, "title": column.title, "heuristic": heuristic and column.judge}
            for column in columns
        ],
        "rows": [
            {
                "system": row.system,
                "texts": row.values.get("texts"),
                "current": getattr(row, "is_current", True),
                "cells": [column.shown(row.values.get(column.code)) for column in columns],
            }
            for row in rows
        ],
    }


def selected_setting(dataset: Dataset, requested: str | None) -> tuple[list[ScoringRun], ScoringRun | None]:
    """The finished runs by settings fingerprint, and the one chosen (``requested``, else the latest)."""
    choices = settings_choices(dataset)
    chosen = next((run for run in choices if run.fingerprint == requested), choices[0] if choices else None)
    return choices, chosen


def dataset_scores(dataset: Dataset, requested: str | None) -> dict[str, Any]:
    """The score table of the dataset page: one settings fingerprint at a time."""
    choices, chosen = selected_setting(dataset, requested)
    rows = latest_system_scores(dataset, chosen.fingerprint) if chosen else []
    return {
        "setting_runs": choices,
        "setting": chosen,
        "score_table": score_table(rows, chosen.heuristic_judge) if chosen else None,
        "recent_runs": dataset.scoring_runs.select_related("created_by")[:RECENT_RUNS],
    }


def system_scores(system: System, dataset: Dataset) -> dict[str, Any]:
    """One system's scores on ``dataset``, one row per settings fingerprint it has scores in (newest
    first), each from the latest finished run with those settings, as the dataset page shows them."""
    rows = []
    for run in settings_choices(dataset):
        scored = [row for row in latest_system_scores(dataset, run.fingerprint) if row.system_id == system.pk]
        if scored:
            rows.append({"setting": run, **score_table(scored, run.heuristic_judge)["rows"][0]})
    return {"columns": score_table([], heuristic=False)["columns"], "rows": rows}


def triple_verdicts(triples: list[list[str]], details: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Each triple with its fs verdict and gs split, when those were computed."""
    support, splits = details.get("fs", []), details.get("gs", [])
    return [
        {
            "triple": triple,
            "support": support[index] if index < len(support) else None,
            "split": splits[index] if index < len(splits) else None,
        }
        for index, triple in enumerate(triples)
    ]


def text_scores(text: Text, outputs: list[Output], requested: str | None) -> dict:
    """Attach each output's current scores under the chosen settings; the text page's context."""
    choices, chosen = selected_setting(text.dataset, requested)
    rows: Iterable[TextScore] = []
    if chosen:
        rows = TextScore.objects.current().filter(fingerprint=chosen.fingerprint, output__in=outputs)
    by_output: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
    for row in rows:
        values, details = by_output.setdefault(row.output_id, ({}, {}))
        values.update(row.values)
        details[row.metric] = row.details
    for output in outputs:
        values, details = by_output.get(output.pk, ({}, {}))
        output.score_cells = [BY_CODE[code].shown(values.get(code)) for code in TEXT_SCORE_KEYS] if values else []
        output.verdicts = triple_verdicts(output.triples, details) if details else []
    headings = score_table([], chosen.heuristic_judge, TEXT_SCORE_KEYS)["columns"] if chosen else []
    return {"setting_runs": choices, "setting": chosen, "text_score_headings": headings}
