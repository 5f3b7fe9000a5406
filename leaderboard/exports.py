"""A leaderboard as JSON, as CSV tables, and as one static HTML page that opens offline."""

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.contrib.staticfiles import finders
from django.template.loader import render_to_string

from annotation.triple_checks.queries import BIAS_FIELDS, JUDGE_FIELDS, bias_records, judge_records
from leaderboard import presenters, significance
from leaderboard.contents import METHODS
from leaderboard.metrics import COLUMN_KEYS

if TYPE_CHECKING:
    import pyarrow as pa

Data = dict[str, Any]  # a leaderboard as leaderboard.contents builds it
RATING_FIELDS = ("rating", "ci_low", "ci_high", "battles")
CORRELATION_FIELDS = ("systems", "kendall_tau", "kendall_p", "spearman_rho", "spearman_p")


def leaderboard_json(data: Data) -> Data:
    """Everything the page shows except the figures (their data is in the tables)."""
    return {key: value for key, value in data.items() if key != "plots"}


def _number(value: float | None, digits: int = 4) -> float | str:
    return "" if value is None else round(value, digits)


def _cell(value: Any) -> Any:
    """A figure rounded, an undefined one empty, anything else as it is."""
    return _number(value) if isinstance(value, float) or value is None else value


def _rank(rank: list[int] | None) -> tuple[int | str, ...]:
    return ("", "") if rank is None else tuple(rank)


def scores_rows(data: Data) -> Iterator[list[Any]]:
    yield ["system", "ground_truth", "texts", *COLUMN_KEYS]
    for row in data["scores"]:
        yield [row["system"], row["ground_truth"], row["texts"], *(_number(row["values"][key]) for key in COLUMN_KEYS)]


def human_rows(data: Data) -> Iterator[list[Any]]:
    yield ["method", "aspect", "system", *RATING_FIELDS, "rank_best", "rank_worst"]
    if not data["human"]["judgements"]:
        return
    for method, by_aspect in data["human"]["ratings"].items():
        for aspect, board in by_aspect.items():
            for system, entry in board.items():
                yield [method, aspect, system, *(_number(entry[key], 2) for key in RATING_FIELDS), *entry["rank"]]
    # One pass of Elo in import order (the paper's ratings): no interval, no rank range.
    for aspect, board in data["human"].get("single_pass", {}).items():
        for system, entry in board.items():
            yield ["elo_single_pass", aspect, system, _number(entry["rating"], 2), "", "", entry["battles"], "", ""]


def agreement_rows(data: Data) -> Iterator[list[Any]]:
    yield ["aspect", "accuracy", "kappa", "alpha", "items", "pairs"]
    for aspect, figures in data["human"]["agreement"].items():
        yield [
            aspect,
            *(_number(figures[key]) for key in ("accuracy", "kappa", "alpha")),
            figures["items"],
            figures["pairs"],
        ]


def comparison_rows(data: Data) -> Iterator[list[Any]]:
    yield [
        "method", "aspect", "system", "human_rating", "human_rank_best", "human_rank_worst", "mean_score",
        "score_rank", "metric_rating", "metric_rank_best", "metric_rank_worst",
    ]  # fmt: skip
    for method, by_aspect in data["comparison"].items():
        for aspect, entry in by_aspect.items():
            for row in entry["rows"]:
                yield [
                    method, aspect, row["system"], _number(row["human_rating"], 2), *_rank(row["human_rank"]),
                    _number(row["mean_score"]), row["score_rank"] or "", _number(row["metric_rating"], 2),
                    *_rank(row["metric_rank"]),
                ]  # fmt: skip


def correlation_rows(data: Data) -> Iterator[list[Any]]:
    yield [
        "method", "aspect", *(f"by_score_{key}" for key in CORRELATION_FIELDS),
        *(f"by_battles_{key}" for key in CORRELATION_FIELDS), "margin", "item_agreement", "items",
    ]  # fmt: skip
    for method, by_aspect in data["comparison"].items():
        for aspect, entry in by_aspect.items():
            yield [
                method, aspect, *(_number(entry["by_score"][key]) for key in CORRELATION_FIELDS),
                *(_number(entry["by_battles"][key]) for key in CORRELATION_FIELDS), data["margin"],
                _number(entry["items"]["accuracy"]), entry["items"]["items"],
            ]  # fmt: skip


