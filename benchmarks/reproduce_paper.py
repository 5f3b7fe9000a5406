"""The paper's Table 2 (#triples, tokens per triple, fs, gs) from the authors' release, through the app's commands.

Follows docs/reproducing.md steps 2 to 4 on a throw-away database, with the app's own management
commands (called in this one process, which spares a Django start-up per file): writes the
benchmark's dataset files into ``RELEASE/benchmark/``, ``import_benchmark`` the seed-1 parsed
outputs, ``import_verdicts`` every system's recorded factualness and granularity verdicts,
``score_outputs --rules reference --judge recorded`` per dataset. Then prints, per dataset and
system, the app's figures beside the release's:

* #triples and tokens per triple: ``GREScores/results/average_num_triples.json`` and
  ``average_num_tokens_per_triple.json``;
* fs: ``GREScores/results/FS.json`` (the published Table 2 column);
* gs: ``GREScores/results_new/GS.json`` (the published column; ``results/GS.json`` is an older
  rule, see docs/metrics.md).

Nothing of the release is copied into this repository: the script reads a clone given by path.

    python -m benchmarks.reproduce_paper --release ~/GenRES [--datasets cdr,docred] [--var DIR]
"""

import argparse
import io
import json
import os
import re
import tempfile
import time
from pathlib import Path

DATASETS = ("cdr", "docred", "nyt10m", "wiki20m", "tacred", "wiki80")
SOURCE = "genres"
VERDICT_FILE = re.compile(r"(?P<dataset>[a-z0-9]+)_rand_(?P<size>\d+)_(?P<model>.+)_(?P<seed>\d+)")


def write_dataset_files(release: Path) -> None:
    """docs/reproducing.md step 2: each benchmark's sampled texts with their processed gold triples."""
    (release / "benchmark").mkdir(exist_ok=True)
    for sample in sorted((release / "datasets").glob("*_rand_*.json")):
        name = sample.name.split("_rand_")[0]
        gold = json.loads((release / "datasets" / "processed" / f"{name}_processed.json").read_text())
        texts = json.loads(sample.read_text())
        (release / "benchmark" / f"{name}.json").write_text(json.dumps({text: gold.get(text, []) for text in texts}))


def import_release_verdicts(release: Path, datasets: tuple[str, ...]) -> dict[str, int]:
    """docs/reproducing.md step 4's loop: every seed-1 system's fs and gs verdicts; returns counts of
    what import_verdicts reported (triples with two different verdicts, unjudgeable items, skipped files)."""
    from django.core.management import CommandError, call_command

    counts = {"files": 0, "disagreeing": 0, "unjudgeable": 0, "no parsed file": 0, "refused": 0}
    for fs_file in sorted((release / "GREScores" / "factualness").glob("*_rand_*_*.json")):
        match = VERDICT_FILE.fullmatch(fs_file.stem)
        if not match or match["dataset"] not in datasets or match["size"] == "100" or match["model"] == "groundtruth":
            continue
        if match["seed"] != "1":
            continue  # the replicates (wiki20m, Figure 4) are not in Table 2
        parsed = release / "processed_results" / fs_file.name
        if not parsed.exists():
            counts["no parsed file"] += 1
            continue
        common = ["--dataset", match["dataset"], "--system", match["model"], "--source", SOURCE]
        for layout, path, extra in (
            ("authors-fs", fs_file, ["--triples", str(parsed)]),
            ("authors-gs", release / "GREScores" / "granularity" / fs_file.name, []),
        ):
            warnings = io.StringIO()
            try:
                call_command(
                    "import_verdicts",
                    str(path),
                    *common,
                    "--layout",
                    layout,
                    *extra,
                    stdout=io.StringIO(),
                    stderr=warnings,
                )
            except CommandError as refusal:  # a release file that does not fit its outputs: reported
                counts["refused"] += 1
                print(f"  {path.name} ({layout}) refused: {str(refusal)[:160]}", flush=True)
                continue
            for line in warnings.getvalue().splitlines():
                if "two different verdicts" in line:
                    counts["disagreeing"] += int(line.split()[0])
                elif "non-string element" in line:
                    counts["unjudgeable"] += int(line.split()[0])
        counts["files"] += 1
    return counts


