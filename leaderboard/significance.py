"""How sure a GENRES ranking is: bootstrap intervals over texts, paired tests, tied ranks (pure numpy).

Input per aspect is the per-text scores ``{text: {system: score}}`` (a score of None, or a
missing system, is a text the system is not scored on). Everything runs on one texts × systems
matrix, all rounds at once:

* :func:`mean_intervals`: each system's mean over its texts with a 95% percentile bootstrap
  interval. The texts are resampled jointly for all systems (one multinomial draw of text
  counts per round; each system's mean in a round is its weighted mean over the texts it has),
  so the whole bootstrap is one matrix product.
* :func:`paired_tests`: for every pair of systems, a two-sided paired permutation (sign-flip)
  test of the mean per-text difference on the texts both have: under "no difference" each
  text's difference is as likely to have either sign. With few texts every sign pattern is
  enumerated (the exact test); otherwise ``rounds`` random patterns are drawn, shared by all
  pairs, and p = (1 + patterns at least as extreme) / (1 + rounds). The p-values of all pairs
  of one aspect are then Holm-corrected (:func:`holm`).
* :func:`significance_ranks`: ranks that tie systems whose difference is not significant:
  ``best = 1 + #systems significantly better``, ``worst = #systems − #systems significantly
  worse``, the same shape as ``leaderboard.correlation.interval_ranks`` gives human ratings.
* :func:`interval_separation`: the human side's matrix, from rating intervals: a pair is
  separated when the two 95% intervals do not overlap (the rule of ``interval_ranks``).

Everything is seeded: the same scores give the same intervals and p-values, build after build.
"""

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

INTERVAL_ROUNDS = 1000
INTERVAL_PERCENTILES = (2.5, 97.5)
# Holm over the 105 pairs of 15 systems asks the smallest p-value to lie below 0.05 / 105 ≈ 0.0005:
# a Monte Carlo p-value cannot go below 1 / (1 + rounds), so 1,000 rounds could never reach it.
PERMUTATION_ROUNDS = 10_000
ALPHA = 0.05
SEED = 0
# Sign patterns drawn per matrix product: bounds memory (2,000 × texts float64) whatever the rounds.
_BLOCK = 2000
# A permuted statistic this close to the observed one counts as "as extreme" (float sums of
# the same terms in another order differ in the last bits; float32 sums in the last few).
_TOLERANCE = 1e-9
_MONTE_CARLO_TOLERANCE = 1e-5

# {text: {system: score or None}}
PerText = Mapping[Any, Mapping[str, float | None]]


def score_matrix(per_text: PerText, systems: Sequence[str]) -> np.ndarray:
    """A texts × systems float array of ``per_text`` scores, NaN where a system has no score."""
    column = {system: index for index, system in enumerate(systems)}
    matrix = np.full((len(per_text), len(systems)), np.nan)
    for row, by_system in enumerate(per_text.values()):
        for system, score in by_system.items():
            if score is not None and system in column:
                matrix[row, column[system]] = score
    return matrix


