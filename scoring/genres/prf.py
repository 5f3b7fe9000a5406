"""Exact and relaxed precision, recall and F1 of extracted triples against gold triples.

Both count each distinct triple once (after normalisation), so a repeated triple neither helps
nor hurts here; uniqueness is the metric that penalises repeats. An empty output has precision 0,
recall 0 and F1 0. A text without gold triples has no P/R/F1 at all (None), and is left out of
the averages.
"""

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

from scoring.genres.triples import Triple

WORD = re.compile(r"\w+")


class PRF(NamedTuple):
    precision: float
    recall: float
    f1: float


def normalise_triple(triple: Triple) -> tuple[str, ...]:
    """Case-folded elements with runs of whitespace collapsed to one space."""
    return tuple(" ".join(element.split()).casefold() for element in triple)


def distinct_triples(triples: Iterable[Triple]) -> list[tuple[str, ...]]:
    return list(dict.fromkeys(normalise_triple(triple) for triple in triples))


def _prf(matched: int, predicted: int, gold: int) -> PRF:
    precision = matched / predicted if predicted else 0.0
    recall = matched / gold
    f1 = 2 * precision * recall / (precision + recall) if matched else 0.0
    return PRF(precision, recall, f1)


def exact_prf(predicted: Iterable[Triple], gold: Iterable[Triple]) -> PRF | None:
    """P/R/F1 where a predicted triple counts when it equals a gold triple after normalisation."""
    gold_set = set(distinct_triples(gold))
    if not gold_set:
        return None
    predicted_set = set(distinct_triples(predicted))
    return _prf(len(predicted_set & gold_set), len(predicted_set), len(gold_set))


def _token_sets(element: str) -> frozenset[str]:
    # Elements with no word character ("%", "-") are compared whole.
    return frozenset(WORD.findall(element)) or frozenset([element])


def _jaccard_matrix(left: Sequence[frozenset[str]], right: Sequence[frozenset[str]]) -> np.ndarray:
    """Token Jaccard of every left element against every right element, as one matrix."""
    vocabulary = {token: index for index, token in enumerate(set[str]().union(*left, *right))}

    def incidence(sets: Sequence[frozenset[str]]) -> np.ndarray:
        matrix = np.zeros((len(sets), len(vocabulary)))
        for row, tokens in enumerate(sets):
            matrix[row, [vocabulary[token] for token in tokens]] = 1.0
        return matrix

    left_matrix, right_matrix = incidence(left), incidence(right)
    shared = left_matrix @ right_matrix.T
    union = left_matrix.sum(axis=1)[:, None] + right_matrix.sum(axis=1)[None, :] - shared
    return shared / union


def relaxed_matches(predicted: Sequence[Triple], gold: Sequence[Triple], threshold: float = 0.5) -> np.ndarray:
    """Matrix of which distinct predicted triples may match which distinct gold triples.

    A pair may match when subject, relation and object each reach token Jaccard ≥ ``threshold``.
    """
    roles = range(3)
    allowed = np.ones((len(predicted), len(gold)), dtype=bool)
    for role in roles:
        jaccard = _jaccard_matrix([_token_sets(t[role]) for t in predicted], [_token_sets(t[role]) for t in gold])
        allowed &= jaccard >= threshold
    return allowed


def relaxed_prf(predicted: Iterable[Triple], gold: Iterable[Triple], threshold: float = 0.5) -> PRF | None:
    """P/R/F1 under a one-to-one matching of near-equal triples.

    The matching is a maximum bipartite matching (``scipy.optimize.linear_sum_assignment`` on the
    0/1 matrix from ``relaxed_matches``), so the count of matched pairs is the largest possible
    and never depends on the order of the triples, as a greedy pass would.
    """
    from scipy.optimize import linear_sum_assignment  # here, not at start-up: 0.5 s to import

    gold_distinct = distinct_triples(gold)
    if not gold_distinct:
        return None
    predicted_distinct = distinct_triples(predicted)
    if not predicted_distinct:
        return PRF(0.0, 0.0, 0.0)
    allowed = relaxed_matches(predicted_distinct, gold_distinct, threshold)
    rows, columns = linear_sum_assignment(allowed, maximize=True)
    matched = int(np.count_nonzero(allowed[rows, columns]))
    return _prf(matched, len(predicted_distinct), len(gold_distinct))
