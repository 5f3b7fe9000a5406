"""Stored scores as the pages show them: one settings fingerprint at a time, never mixed.

The dataset page shows each system's aggregates from the latest finished run with the chosen
settings (``dataset_scores``); the text page shows each output's current per-text scores and
the judge's verdict on each of its triples (``text_scores``). The latest settings are the
default; ``?settings=<fingerprint>`` picks another.
"""

from scoring.models.runs import TextScore, latest_system_scores, settings_choices

RECENT_RUNS = 10
# Every page shows scores (and shares) in one unit: ×100 with one decimal, the leaderboard's and
# the GENRES paper's; the stored values and the CSV/JSON downloads keep the 0–1 fractions.
SCORE_UNIT = "×100"
# Counts, shown as they are.
PLAIN_COLUMNS = {"triples_per_text", "tokens_per_triple"}


def score_text(value, key=None):
    """A stored value as the pages show it: ×100 with one decimal, counts with one; "" when None."""
    if value is None:
        return ""
    return f"{value:.1f}" if key in PLAIN_COLUMNS else f"{100 * value:.1f}"


# (key in the stored values, heading, what it is)
SCORE_COLUMNS = (
    ("triples_per_text", "Triples/text", "mean number of triples per text"),
    ("tokens_per_triple", "Tokens/triple", "mean whitespace tokens of subject, relation and object"),
    ("ts", "TS", "topical similarity"),
    ("us", "US", "uniqueness"),
    ("fs", "FS", "factualness"),
    ("gs", "GS", "granularity"),
    ("cs", "CS", "completeness"),
    ("precision", "P", "exact-match precision"),
    ("recall", "R", "exact-match recall"),
    ("f1", "F1", "exact-match F1"),
    ("relaxed_f1", "rF1", "F1 with token-Jaccard matching of each element"),
    ("empty_share", "Empty", "share of texts without any triple, %"),
)
TEXT_SCORE_KEYS = ("ts", "us", "fs", "gs", "cs", "precision", "recall", "f1", "relaxed_f1")
JUDGED = ("fs", "gs")


def score_table(rows, heuristic, keys=None):
    """Columns and rows of a score table; ``rows`` are SystemScore rows (``is_current`` where known)."""
    columns = [column for column in SCORE_COLUMNS if keys is None or column[0] in keys]
    return {
        "heuristic": heuristic,
        "columns": [
            {
                "heading": heading,
                "title": title if key in PLAIN_COLUMNS else f"{title} {SCORE_UNIT}",
                "heuristic": heuristic and key in JUDGED,
            }
            for key, heading, title in columns
        ],
        "rows": [
            {
                "system": row.system,
                "texts": row.values.get("texts"),
                "current": getattr(row, "is_current", True),
                "cells": [score_text(row.values.get(key), key) for key, _heading, _title in columns],
            }
            for row in rows
        ],
    }


def selected_setting(dataset, requested):
    """The finished runs by settings fingerprint, and the one chosen (``requested``, else the latest)."""
    choices = settings_choices(dataset)
    chosen = next((run for run in choices if run.fingerprint == requested), choices[0] if choices else None)
    return choices, chosen


def dataset_scores(dataset, requested):
    """The score table of the dataset page: one settings fingerprint at a time."""
    choices, chosen = selected_setting(dataset, requested)
    rows = latest_system_scores(dataset, chosen.fingerprint) if chosen else []
    return {
        "setting_runs": choices,
        "setting": chosen,
        "score_table": score_table(rows, chosen.heuristic_judge) if chosen else None,
        "recent_runs": dataset.scoring_runs.select_related("created_by")[:RECENT_RUNS],
    }


def triple_verdicts(triples, details):
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


def text_scores(text, outputs, requested):
    """Attach each output's current scores under the chosen settings; the text page's context."""
    choices, chosen = selected_setting(text.dataset, requested)
    rows = []
    if chosen:
        rows = TextScore.objects.current().filter(fingerprint=chosen.fingerprint, output__in=outputs)
    by_output = {}
    for row in rows:
        values, details = by_output.setdefault(row.output_id, ({}, {}))
        values.update(row.values)
        details[row.metric] = row.details
    for output in outputs:
        values, details = by_output.get(output.pk, ({}, {}))
        output.score_cells = [score_text(values.get(key), key) for key in TEXT_SCORE_KEYS] if values else []
        output.verdicts = triple_verdicts(output.triples, details) if details else []
    headings = score_table([], chosen.heuristic_judge, TEXT_SCORE_KEYS)["columns"] if chosen else []
    return {"setting_runs": choices, "setting": chosen, "text_score_headings": headings}