def mean_intervals(
    scores: np.ndarray, rounds: int = INTERVAL_ROUNDS, seed: int = SEED
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per system (column of ``scores``): ``(means, ci_low, ci_high, texts)`` as arrays.

    A system without any score has mean and interval NaN; a bootstrap round that happens to
    draw none of a system's texts is left out of that system's percentiles.
    """
    _check_rounds(rounds)
    scored = ~np.isnan(scores)
    texts = scored.sum(axis=0)
    values = np.where(scored, scores, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = values.sum(axis=0) / texts
    count = len(scores)
    if count == 0:
        nan = np.full(scores.shape[1], np.nan)
        return means, nan, nan.copy(), texts
    weights = np.random.default_rng(seed).multinomial(count, np.full(count, 1 / count), size=rounds).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        samples = (weights @ values) / (weights @ scored)
        low, high = np.nanpercentile(samples, INTERVAL_PERCENTILES, axis=0)
    return means, low, high, texts


def paired_differences(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The pairs ``(i, j)``, i < j, and per pair the texts × pairs matrix of differences i − j.

    A text lacking either system's score contributes 0 (it is left out of that pair's test).
    Returns ``(first, second, differences, shared)`` with ``shared`` the texts per pair.
    """
    first, second = np.triu_indices(scores.shape[1], k=1)
    differences = scores[:, first] - scores[:, second]
    shared = (~np.isnan(differences)).sum(axis=0)
    return first, second, np.nan_to_num(differences, nan=0.0), shared


def sign_flip_p_values(differences: np.ndarray, rounds: int = PERMUTATION_ROUNDS, seed: int = SEED) -> np.ndarray:
    """Two-sided paired permutation p-values, one per column of the texts × pairs ``differences``.

    Exact (every sign pattern) when there are at most ``rounds`` patterns, else Monte Carlo.
    """
    _check_rounds(rounds)
    count, pairs = differences.shape
    observed = np.abs(differences.sum(axis=0))
    threshold = observed - _TOLERANCE * np.maximum(1.0, observed)
    extreme = np.zeros(pairs, dtype=np.int64)
    if count < 63 and 2**count <= rounds:
        patterns = 2**count
        for start in range(0, patterns, _BLOCK):
            codes = np.arange(start, min(start + _BLOCK, patterns))
            signs = 1.0 - 2.0 * ((codes[:, None] >> np.arange(count)) & 1)
            extreme += (np.abs(signs @ differences) >= threshold).sum(axis=0)
        return extreme / patterns
    # Random patterns in float32, drawn as bits: the statistic is sum(d) − 2 · (flipped texts' d),
    # and drawing and multiplying them is most of the build's cost for this module.
    rng = np.random.default_rng(seed)
    total = differences.sum(axis=0)
    single = differences.astype(np.float32)
    loose = observed - _MONTE_CARLO_TOLERANCE * np.maximum(1.0, observed)
    for start in range(0, rounds, _BLOCK):
        size = min(_BLOCK, rounds - start)
        bits = rng.integers(0, 256, size=(size, -(-count // 8)), dtype=np.uint8)
        flipped = np.unpackbits(bits, axis=1, count=count).astype(np.float32)
        extreme += (np.abs(total - 2.0 * (flipped @ single)) >= loose).sum(axis=0)
    return (1 + extreme) / (1 + rounds)


def holm(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values (each adjusted p, capped at 1)."""
    values = np.asarray(p_values, dtype=float)
    size = len(values)
    order = np.argsort(values, kind="stable")
    stepped = np.maximum.accumulate((size - np.arange(size)) * values[order])
    adjusted = np.empty(size)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def significance_ranks(better: np.ndarray) -> list[tuple[int, int]]:
    """Rank ranges ``[(best, worst)]`` from a boolean matrix: ``better[i, j]`` is i significantly above j."""
    size = len(better)
    above_me = better.sum(axis=0)
    below_me = better.sum(axis=1)
    return [(1 + int(above_me[index]), size - int(below_me[index])) for index in range(size)]


def paired_tests(
    scores: np.ndarray, rounds: int = PERMUTATION_ROUNDS, seed: int = SEED, alpha: float = ALPHA
) -> dict[str, np.ndarray]:
    """Every pair of columns of ``scores`` tested, Holm-corrected over the pairs.

    Returns square matrices (systems × systems, diagonal None): ``difference`` (row mean −
    column mean on the texts both have), ``shared`` (those texts), ``p_value`` (Holm-adjusted;
    None where no text is shared) and ``better`` (boolean: the row is significantly above).
    """
    size = scores.shape[1]
    first, second, differences, shared = paired_differences(scores)
    testable = shared > 0
    p_raw = np.full(len(first), np.nan)
    if testable.any():
        p_raw[testable] = sign_flip_p_values(differences[:, testable], rounds, seed)
    adjusted = np.full(len(first), np.nan)
    adjusted[testable] = holm(p_raw[testable])
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_difference = differences.sum(axis=0) / shared
    difference = np.full((size, size), np.nan)
    p_value = np.full((size, size), np.nan)
    count = np.zeros((size, size), dtype=int)
    difference[first, second], difference[second, first] = mean_difference, -mean_difference
    p_value[first, second] = p_value[second, first] = adjusted
    count[first, second] = count[second, first] = shared
    better = (p_value < alpha) & (difference > 0)
    return {"difference": difference, "shared": count, "p_value": p_value, "better": better}


def score_significance(
    per_text: PerText,
    systems: Sequence[str],
    interval_rounds: int = INTERVAL_ROUNDS,
    test_rounds: int = PERMUTATION_ROUNDS,
    seed: int = SEED,
) -> dict[str, Any]:
    """One aspect's intervals, paired tests and tied ranks, as JSON-ready data.

    ``systems`` orders the matrices; a system with no score on any text is left out. Returns::

        {"systems": [...],
         "intervals": {system: {"mean", "ci_low", "ci_high", "texts"}},
         "rank": {system: [best, worst]},
         "difference": [[float | None]], "p_value": [[float | None]], "shared": [[int]]}
    """
    scores = score_matrix(per_text, systems)
    present = ~np.isnan(scores).all(axis=0)
    shown = [system for system, keep in zip(systems, present, strict=True) if keep]
    scores = scores[:, present]
    means, low, high, texts = mean_intervals(scores, interval_rounds, seed)
    tests = paired_tests(scores, test_rounds, seed)
    ranks = significance_ranks(tests["better"])
    return {
        "systems": shown,
        "intervals": {
            system: {"mean": _value(mean), "ci_low": _value(lo), "ci_high": _value(hi), "texts": int(count)}
            for system, mean, lo, hi, count in zip(shown, means, low, high, texts, strict=True)
        },
        "rank": {system: list(rank) for system, rank in zip(shown, ranks, strict=True)},
        "difference": _matrix(tests["difference"]),
        "p_value": _matrix(tests["p_value"]),
        "shared": tests["shared"].tolist(),
    }


def direction(difference: float, p_value: float | None, alpha: float = ALPHA) -> int | None:
    """1 when a pair's row system is significantly above, −1 below, 0 neither; None when untested."""
    if p_value is None:
        return None
    return 0 if p_value >= alpha else (1 if difference > 0 else -1)


INTERVAL_FIELDS = ("aspect", "system", "mean", "ci_low", "ci_high", "texts", "rank_best", "rank_worst")
PAIR_FIELDS = ("aspect", "system", "opponent", "difference", "p_holm", "shared_texts", "apart")


def interval_records(tests_by_aspect: Mapping[str, dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Rows of :data:`INTERVAL_FIELDS` from :func:`score_significance` results per aspect."""
    for aspect, tests in tests_by_aspect.items():
        for system, entry in tests["intervals"].items():
            best, worst = tests["rank"][system]
            yield {"aspect": aspect, "system": system, **entry, "rank_best": best, "rank_worst": worst}


def pair_records(tests_by_aspect: Mapping[str, dict[str, Any]], alpha: float = ALPHA) -> Iterator[dict[str, Any]]:
    """Every tested ordered pair: ``{aspect, system, opponent, difference, p_holm, shared_texts, apart}``."""
    for aspect, tests in tests_by_aspect.items():
        for row, system in enumerate(tests["systems"]):
            for column, opponent in enumerate(tests["systems"]):
                p_value = tests["p_value"][row][column]
                if p_value is None:
                    continue
                difference = tests["difference"][row][column]
                yield {
                    "aspect": aspect,
                    "system": system,
                    "opponent": opponent,
                    "difference": difference,
                    "p_holm": p_value,
                    "shared_texts": tests["shared"][row][column],
                    "apart": direction(difference, p_value, alpha),
                }


def interval_separation(board: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    """The human side: ``{"systems", "separated"}`` from a ratings board ``{system: {"rating", "ci_low", "ci_high"}}``.

    ``separated[i][j]`` is 1 when row i's interval lies wholly above column j's, −1 when wholly
    below, 0 when they overlap, None on the diagonal; ``difference`` is the rating difference.
    """
    systems = list(board)
    low = np.array([board[system]["ci_low"] for system in systems], dtype=float)
    high = np.array([board[system]["ci_high"] for system in systems], dtype=float)
    rating = np.array([board[system]["rating"] for system in systems], dtype=float)
    separated = (low[:, None] > high[None, :]).astype(float) - (high[:, None] < low[None, :])
    np.fill_diagonal(separated, np.nan)
    difference = rating[:, None] - rating[None, :]
    np.fill_diagonal(difference, np.nan)
    return {"systems": systems, "separated": _matrix(separated), "difference": _matrix(difference)}


def _value(number: float) -> float | None:
    return None if np.isnan(number) else float(number)


def _matrix(array: np.ndarray) -> list[list[float | None]]:
    return [[_value(number) for number in row] for row in array]


def _check_rounds(rounds: int) -> None:
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, not {rounds}")
