"""φ on the paper's scale: the threshold at which an offline embedder's US and CS match the release's levels.

The paper's φ, 0.95 for US and 0.90 for CS, are cosines of OpenAI's ada-002, whose cosines crowd
near 1; an offline embedder spreads its cosines differently, so the same value means another
share of pairs. Its default φ (``scoring.genres.calibration``) separates paraphrases from other
facts; this finds instead the φ at which its system means come closest to the authors' own
per-system results (``GREScores/results_new/US.json``, ``GREScores/results/CS_old.json``: one
value per system and dataset, equal to the printed column in 83 of 90 and 82 of 84 cells), a
calibration on *levels*, under the reference rules. For every φ of a grid it scores every system
of the chosen datasets once (each system's triples embedded once), then prints per aspect:

- τ against the printed column per dataset at each φ (every ``--every``): the curve, so the
  choice is visible;
- the φ with the least squared error against the release's files summed over the ``--fit``
  datasets (their printed column is almost the file, so τ on a fitted dataset is not held out);
- for each dataset, the φ fitted on the *other* datasets' files and τ there (held out), beside
  τ at the embedder's default φ and over only the systems whose printed cell is the file's.

    python -m benchmarks.paper_scale --release ~/GenRES --paper published-tables.json --embedder hashing
        [--datasets cdr,docred] [--fit cdr] [--thresholds 0.30:0.95:0.01] [--every 0.05] [--vectors FILE]

The fitted values are the thresholds of the calibrated settings (``paper_rankings.PAPER_SCALE_THRESHOLDS``).
"""

import argparse
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.paper_rankings import (
    DATASETS,
    GROUND_TRUTH,
    SAMPLE_SIZES,
    SEEDS,
    Benchmark,
    kendall_tau,
    load_benchmark,
    load_vectors,
    printed_column,
    save_vectors,
    tau_text,
)
from scoring.genres.embedders import Embedder, get_embedder
from scoring.genres.scorer import mean
from scoring.genres.similarity import completeness, embed_triple_lists, reference_uniqueness

RELEASED = {"us": "GREScores/results_new/US.json", "cs": "GREScores/results/CS_old.json"}
CALIBRATED = ("us", "cs")
Curve = list[dict[str, float | None]]  # per φ of the grid: system → mean


def released_means(release: Path, dataset: str, aspect: str, systems: list[str]) -> dict[str, float]:
    """The release's per-system value of ``aspect`` on ``dataset``, for the systems it holds."""
    block = json.loads((release / RELEASED[aspect]).read_text()).get(f"{dataset}_rand_{SAMPLE_SIZES[dataset]}", {})
    means = {}
    for system in systems:
        # US.json names a system by its output file, seed included ("llama-2-7b-1"); CS_old.json by name.
        key = next((key for key in (*(f"{system}-{seed}" for seed in SEEDS), system) if key in block), None)
        if key is not None:
            means[system] = float(block[key])
    return means


def system_curves(benchmark: Benchmark, embedder: Embedder, thresholds: list[float]) -> dict[str, Curve]:
    """Each system's mean us and cs under the reference rules at each φ of ``thresholds``.

    The metric functions are the scorer's (``similarity``); calling them directly, with each
    system's triples embedded once for the whole grid, keeps a sweep of many φ in seconds.
    """
    curves: dict[str, Curve] = {aspect: [{} for _ in thresholds] for aspect in CALIBRATED}
    for system in benchmark.outputs:
        records = benchmark.records(system)
        embeddings = embed_triple_lists([r.triples for r in records] + [r.gold for r in records], embedder)
        extracted, gold = embeddings[: len(records)], embeddings[len(records) :]
        for index, threshold in enumerate(thresholds):
            curves["us"][index][system] = mean(reference_uniqueness(each, threshold) for each in extracted)
            curves["cs"][index][system] = mean(
                completeness(each, own_gold, threshold) for each, own_gold in zip(extracted, gold, strict=True)
            )
    return curves


def squared_error(means: dict[str, float | None], released: dict[str, float]) -> float:
    errors = [(ours - value) ** 2 for system, value in released.items() if (ours := means.get(system)) is not None]
    return float(sum(errors))


def fitted_index(curves: dict[str, Curve], released: dict[str, dict[str, float]], datasets: list[str]) -> int:
    """The grid index whose system means are closest to the release's, summed over ``datasets``."""
    length = len(next(iter(curves.values())))
    return min(range(length), key=lambda index: sum(squared_error(curves[d][index], released[d]) for d in datasets))


def printed_as_released(printed: dict[str, float], released: dict[str, float]) -> dict[str, float]:
    """The printed cells that are the release's value at the printed decimal (a percentage)."""
    return {
        system: value
        for system, value in printed.items()
        if system in released and abs(value - 100 * released[system]) < 0.051
    }


def parse_grid(spec: str) -> list[float]:
    """``start:stop:step`` (both ends included) or a comma-separated list of thresholds."""
    if ":" in spec:
        start, stop, step = (float(part) for part in spec.split(":"))
        return [round(value, 4) for value in np.arange(start, stop + step / 2, step)]
    return [float(part) for part in spec.split(",")]


def rank_fitted_index(taus: dict[str, list[float | None]], datasets: list[str]) -> int:
    """The grid index with the highest mean τ over ``datasets`` (a fit on their printed ranks)."""
    length = len(next(iter(taus.values())))

    def mean_tau(index: int) -> float:
        present = [tau for dataset in datasets if (tau := taus[dataset][index]) is not None]
        return sum(present) / len(present) if present else -math.inf

    return max(range(length), key=mean_tau)