def win_rate_rows(data: Data) -> Iterator[list[Any]]:
    yield ["aspect", "system", "opponent", "share_of_points", "battles"]
    if not data["human"]["judgements"]:
        return
    for aspect, matrix in data["human"]["win_rates"].items():
        for system, rates, counts in zip(matrix["systems"], matrix["rates"], matrix["battles"], strict=True):
            for opponent, rate, count in zip(matrix["systems"], rates, counts, strict=True):
                if count:
                    yield [aspect, system, opponent, _number(rate), count]


def score_interval_rows(data: Data) -> Iterator[list[Any]]:
    yield list(significance.INTERVAL_FIELDS)
    for record in significance.interval_records(data["significance"]["scores"] or {}):
        yield [_number(value) if key in ("mean", "ci_low", "ci_high") else value for key, value in record.items()]


def significance_rows(data: Data) -> Iterator[list[Any]]:
    """Every ordered pair once per source: the paired tests of the scores, and the human ratings' intervals."""
    yield ["source", *significance.PAIR_FIELDS]
    for record in significance.pair_records(data["significance"]["scores"] or {}, data["significance"]["alpha"]):
        cells = (_number(value) if key in ("difference", "p_holm") else value for key, value in record.items())
        yield ["scores", *cells]
    for method, by_aspect in data["significance"]["human"].items():
        for aspect, matrix in by_aspect.items():
            systems = matrix["systems"]
            for row, system in enumerate(systems):
                for column, opponent in enumerate(systems):
                    if row != column:
                        yield [method, aspect, system, opponent, _number(matrix["difference"][row][column], 2), "",
                               "", int(matrix["separated"][row][column])]  # fmt: skip


def replicate_rows(data: Data) -> Iterator[list[Any]]:
    """Every run of every replicate group, then the group's mean, SD, min and max, per column."""
    yield ["group", "system", "seed", "statistic", *COLUMN_KEYS]
    for group in data.get("replicates", []):
        for run in group["runs"]:
            yield [
                group["group"],
                run["system"],
                run["seed"],
                "run",
                *(_number(run["values"][key]) for key in COLUMN_KEYS),
            ]
        for statistic in ("mean", "sd", "min", "max"):
            yield [group["group"], "", "", statistic, *(_number(group[statistic][key]) for key in COLUMN_KEYS)]


PROVENANCE_FIELDS = ("endpoint_host", "model", "api", "temperature", "max_tokens", "seed", "generation_run")


def provenance_rows(data: Data) -> Iterator[list[Any]]:
    """What generated each scored system made from an endpoint (the endpoint's host, never a key)."""
    yield ["system", "replicate_group", *PROVENANCE_FIELDS, "template", "template_version", "created_at", "finished_at"]
    for row in data["scores"]:
        provenance = row.get("provenance")
        if provenance:
            template = provenance.get("template") or {}
            yield [
                row["system"],
                row["replicate_group"],
                *(provenance.get(field, "") for field in PROVENANCE_FIELDS),
                template.get("name", ""),
                template.get("version", ""),
                provenance.get("created_at") or "",
                provenance.get("finished_at") or "",
            ]


def judge_rows(data: Data) -> Iterator[list[Any]]:
    """The triple checks' judges against the humans (``annotation.triple_checks.queries``)."""
    yield list(JUDGE_FIELDS)
    for record in judge_records(data.get("triple_checks")):
        yield [_cell(value) for value in record.values()]


def judge_bias_rows(data: Data) -> Iterator[list[Any]]:
    yield list(BIAS_FIELDS)
    for record in bias_records(data.get("triple_checks")):
        yield [
            _number(value) if isinstance(value, float) else ("" if value is None else value)
            for value in record.values()
        ]


CSV_TABLES = {
    "scores": scores_rows,
    "human-ratings": human_rows,
    "agreement": agreement_rows,
    "comparison": comparison_rows,
    "correlations": correlation_rows,
    "win-rates": win_rate_rows,
    "score-intervals": score_interval_rows,
    "significance": significance_rows,
    "replicates": replicate_rows,
    "provenance": provenance_rows,
    "judges": judge_rows,
    "judge-bias": judge_bias_rows,
}
# The table holding each figure's numbers: its "data as CSV" link.
PLOT_TABLES = {
    "ratings": "comparison",
    "aspects": "comparison",
    "scatter": "comparison",
    "win_rates": "win-rates",
    "profile": "scores",
    "significance": "significance",
    "human_significance": "significance",
    "replicates": "replicates",
}


