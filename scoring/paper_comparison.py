"""The app's scores beside the tables the GENRES paper prints (Tables 2-4), cell by cell.

The printed tables are given as ``{dataset: {system: {column: "printed figure"}}}`` with the
columns ``tri`` (triples per text), ``tok`` (tokens per triple) and ``ts``, ``us``, ``fs``,
``gs``, ``cs`` in percent. A printed figure is compared at its own precision: the app's value,
scaled like the column, is rounded half up to the printed number of decimals and compared as
text. A cell that differs only because the paper rounded a two-decimal figure again (3.548 to
3.55 to 3.6) is told apart as "double-rounded".

TS, US and CS depend on embeddings and topic models the paper's authors did not release, so
their figures cannot be exact offline: for those the comparison also gives, per dataset, Kendall's
τ between the app's order of the systems and the paper's (Ground truth left out: it is no
system the paper ranks).

No Django here: the management command ``reproduce_paper`` feeds it the scores of its runs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

COLUMNS = ("tri", "tok", "ts", "us", "fs", "gs", "cs")
RANKED_COLUMNS = ("ts", "us", "cs")
GROUND_TRUTH = "Ground truth"
# The key of each column in a scoring run's system scores, and the factor the paper prints it with.
APP_VALUES = {
    "tri": ("triples_per_text", 1),
    "tok": ("tokens_per_triple", 1),
    "ts": ("ts", 100),
    "us": ("us", 100),
    "fs": ("fs", 100),
    "gs": ("gs", 100),
    "cs": ("cs", 100),
}
# What "within 0.1" allows beyond 0.1 itself: the printed figures are decimals, the app's floats.
TOLERANCE = 1e-9

EXACT = "exact"
DOUBLE_ROUNDED = "double-rounded"
WITHIN = "within 0.1"
OFF = "off"
MISSING = "not produced"


def round_half_up(value: float, decimals: int) -> Decimal:
    return Decimal(repr(value)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def decimals_of(printed: str) -> int:
    return len(printed.partition(".")[2])


@dataclass(frozen=True)
class Cell:
    """One printed figure and the app's value for it (None: the app produced none)."""

    dataset: str
    system: str
    column: str
    printed: str
    app: float | None  # already scaled like the printed figure

    @property
    def shown(self) -> str:
        """The app's value as the paper would print it."""
        if self.app is None:
            return "–"
        return str(round_half_up(self.app, decimals_of(self.printed)))

    @property
    def gap(self) -> float | None:
        return None if self.app is None else abs(float(self.shown) - float(self.printed))

    @property
    def status(self) -> str:
        if self.app is None:
            return MISSING
        if self.shown == self.printed:
            return EXACT
        decimals = decimals_of(self.printed)
        if decimals < 2 and str(round_half_up(float(round_half_up(self.app, 2)), decimals)) == self.printed:
            return DOUBLE_ROUNDED
        assert self.gap is not None  # app is not None
        return WITHIN if self.gap <= 0.1 + TOLERANCE else OFF


def app_value(scores: Mapping[str, object], column: str) -> float | None:
    key, scale = APP_VALUES[column]
    value = scores.get(key)
    if not isinstance(value, int | float) or isinstance(value, bool) or math.isnan(value):
        return None
    return value * scale


def compare(
    printed: Mapping[str, Mapping[str, Mapping[str, str]]],
    app: Mapping[str, Mapping[str, Mapping[str, object]]],
    columns: Iterable[str] = COLUMNS,
) -> list[Cell]:
    """Every printed cell of ``columns``, in the printed tables' order, with the app's value.

    ``app``: ``{dataset: {system: scores}}``, the scores as a scoring run reports a system
    (``triples_per_text``, ``tokens_per_triple``, ``fs``, ... as fractions).
    """
    columns = tuple(columns)
    cells = []
    for dataset, systems in printed.items():
        for system, figures in systems.items():
            scores = app.get(dataset, {}).get(system, {})
            cells += [
                Cell(dataset, system, column, figures[column], app_value(scores, column))
                for column in columns
                if column in figures
            ]
    return cells


@dataclass(frozen=True)
class ColumnSummary:
    column: str
    cells: int
    exact: int
    double_rounded: int
    within: int  # at most 0.1 apart, exact ones included
    off: int
    missing: int
    largest_gap: float | None


