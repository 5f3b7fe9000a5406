"""The GENRES paper's Tables 2-4 from the authors' release, in one process (``manage.py reproduce_paper``).

The steps of docs/reproducing.md, with the app's own services: the benchmark's dataset files (each
sample's texts with their processed gold triples) are written into a working folder beside links
to the release's parsed outputs; ``import_benchmark`` imports them; every seed-1 system's recorded
factualness and granularity verdicts are imported (the Ground truth's granularity too); one
scoring run per dataset scores every column of the tables under the reference rules with the
recorded judge. Nothing of the release is copied into this repository: it is read from a clone.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATASETS = ("cdr", "docred", "nyt10m", "wiki20m", "tacred", "wiki80")
SOURCE = "genres-release"
RELEASE_FILE = re.compile(r"(?P<dataset>[a-z0-9]+)_rand_(?P<size>\d+)_(?P<model>.+)_(?P<seed>\d+)")
GROUND_TRUTH_FILE_MODEL = "groundtruth"
MAIN_SEED = "1"
# The release's names for the paper's Table 2 rows; the other seeds are Figure 4's replicates, the
# human-study subset (rand_100) a dataset of its own, gpt-3.5_closed/_semi section 5's prompt variants.
OUTPUTS_PATTERN = "processed_results/{dataset}_rand_{size}_{system}_{seed}.json"


@dataclass
class VerdictCounts:
    files: int = 0
    refused: list[str] = field(default_factory=list)  # "file (layout): reason"
    disagreeing: int = 0  # triples whose occurrences got different verdicts (each keeps its own)
    unjudgeable: int = 0  # verdicts on items no judge is asked about, skipped
    without_outputs: list[str] = field(default_factory=list)  # verdict files with no parsed file


def write_benchmark(release: Path, folder: Path, datasets: Iterable[str]) -> None:
    """``folder/benchmark/{dataset}.json``: each sample's texts with their processed gold triples
    (none for a text without any), and ``folder/processed_results`` linking to the release's."""
    (folder / "benchmark").mkdir(parents=True, exist_ok=True)
    for name in datasets:
        (sample,) = (release / "datasets").glob(f"{name}_rand_*.json")
        gold = json.loads((release / "datasets" / "processed" / f"{name}_processed.json").read_text())
        texts = json.loads(sample.read_text())
        (folder / "benchmark" / f"{name}.json").write_text(json.dumps({text: gold.get(text, []) for text in texts}))
    link = folder / "processed_results"
    if not link.exists():
        link.symlink_to(release / "processed_results", target_is_directory=True)


def import_outputs(folder: Path, datasets: Iterable[str]) -> None:
    """docs/reproducing.md step 3 (``import_benchmark``), its progress bar on stderr."""
    from django.core.management import call_command

    skipped = [
        f"--skip={pattern}"
        for other in DATASETS
        if other not in datasets
        for pattern in (f"{other}.json", f"{other}_rand_*")
    ]
    call_command(
        "import_benchmark",
        str(folder),
        "--datasets",
        "benchmark/{dataset}.json",
        "--outputs",
        OUTPUTS_PATTERN,
        "--skip",
        "*_rand_100_*",
        "--skip",
        "*groundtruth*",
        "--main-seed",
        MAIN_SEED,
        "--lenient",
        *skipped,
        stdout=io.StringIO(),
    )