def parquet_link(csv_link: str) -> str:
    """The Parquet twin of a table's CSV URL or file name: the same path and query, ``.parquet``."""
    path, mark, query = csv_link.partition("?")
    return path.removesuffix(".csv") + ".parquet" + mark + query


def section_context(data: Data, links: dict[str, str], score_run: str = "", system_pages: str = "") -> dict[str, Any]:
    """What the section templates need; ``links`` maps CSV table names to their URLs or files;
    ``score_run`` is the staff's link to start a scoring run of the dataset, ``system_pages`` where
    the system pages start for those who may read them; each empty for anyone else."""
    return {
        "score_run": score_run,
        "system_pages": system_pages,
        "parquet_links": {table: parquet_link(link) for table, link in links.items()},
        "data": data,
        "methods": METHODS,
        "links": {table.replace("-", "_"): link for table, link in links.items()},
        "plot_links": {plot: links[table] for plot, table in PLOT_TABLES.items()},
        "score_table": presenters.ranked_score_table(data),
        "human_tables": presenters.human_tables(data),
        "single_pass_table": presenters.single_pass_table(data),
        "replicate_table": presenters.replicate_table(data),
        "generated_systems": presenters.generated_systems(data),
        "agreement_rows": presenters.agreement_rows(data),
        "comparison_tables": presenters.comparison_tables(data),
        "interval_table": presenters.interval_table(data),
        "judge_beside_scores": presenters.judge_beside_scores(data),
    }


def csv_text(table: str, data: Data) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerows(CSV_TABLES[table](data))
    return buffer.getvalue()


def arrow_table(table: str, data: Data) -> "pa.Table":
    """A CSV table as an Arrow table: the same columns and rows, each column typed, empty cells null.

    Arrow infers each column's type from its values, so a column of counts with gaps stays
    integer (pandas would make it float).
    """
    import pyarrow as pa  # here, not at start-up: only Parquet downloads need it

    header, *rows = CSV_TABLES[table](data)
    columns = zip(*rows, strict=True) if rows else [()] * len(header)
    return pa.table(
        {
            name: pa.array([None if value == "" else value for value in values])
            for name, values in zip(header, columns, strict=True)
        }
    )


def parquet_bytes(table: str, data: Data) -> bytes:
    from pyarrow import parquet  # here, not at start-up: only Parquet downloads need it

    buffer = io.BytesIO()
    parquet.write_table(arrow_table(table, data), buffer)
    return buffer.getvalue()


def csv_file_name(dataset_name: str, table: str, extension: str = "csv") -> str:
    return f"{dataset_name}-{table}.{extension}".replace(" ", "_")


def _static_text(path: str) -> str:
    found = finders.find(path)
    if found is None:
        raise FileNotFoundError(f"static file {path} not found")
    return Path(found).read_text(encoding="utf-8")


def static_html(data: Data, links: dict[str, str]) -> str:
    """One HTML file with the tables, the figures, plotly.js, the styles and the sorting script inlined."""

    # Inlined scripts must not close their own <script> element early.
    def script(path: str) -> str:
        return _static_text(path).replace("</script", "<\\/script")

    return render_to_string(
        "leaderboard/export.html",
        {
            **section_context(data, links),
            "static_export": True,
            "styles": _static_text("css/app.css") + "\n" + _static_text("css/leaderboard.css"),
            "plotly_js": script("vendor/plotly-leaderboard.min.js"),
            "leaderboard_js": script("js/leaderboard.js"),
        },
    )


def write_export(data: Data, out_dir: str | Path) -> list[Path]:
    """Write leaderboard.json, every table as CSV and Parquet, and index.html into ``out_dir``; return the paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    name = data["dataset"]["name"]
    written: list[Path] = []
    json_path = out_dir / "leaderboard.json"
    json_path.write_text(json.dumps(leaderboard_json(data), indent=1, ensure_ascii=False), encoding="utf-8")
    written.append(json_path)
    links: dict[str, str] = {}
    for table in CSV_TABLES:
        path = out_dir / csv_file_name(name, table)
        path.write_text(csv_text(table, data), encoding="utf-8")
        links[table] = path.name
        parquet_path = out_dir / csv_file_name(name, table, "parquet")
        parquet_path.write_bytes(parquet_bytes(table, data))
        written += [path, parquet_path]
    html_path = out_dir / "index.html"
    html_path.write_text(static_html(data, links), encoding="utf-8")
    written.append(html_path)
    return written