def summarise(cells: Iterable[Cell]) -> list[ColumnSummary]:
    """Per column, in ``COLUMNS`` order, of the columns present."""
    by_column: dict[str, list[Cell]] = {}
    for cell in cells:
        by_column.setdefault(cell.column, []).append(cell)
    summaries = []
    for column in (column for column in COLUMNS if column in by_column):
        own = by_column[column]
        statuses = [cell.status for cell in own]
        gaps = [cell.gap for cell in own if cell.gap is not None]
        summaries.append(
            ColumnSummary(
                column=column,
                cells=len(own),
                exact=statuses.count(EXACT),
                double_rounded=statuses.count(DOUBLE_ROUNDED),
                within=sum(status in (EXACT, DOUBLE_ROUNDED, WITHIN) for status in statuses),
                off=statuses.count(OFF),
                missing=statuses.count(MISSING),
                largest_gap=round(max(gaps), 6) if gaps else None,
            )
        )
    return summaries


@dataclass(frozen=True)
class Ranking:
    dataset: str
    column: str
    systems: int
    tau: float | None  # None: fewer than two systems, or a column constant on either side


def rank_agreement(cells: Iterable[Cell]) -> list[Ranking]:
    """Kendall's τ (scipy's τ-b, ties allowed) between the app's and the paper's order of the
    systems, per dataset and column of ``RANKED_COLUMNS``; Ground truth left out."""
    from scipy.stats import kendalltau  # here: scipy is no start-up import

    pairs: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for cell in cells:
        if cell.column in RANKED_COLUMNS and cell.system != GROUND_TRUTH and cell.app is not None:
            pairs.setdefault((cell.dataset, cell.column), []).append((cell.app, float(cell.printed)))
    rankings = []
    for (dataset, column), values in pairs.items():
        tau = None
        if len(values) >= 2:
            statistic = kendalltau([app for app, _ in values], [paper for _, paper in values]).statistic
            tau = None if math.isnan(statistic) else float(statistic)
        rankings.append(Ranking(dataset, column, len(values), tau))
    return rankings


def cell_table(cells: Iterable[Cell], columns: Iterable[str] = COLUMNS) -> list[str]:
    """Markdown lines per dataset: each system's "app / paper" per column, bold where not exact."""
    by_dataset: dict[str, dict[str, dict[str, Cell]]] = {}
    for cell in cells:
        by_dataset.setdefault(cell.dataset, {}).setdefault(cell.system, {})[cell.column] = cell
    columns = tuple(columns)
    lines = []
    for dataset, systems in by_dataset.items():
        shown = [column for column in columns if any(column in row for row in systems.values())]
        lines += [
            "",
            f"**{dataset}** (app / paper; bold: not equal at the printed decimal; † double-rounded)",
            "",
            "| system | " + " | ".join(shown) + " |",
            "| --- |" + " --- |" * len(shown),
        ]
        for system, row in systems.items():
            lines.append(f"| {system} | " + " | ".join(_marked(row.get(column)) for column in shown) + " |")
    return lines


def _marked(cell: Cell | None) -> str:
    if cell is None:
        return ""
    text = f"{cell.shown} / {cell.printed}"
    if cell.status == EXACT:
        return text
    return f"{text} †" if cell.status == DOUBLE_ROUNDED else f"**{text}**"


def summary_table(summaries: Iterable[ColumnSummary]) -> list[str]:
    lines = [
        "| column | cells | exact | double-rounded | within 0.1 | off | not produced | largest gap |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for summary in summaries:
        gap = "–" if summary.largest_gap is None else f"{summary.largest_gap:.2f}"
        lines.append(
            f"| {summary.column} | {summary.cells} | {summary.exact} | {summary.double_rounded} | {summary.within} | "
            f"{summary.off} | {summary.missing} | {gap} |"
        )
    return lines


def ranking_table(rankings: Iterable[Ranking]) -> list[str]:
    by_dataset: dict[str, dict[str, Ranking]] = {}
    for ranking in rankings:
        by_dataset.setdefault(ranking.dataset, {})[ranking.column] = ranking
    lines = ["| dataset | systems | " + " | ".join(f"τ {column}" for column in RANKED_COLUMNS) + " |"]
    lines.append("| --- | --- |" + " --- |" * len(RANKED_COLUMNS))
    for dataset, columns in by_dataset.items():
        systems = max(ranking.systems for ranking in columns.values())
        taus = [columns.get(column) for column in RANKED_COLUMNS]
        lines.append(
            f"| {dataset} | {systems} | "
            + " | ".join("–" if r is None or r.tau is None else f"{r.tau:.2f}" for r in taus)
            + " |"
        )
    return lines
