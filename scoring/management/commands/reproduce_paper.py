"""python manage.py reproduce_paper RELEASE --published FILE: the paper's tables from the authors' release."""

import json
import logging
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from scoring.genres.embedders import EMBEDDERS
from scoring.paper_comparison import cell_table, compare, rank_agreement, ranking_table, summarise, summary_table
from scoring.paper_reproduction import (
    DATASETS,
    SOURCE,
    import_outputs,
    import_release_verdicts,
    missing_rows,
    score_dataset,
    table_systems,
    write_benchmark,
)


class Command(BaseCommand):
    help = (
        "Reproduce the GENRES paper's Tables 2-4 from a clone of the authors' release, in one process: import the "
        "benchmarks, their systems' parsed outputs and recorded verdicts, score every column under the reference "
        "rules, and print the app's figures beside the printed ones, with a summary per column and Kendall's τ of "
        "the TS/US/CS rankings. Run `migrate` first on a new database; a second run imports only what changed."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("release", type=Path, help="A clone of the authors' repository.")
        parser.add_argument(
            "--published",
            type=Path,
            required=True,
            help='The printed tables as JSON: {"tables": {dataset: {system: {column: "figure"}}}}.',
        )
        parser.add_argument(
            "--datasets", default=",".join(DATASETS), help="Comma-separated, of the six (default: all six)."
        )
        parser.add_argument(
            "--embedder", choices=list(EMBEDDERS), help="For us and cs (default: score_outputs' default)."
        )
        parser.add_argument("--json", type=Path, metavar="FILE", help="Also write the app's scores to FILE as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        release: Path = options["release"].expanduser().resolve()
        datasets = [name.strip() for name in options["datasets"].split(",") if name.strip()]
        unknown = sorted(set(datasets) - set(DATASETS))
        if unknown:
            raise CommandError(f"unknown dataset(s) {', '.join(unknown)}; choose from {', '.join(DATASETS)}")
        if not (release / "GREScores").is_dir() or not (release / "processed_results").is_dir():
            raise CommandError(f"{release} is not a clone of the authors' release (no GREScores/, processed_results/)")
        try:
            printed = json.loads(options["published"].read_text(encoding="utf-8"))["tables"]
        except (OSError, ValueError, KeyError) as error:
            raise CommandError(f"cannot read the printed tables from {options['published']}: {error}") from error
        started = time.perf_counter()
        with leaderboards_left_to_pages(self):
            app = self.reproduce(release, datasets, printed, options["embedder"])
        if options["json"]:
            options["json"].write_text(json.dumps(app, indent=1))
        self.report_comparison({dataset: printed.get(dataset, {}) for dataset in datasets}, app)
        self.stdout.write(f"\n{time.perf_counter() - started:.0f} s")

    def reproduce(self, release: Path, datasets: list[str], printed: dict, embedder: str | None) -> dict:
        """The three steps; the app's scores {dataset: {system: scores}}."""
        with tempfile.TemporaryDirectory(prefix="genres-benchmark-") as folder:
            self.step("1/3 import the benchmarks and the parsed outputs")
            write_benchmark(release, Path(folder), datasets)
            import_outputs(Path(folder), datasets)
        self.step("2/3 import the recorded verdicts")
        with tqdm(unit="system", desc="verdicts", file=sys.stderr) as bar:

            def progress(items: list) -> Iterator:
                bar.reset(total=len(items))
                for item in items:
                    bar.set_postfix_str(f"{item[0]} {item[1]}", refresh=False)
                    yield item
                    bar.update()

            counts = import_release_verdicts(release, datasets, printed, progress)
        self.report_verdicts(counts)
        self.step("3/3 score every column, reference rules, recorded judge")
        return {
            dataset: score_dataset(dataset, table_systems(dataset, printed.get(dataset, {})), embedder)
            for dataset in datasets
        }

    def step(self, title: str) -> None:
        self.stderr.write(title)

    def report_verdicts(self, counts: Any) -> None:
        self.stdout.write(
            f'Verdicts imported from {counts.files} files under source "{SOURCE}"; {counts.disagreeing} triples given '
            f"more than once in a text with different verdicts (each occurrence keeps its own), "
            f"{counts.unjudgeable} verdicts on items no judge is asked about skipped."
        )
        for refusal in counts.refused:
            self.stdout.write(f"  refused: {refusal}")
        for name in counts.without_outputs:
            self.stdout.write(f"  no parsed outputs of this system: {name}")

    def report_comparison(self, printed: dict, app: dict) -> None:
        cells = compare(printed, app)
        for line in cell_table(cells):
            self.stdout.write(line)
        self.stdout.write("\nAgainst the printed tables (figures compared at the printed decimal):\n")
        for line in summary_table(summarise(cells)):
            self.stdout.write(line)
        self.stdout.write("\nKendall's τ between the app's and the paper's order of the systems (Ground truth out):\n")
        for line in ranking_table(rank_agreement(cells)):
            self.stdout.write(line)
        missing = missing_rows(printed, app)
        if missing:
            self.stdout.write(f"\nPrinted rows with no system in the app: {', '.join(missing)}")


@contextmanager
def leaderboards_left_to_pages(command: BaseCommand) -> Iterator[None]:
    """Without Redis every import would warn that leaderboards are not rebuilt; say once where
    they will be built instead, and keep that warning out of the log meanwhile."""
    from leaderboard.jobs import queue

    try:
        queue().connection.ping()
    except Exception:
        command.stdout.write(
            "No Redis server: each dataset's leaderboard is built when its page is first opened "
            "(or by a worker at the dataset's next change made while Redis is up)."
        )
    else:
        yield
        return
    logger = logging.getLogger("leaderboard.jobs")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)