def verdict_files(
    release: Path, datasets: Iterable[str], tables: dict[str, Any] | None = None
) -> list[tuple[str, str, Path | None, Path | None]]:
    """(dataset, system, factualness file, granularity file) of every seed-1 system with verdicts
    (with ``tables``, of the systems they have a row for); the release's "groundtruth" files are
    the Ground truth system's."""
    from scoring.models import System

    wanted = set(datasets)
    found: dict[tuple[str, str], dict[str, Path]] = {}
    for aspect in ("factualness", "granularity"):
        for path in sorted((release / "GREScores" / aspect).glob("*_rand_*_*.json")):
            match = RELEASE_FILE.fullmatch(path.stem)
            if not match or match["dataset"] not in wanted or match["size"] == "100" or match["seed"] != MAIN_SEED:
                continue
            model = match["model"]
            system = System.GROUND_TRUTH if model == GROUND_TRUTH_FILE_MODEL else model
            if tables is None or system in tables.get(match["dataset"], {}):
                found.setdefault((match["dataset"], system), {})[aspect] = path
    return [
        (dataset, system, files.get("factualness"), files.get("granularity"))
        for (dataset, system), files in sorted(found.items())
    ]


def import_release_verdicts(
    release: Path,
    datasets: Iterable[str],
    tables: dict[str, Any] | None = None,
    progress: Callable[[list[Any]], Iterable[Any]] = iter,
) -> VerdictCounts:
    """The seed-1 systems' recorded verdicts under ``SOURCE`` (see ``verdict_files``); a file that
    does not fit its system's outputs is refused (all or nothing) and counted, never half-imported."""
    from scoring.genres.verdict_formats import VerdictFormatError
    from scoring.models import Dataset, System
    from scoring.verdict_imports import import_verdicts

    datasets = list(datasets)
    counts = VerdictCounts()
    datasets_by_name = {dataset.name: dataset for dataset in Dataset.objects.filter(name__in=list(datasets))}
    for dataset_name, system_name, fs_file, gs_file in progress(verdict_files(release, datasets, tables)):
        system = System.objects.filter(name=system_name, outputs__text__dataset__name=dataset_name).first()
        files = [(layout, path) for layout, path in (("authors-fs", fs_file), ("authors-gs", gs_file)) if path]
        if system is None:
            counts.without_outputs.append(files[0][1].name)
            continue
        for layout, path in files:
            # The booleans are aligned with the parsed file the authors judged (malformed items included).
            parsed = release / "processed_results" / path.name
            triples = str(parsed) if layout == "authors-fs" and parsed.exists() else None
            try:
                result = import_verdicts(datasets_by_name[dataset_name], system, SOURCE, layout, str(path), triples)
            except VerdictFormatError as refusal:
                counts.refused.append(f"{path.name} ({layout}): {str(refusal)[:140]}")
                continue
            counts.files += 1
            counts.disagreeing += len(result.disagreeing)
            counts.unjudgeable += len(result.unjudgeable)
    return counts


def score_dataset(dataset: str, systems: Iterable[str], embedder: str | None) -> dict[str, dict[str, Any]]:
    """One scoring run of every column of the tables, reference rules, recorded judge; its
    system scores (``score_outputs --json``'s "systems"), its chunk progress bar on stderr."""
    from django.core.management import call_command

    out = io.StringIO()
    call_command(
        "score_outputs",
        "--dataset",
        dataset,
        "--systems",
        ",".join(systems),
        "--metrics",
        "ts,us,fs,gs,cs",
        "--rules",
        "reference",
        "--judge",
        "recorded",
        "--verdict-source",
        SOURCE,
        *(["--embedder", embedder] if embedder else []),
        "--sync",
        "--json",
        stdout=out,
    )
    return json.loads(out.getvalue())["systems"]


def table_systems(dataset: str, printed: dict[str, Any]) -> list[str]:
    """The dataset's imported systems that the printed table has a row for."""
    from scoring.models import System

    imported = set(System.objects.filter(outputs__text__dataset__name=dataset).values_list("name", flat=True))
    return [system for system in printed if system in imported]


def missing_rows(printed: dict[str, dict[str, Any]], app: dict[str, dict[str, Any]]) -> list[str]:
    """ "dataset system" of every printed row the app has no scores for."""
    return [
        f"{dataset} {system}"
        for dataset, rows in printed.items()
        for system in rows
        if system not in app.get(dataset, {})
    ]