def reference_figures(release: Path) -> dict[str, dict]:
    results = release / "GREScores"
    load = lambda path: json.loads((results / path).read_text())  # noqa: E731
    published_gs = {
        dataset: {model.removesuffix("-1"): value for model, value in by_model.items()}
        for dataset, by_model in load("results_new/GS.json").items()
    }
    return {
        "triples": load("results/average_num_triples.json"),
        "tokens": load("results/average_num_tokens_per_triple.json"),
        "fs": load("results/FS.json"),
        "gs": published_gs,
    }


def cell(app: float | None, reference: float | None, scale: float, digits: int) -> tuple[str, bool]:
    """ "app / reference" and whether they are equal at the table's precision."""
    shown = [("–" if value is None else f"{value * scale:.{digits}f}") for value in (app, reference)]
    return f"{shown[0]} / {shown[1]}", shown[0] == shown[1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", required=True, type=Path, help="a clone of the authors' repository")
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated, default all six")
    parser.add_argument("--var", help="GENRES_VAR_DIR to use (default: a new temporary directory)")
    arguments = parser.parse_args(argv)
    release = arguments.release.expanduser().resolve()
    datasets = tuple(arguments.datasets.split(","))

    var_dir = arguments.var or tempfile.mkdtemp(prefix="genres-reproduce-")
    os.environ.update(GENRES_VAR_DIR=var_dir, DJANGO_SETTINGS_MODULE="genres_site.settings")
    os.environ.pop("DATABASE_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    from scoring.models import ImportedVerdict

    started, cpu = time.perf_counter(), time.process_time()
    print(f"var directory {var_dir}; load average {os.getloadavg()}", flush=True)
    call_command("migrate", verbosity=0)
    write_dataset_files(release)
    call_command(
        "import_benchmark",
        str(release),
        "--datasets",
        "benchmark/{dataset}.json",
        "--outputs",
        "processed_results/{dataset}_rand_{size}_{system}_{seed}.json",
        "--skip",
        "*_rand_100_*",
        "--skip",
        "*groundtruth*",
        "--main-seed",
        "1",
        "--lenient",
        *(
            f"--skip={pattern}"
            for other in DATASETS
            if other not in datasets
            for pattern in (f"{other}.json", f"{other}_rand_*")
        ),
        stdout=io.StringIO(),
    )
    counts = import_release_verdicts(release, datasets)
    print(f"verdicts imported for {counts['files']} systems × datasets: {counts}", flush=True)

    reference = reference_figures(release)
    totals = {"triples": [0, 0], "tokens": [0, 0], "fs": [0, 0], "gs": [0, 0]}
    for dataset in datasets:
        out = io.StringIO()
        # The seed-1 systems with verdicts (Table 2), not the replicates.
        systems = ",".join(
            ImportedVerdict.objects.filter(source=SOURCE, text__dataset__name=dataset)
            .values_list("system__name", flat=True)
            .distinct()
        )
        call_command(
            "score_outputs",
            "--dataset",
            dataset,
            "--systems",
            systems,
            "--rules",
            "reference",
            "--metrics",
            "fs,gs",
            "--judge",
            "recorded",
            "--verdict-source",
            SOURCE,
            "--sync",
            "--json",
            stdout=out,
            stderr=io.StringIO(),
        )
        result = json.loads(out.getvalue())
        key = next(name for name in reference["fs"] if name.startswith(f"{dataset}_rand_"))
        print(f"\n{dataset} (missing verdicts: {result.get('missing_verdicts', 0)}); app / release")
        print("| system | #triples | tokens/triple | FS | GS |")
        print("| --- | --- | --- | --- | --- |")
        for system, scores in sorted(result["systems"].items()):
            if "(seed" in system:
                continue
            row = []
            for column, value, scale, digits in (
                ("triples", scores.get("triples_per_text"), 1, 2),
                ("tokens", scores.get("tokens_per_triple"), 1, 2),
                ("fs", scores.get("fs"), 100, 1),
                ("gs", scores.get("gs"), 100, 1),
            ):
                expected = reference[column].get(key, {}).get(system)
                text, equal = cell(value, expected, scale, digits)
                if expected is not None:
                    totals[column][0] += equal
                    totals[column][1] += 1
                row.append(text if equal or expected is None else f"**{text}**")
            print(f"| {system} | " + " | ".join(row) + " |")
    print("\nequal at the table's precision: " + ", ".join(f"{name} {hit}/{of}" for name, (hit, of) in totals.items()))
    print(
        f"{time.perf_counter() - started:.0f} s, {time.process_time() - cpu:.0f} s CPU; load average at the end "
        f"{os.getloadavg()}"
    )


if __name__ == "__main__":
    main()
