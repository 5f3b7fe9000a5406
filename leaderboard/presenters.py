"""Leaderboard data shaped into table rows for the templates: formatted cells, best values, ranks.

Cells carry the raw value (``sort``, for the client-side sorting) beside the text shown.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.triple_checks.queries import judge_label
from scoring.genres.aspects import ASPECT_CODES, ASPECTS, COLUMNS, GENRES_GROUP, HIGHER, Column

NOT_APPLICABLE = "—"
# Not stored: worked out from the aspect scores here, and shown ahead of them.
OVERALL = Column(
    "overall",
    f"Mean of the five GENRES aspect scores ({', '.join(aspect.heading for aspect in ASPECTS)}; of those computed)",
    "Overall",
    group=GENRES_GROUP,
)


@dataclass(frozen=True)
class Cell:
    text: str
    sort: float | str | None = None
    best: bool = False
    title: str = ""
    rank: str = ""  # the system's rank by this column, shown in the rank column when sorted by it


def hundred(value: float | None) -> str:
    return OVERALL.shown(value) or NOT_APPLICABLE


def fixed(value: float | None, digits: int = 2) -> str:
    return NOT_APPLICABLE if value is None else f"{value:.{digits}f}"


def rank_text(rank: Sequence[int] | None) -> str:
    if rank is None:
        return NOT_APPLICABLE
    best, worst = rank
    return str(best) if best == worst else f"{best}–{worst}"


INTERVALS_OVERLAP = "95% intervals overlap with other systems: the ranks in this range are all possible"
NOT_SIGNIFICANT = "Not significantly different from some systems (paired tests, Holm-corrected): the ranks in this range are all possible"
EQUAL_AS_SHOWN = "Equal to other systems as shown (one decimal): they share this range of ranks"


def _rank_cell(rank: Sequence[int] | None, tie_reason: str = INTERVALS_OVERLAP) -> Cell:
    tied = rank is not None and rank[0] != rank[1]
    return Cell(rank_text(rank), sort=None if rank is None else rank[0], title=tie_reason if tied else "")


def overall(values: Mapping[str, float | None]) -> float | None:
    """The overall score: the unweighted mean of the aspect scores computed (cs needs gold triples)."""
    scores = [value for aspect in ASPECT_CODES if (value := values.get(aspect)) is not None]
    return sum(scores) / len(scores) if scores else None


def column_ranks(rows: list[dict[str, Any]], column: Column) -> dict[str, tuple[int, int]]:
    """``{system: (best, worst)}`` by one column, Ground truth left out; systems whose values are
    equal as shown (one decimal, in the column's unit) share the range of ranks they span."""
    shown = {
        row["system"]: round(row["values"][column.code] * column.scale, 1)
        for row in rows
        if not row["ground_truth"] and row["values"][column.code] is not None
    }
    sign = 1 if column.better == HIGHER else -1
    return {
        system: (
            1 + sum(1 for other in shown.values() if sign * other > sign * value),
            sum(1 for other in shown.values() if sign * other >= sign * value),
        )
        for system, value in shown.items()
    }


def ranked_score_table(data: dict[str, Any]) -> dict[str, Any]:
    """The leaderboard's score table: header cells with tooltips and one row per system, ranked by
    the overall score, best value per column marked; each cell carries the system's rank by its
    column for the client's sorting."""
    setting = data["setting"] or {}
    provenance_of = setting.get("columns", {})
    rows = [{**row, "values": {**row["values"], OVERALL.code: overall(row["values"])}} for row in data["scores"]]
    # Ground truth first, as the reference; then by overall score, best first.
    rows.sort(key=lambda row: (not row["ground_truth"], -(row["values"][OVERALL.code] or -1), row["system"]))
    # The overall score heads the GENRES group, after the two counts.
    first_aspect = COLUMNS.index(ASPECTS[0])
    columns = [*COLUMNS[:first_aspect], OVERALL, *COLUMNS[first_aspect:]]
    headers: list[dict[str, Any]] = []
    best: dict[str, float] = {}
    ranks: dict[str, dict[str, tuple[int, int]]] = {}
    groups: list[dict[str, Any]] = []
    for column in columns:
        key = column.code
        tooltip = column.title + (f" · {provenance_of[key]}" if key in provenance_of else "")
        headers.append({"key": key, "heading": column.heading, "title": tooltip, "judge": column.judge})
        if groups and groups[-1]["name"] == column.group:
            groups[-1]["span"] += 1
        else:
            groups.append({"name": column.group, "span": 1})
        # Ground truth is the reference, not a contender: it is left out of the best value.
        values = [row["values"][key] for row in rows if not row["ground_truth"] and row["values"][key] is not None]
        if column.better and values:
            best[key] = round(max(values) if column.better == HIGHER else min(values), 3)
            ranks[key] = column_ranks(rows, column)
    table_rows: list[dict[str, Any]] = []
    for row in rows:
        cells: list[Cell] = []
        for column in columns:
            value = row["values"][column.code]
            is_best = not row["ground_truth"] and value is not None and round(value, 3) == best.get(column.code)
            rank = ranks.get(column.code, {}).get(row["system"])
            text = column.shown(value) or NOT_APPLICABLE
            cells.append(Cell(text, sort=value, best=is_best, rank=rank_text(rank) if rank else ""))
        table_rows.append(
            {
                "system": row["system"],
                "ground_truth": row["ground_truth"],
                "current": row["current"],
                "rank": _rank_cell(ranks.get(OVERALL.code, {}).get(row["system"]), EQUAL_AS_SHOWN),
                "cells": cells,
            }
        )
    return {"groups": groups, "headers": headers, "rows": table_rows}


def interval_table(data: dict[str, Any]) -> dict[str, Any] | None:
    """Per system (score table order), per aspect: mean ×100, its bootstrap interval and its tied rank."""
    tests = data["significance"]["scores"]
    if not tests:
        return None
    names = {aspect["code"]: aspect["name"] for aspect in data["aspects"]}
    rows: list[dict[str, Any]] = []
    for row in data["scores"]:
        cells: list[dict[str, Any]] = []
        for entry in tests.values():
            interval = entry["intervals"].get(row["system"])
            if interval is None:
                cells.append({"mean": Cell(NOT_APPLICABLE), "interval": "", "rank": _rank_cell(None)})
                continue
            cells.append(
                {
                    "mean": Cell(hundred(interval["mean"]), sort=interval["mean"]),
                    "interval": f"{hundred(interval['ci_low'])} – {hundred(interval['ci_high'])}",
                    "rank": _rank_cell(entry["rank"][row["system"]], NOT_SIGNIFICANT),
                }
            )
        rows.append({"system": row["system"], "ground_truth": row["ground_truth"], "cells": cells})
    return {"aspects": [names[aspect] for aspect in tests], "rows": rows}


def human_tables(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Per method, per aspect: systems by rating, each with interval, battles and rank range."""
    if not data["human"]["judgements"]:
        return {}
    names = {aspect["code"]: aspect["name"] for aspect in data["aspects"]}
    tables: dict[str, list[dict[str, Any]]] = {}
    for method, by_aspect in data["human"]["ratings"].items():
        tables[method] = []
        for aspect, board in by_aspect.items():
            # By rank range, then rating: a wide interval can start lower than the next system's.
            ordered = sorted(board.items(), key=lambda item: (*item[1]["rank"], -item[1]["rating"], item[0]))
            tables[method].append(
                {
                    "aspect": aspect,
                    "name": names[aspect],
                    "rows": [
                        {
                            "system": system,
                            "rank": _rank_cell(entry["rank"]),
                            "rating": Cell(f"{entry['rating']:.0f}", sort=entry["rating"]),
                            "interval": f"{entry['ci_low']:.0f} – {entry['ci_high']:.0f}",
                            "battles": Cell(str(entry["battles"]), sort=entry["battles"]),
                        }
                        for system, entry in ordered
                    ],
                }
            )
    return tables


def single_pass_table(data: dict[str, Any]) -> dict[str, Any] | None:
    """Systems by name with their single-pass Elo, one column per aspect; None when there is nothing to
    show (no judgements, or a leaderboard built before single passes were stored)."""
    by_aspect = data["human"].get("single_pass")
    if not data["human"]["judgements"] or not by_aspect:
        return None
    systems = sorted({system for board in by_aspect.values() for system in board})
    rows: list[dict[str, Any]] = []
    for system in systems:
        cells = [by_aspect[aspect].get(system, {}).get("rating") for aspect in by_aspect]
        rows.append({"system": system, "cells": [Cell(fixed(value, 0), sort=value) for value in cells]})
    names = {aspect["code"]: aspect["name"] for aspect in data["aspects"]}
    return {"aspects": [names[aspect] for aspect in by_aspect], "rows": rows}


def replicate_table(data: dict[str, Any]) -> dict[str, Any] | None:
    """Per replicate group: its runs and, per aspect, the mean ± sample SD over runs (×100) with the
    range in the tooltip; None when the dataset has no replicates (or an older build lacks them)."""
    groups = data.get("replicates")
    if not groups:
        return None
    codes = [aspect["code"] for aspect in data["aspects"]]
    rows: list[dict[str, Any]] = []
    for group in groups:
        cells: list[Cell] = []
        for code in codes:
            mean, spread = group["mean"][code], group["sd"][code]
            text = hundred(mean) if spread is None else f"{hundred(mean)} ± {hundred(spread)}"
            title = "" if mean is None else f"runs from {hundred(group['min'][code])} to {hundred(group['max'][code])}"
            cells.append(Cell(text, sort=mean, title=title))
        seeds = ", ".join(run["seed"] for run in group["runs"])
        rows.append({"group": group["group"], "runs": len(group["runs"]), "seeds": seeds, "cells": cells})
    return {"aspects": [aspect["name"] for aspect in data["aspects"]], "rows": rows}


def generated_systems(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The scored systems made from an endpoint, with what made them (older builds have no provenance)."""
    rows = []
    for row in data.get("scores", []):
        provenance = row.get("provenance")
        if provenance:
            template = provenance.get("template") or {}
            settings = f"temperature {provenance.get('temperature')}, max tokens {provenance.get('max_tokens')}"
            rows.append(
                {
                    "system": row["system"],
                    "model": provenance.get("model", ""),
                    "host": provenance.get("endpoint_host", ""),
                    "template": f"{template.get('name', '')} v{template.get('version', '')}",
                    "settings": f"{provenance.get('api', '')}, {settings}, seed {provenance.get('seed', '')}",
                }
            )
    return rows


def agreement_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    names = {aspect["code"]: aspect["name"] for aspect in data["aspects"]}
    return [
        {
            "name": names[aspect],
            "accuracy": fixed(figures["accuracy"]),
            "kappa": fixed(figures["kappa"]),
            "alpha": fixed(figures["alpha"]),
            "items": figures["items"],
        }
        for aspect, figures in data["human"]["agreement"].items()
    ]


def comparison_tables(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Per method: a summary row per aspect (τ, ρ, item agreement) and the side-by-side rankings."""
    names = {aspect["code"]: aspect["name"] for aspect in data["aspects"]}
    tables: dict[str, list[dict[str, Any]]] = {}
    for method, by_aspect in data["comparison"].items():
        tables[method] = []
        for aspect, entry in by_aspect.items():
            items = entry["items"]
            tables[method].append(
                {
                    "aspect": aspect,
                    "name": names[aspect],
                    "tau_score": fixed(entry["by_score"]["kendall_tau"]),
                    "rho_score": fixed(entry["by_score"]["spearman_rho"]),
                    "tau_battles": fixed(entry["by_battles"]["kendall_tau"]),
                    "rho_battles": fixed(entry["by_battles"]["spearman_rho"]),
                    "shared": entry["by_score"]["systems"],
                    "item_accuracy": fixed(items["accuracy"]),
                    "items": items["items"],
                    "rows": [
                        {
                            "system": row["system"],
                            "human_rating": Cell(fixed(row["human_rating"], 0), sort=row["human_rating"]),
                            "human_rank": _rank_cell(row["human_rank"]),
                            "mean_score": Cell(hundred(row["mean_score"]), sort=row["mean_score"]),
                            "score_rank": Cell(str(row["score_rank"] or NOT_APPLICABLE), sort=row["score_rank"]),
                            "metric_rating": Cell(fixed(row["metric_rating"], 0), sort=row["metric_rating"]),
                            "metric_rank": _rank_cell(row["metric_rank"]),
                        }
                        for row in entry["rows"]
                    ],
                }
            )
    return tables


def judge_beside_scores(data: dict[str, Any]) -> dict[str, Any] | None:
    """The triple checks' verdict on this setting's judge: each system's FS and GS beside the
    bias that judge shows against the humans, and the humans' estimate on the sample.

    None without triple checks; ``judge`` None when this setting's judge has no verdicts on the
    labelled triples."""
    checks = data.get("triple_checks")
    if not checks:
        return None
    setting = data.get("setting") or {}
    label = judge_label(setting.get("provenance") or {}) if setting else None
    judge = next((entry for entry in checks["judges"] if entry["judge"] == label), None)
    if judge is None:
        return {"judge": None, "label": label, "rows": []}
    rows = [
        {
            "system": row["system"],
            **{aspect: row["values"].get(aspect) for aspect in ("fs", "gs")},
            **{
                f"{aspect}_{part}": judge["systems"][row["system"]][aspect][part]
                for aspect in ("fs", "gs")
                for part in ("bias", "human")
            },
        }
        for row in data.get("scores", [])
        if row["system"] in judge["systems"]
    ]
    return {"judge": judge, "label": label, "rows": rows}