def print_aspect(aspect: str, grid: list[float], data: dict[str, Any], fit: list[str], every: float) -> None:
    """The τ curve per dataset, the two fits on ``fit``, and each dataset held out of both fits."""
    datasets = list(data["curves"])
    curves = {dataset: data["curves"][dataset][aspect] for dataset in datasets}
    released = {dataset: data["released"][dataset][aspect] for dataset in datasets}
    printed = {dataset: data["printed"][dataset][aspect] for dataset in datasets}
    taus = {dataset: [kendall_tau(means, printed[dataset]) for means in curves[dataset]] for dataset in datasets}
    by_levels, by_ranks = fitted_index(curves, released, fit), rank_fitted_index(taus, fit)
    print(f"\n{aspect}: Kendall τ against the printed column at each φ\n")
    print(f"| φ | {' | '.join(datasets)} |\n|" + " --- |" * (1 + len(datasets)))
    step = max(1, round(every / (grid[1] - grid[0]))) if len(grid) > 1 else 1
    for index in sorted({*range(0, len(grid), step), by_levels, by_ranks}):
        marker = " (levels)" * (index == by_levels) + " (ranks)" * (index == by_ranks)
        print(f"| {grid[index]:.2f}{marker} | {' | '.join(tau_text(taus[d][index]) for d in datasets)} |")
    print(f"\n{aspect}, fitted on {', '.join(fit)}: levels (least squared error against the release's files) φ")
    print(f"{grid[by_levels]:.2f}; ranks (highest mean τ against the printed columns) φ {grid[by_ranks]:.2f}")
    print(
        "\n| dataset | φ by levels, fitted on the others | τ there | τ there, cells printed as released "
        "| φ by ranks, fitted on the others | τ there | τ at the default φ |\n|" + " --- |" * 7
    )
    for dataset in datasets:
        default_tau = tau_text(kendall_tau(data["default"][dataset][aspect], printed[dataset]))
        others = [other for other in datasets if other != dataset]
        if not others:
            print(f"| {dataset} | – | – | – | – | – | {default_tau} |")
            continue
        levels, ranks = fitted_index(curves, released, others), rank_fitted_index(taus, others)
        as_released = printed_as_released(printed[dataset], released[dataset])
        print(
            f"| {dataset} | {grid[levels]:.2f} | {tau_text(taus[dataset][levels])} | "
            f"{tau_text(kendall_tau(curves[dataset][levels], as_released))} ({len(as_released)}) | "
            f"{grid[ranks]:.2f} | {tau_text(taus[dataset][ranks])} | {default_tau} |"
        )


def measure(
    release: Path,
    paper: dict[str, Any],
    datasets: list[str],
    embedder: Embedder,
    grid: list[float],
    after_each: Callable[[], None] = lambda: None,
) -> dict[str, Any]:
    """Curves at the grid and at the embedder's default φ, the release's files and the printed columns;
    ``after_each`` is called after each dataset (to keep the vectors)."""
    data: dict[str, Any] = {"curves": {}, "default": {}, "released": {}, "printed": {}}
    for dataset in datasets:
        started = time.perf_counter()
        systems = [system for system in paper[dataset] if system != GROUND_TRUTH]
        benchmark = load_benchmark(release, dataset, systems)
        data["curves"][dataset] = system_curves(benchmark, embedder, grid)
        default = system_curves(benchmark, embedder, [embedder.default_threshold])
        data["default"][dataset] = {aspect: default[aspect][0] for aspect in CALIBRATED}
        data["released"][dataset] = {aspect: released_means(release, dataset, aspect, systems) for aspect in CALIBRATED}
        data["printed"][dataset] = {aspect: printed_column(paper, dataset, aspect) for aspect in CALIBRATED}
        print(f"{dataset}: {time.perf_counter() - started:.0f} s (load {os.getloadavg()[0]:.1f})", flush=True)
        after_each()
    return data


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--release", type=Path, required=True, help="a clone of the authors' repository")
    parser.add_argument("--paper", type=Path, required=True, help="published-tables.json: the printed tables")
    parser.add_argument("--embedder", default="hashing", help="hashing or minilm")
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated, of the six")
    parser.add_argument("--fit", help="the datasets whose release files φ is fitted on (default: all measured)")
    parser.add_argument("--thresholds", default="0.30:0.95:0.01", help="start:stop:step, or a list")
    parser.add_argument("--every", type=float, default=0.05, help="the τ curve's step")
    parser.add_argument("--vectors", type=Path, help="a pickle file of embedding vectors, read and kept up to date")
    args = parser.parse_args(argv)
    paper = json.loads(args.paper.read_text())["tables"]
    datasets = args.datasets.split(",")
    vectors = load_vectors(args.vectors)
    embedder = get_embedder(args.embedder, cache=vectors)
    grid = parse_grid(args.thresholds)
    data = measure(args.release, paper, datasets, embedder, grid, lambda: save_vectors(args.vectors, vectors))
    fit = args.fit.split(",") if args.fit else datasets
    print(f"\n{args.embedder} ({embedder.model}), default φ {embedder.default_threshold}, reference rules")
    for aspect in CALIBRATED:
        print_aspect(aspect, grid, data, fit, args.every)


if __name__ == "__main__":
    main()
