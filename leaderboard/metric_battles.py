"""Metric battles: pairwise verdicts from automatic scores (pure Python, no Django).

For every text and every pair of systems scored on it, the system whose score is higher by
at least ``margin`` wins; a smaller difference is a tie. Pairs where either score is missing
(None) are skipped. The result has the same shape as human judgements, so metric battles are
rated by ``annotation.ratings`` exactly like human ones and compared item by item with the
merged human labels (``leaderboard.correlation.item_agreement``).
"""

import math
from collections.abc import Hashable, Mapping, Sequence
from itertools import combinations
from numbers import Real

from annotation.agreement import TIE, A, B
from annotation.ratings import Battles

DEFAULT_MARGIN = 0.2
# Scores live in [0, 1]; differences within this of the margin count as reaching it, so that
# 0.7 − 0.5 (0.19999999999999996 in floating point) beats a 0.2 margin as it should.
MARGIN_TOLERANCE = 1e-9


def metric_labels(
    scores: Mapping[Hashable, Mapping[str, float | None]], systems: Sequence[str], margin: float = DEFAULT_MARGIN
) -> dict[tuple[Hashable, str, str], str]:
    """Labels ``{(text, system_a, system_b): "a" | "b" | "tie"}`` from automatic scores.

    ``scores`` maps each text to ``{system: score or None}`` for one aspect. ``systems`` gives
    the canonical order: each pair is keyed with the earlier system as ``system_a``. Systems
    missing from a text's scores count as missing. Texts keep the mapping's order, pairs follow
    ``systems``. Raises ValueError naming the text and system of a score that is not a finite
    number, or for a negative margin.
    """
    if not (_is_finite_number(margin) and margin >= 0):
        raise ValueError(f"margin must be a finite number ≥ 0, got {margin!r}")
    labels: dict[tuple[Hashable, str, str], str] = {}
    for text, by_system in scores.items():
        for system, score in by_system.items():
            if score is not None and not _is_finite_number(score):
                raise ValueError(f"text {text!r}, system {system!r}: score {score!r} is not a finite number")
        for system_a, system_b in combinations(systems, 2):
            score_a, score_b = by_system.get(system_a), by_system.get(system_b)
            if score_a is None or score_b is None:
                continue
            labels[text, system_a, system_b] = _verdict(score_a - score_b, margin)
    return labels


def metric_battles(
    scores: Mapping[Hashable, Mapping[str, float | None]], systems: Sequence[str], margin: float = DEFAULT_MARGIN
) -> Battles:
    """:class:`~annotation.ratings.Battles` from automatic scores, over ``systems`` in order."""
    labels = metric_labels(scores, systems, margin)
    return Battles.from_labels(
        ((system_a, system_b, label) for (_, system_a, system_b), label in labels.items()), systems=list(systems)
    )


def _verdict(difference: float, margin: float) -> str:
    # A win needs a strictly higher score even when the margin is 0.
    if difference > 0 and difference >= margin - MARGIN_TOLERANCE:
        return A
    if difference < 0 and -difference >= margin - MARGIN_TOLERANCE:
        return B
    return TIE


def _is_finite_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)
