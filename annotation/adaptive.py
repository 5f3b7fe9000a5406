"""Adaptive pair order: serve next the pairs whose order is least certain (pure numpy, no Django).

Chatbot Arena spends its votes where the ranking is still open; a campaign with the adaptive
pair order does the same with its queue. After each save, the pairs still pending are ordered
by how uncertain the current judgements leave their order:

* per aspect, a Bradley–Terry bootstrap of the merged battles so far
  (``annotation.ratings.bootstrap_bradley_terry``, :data:`UNCERTAINTY_ROUNDS` rounds); a pair's
  uncertainty is the share of rounds that order the two systems against the majority of rounds,
  ``min(P(r_a > r_b), P(r_b > r_a))`` with ties counted half: 0.5 for a pair nothing separates
  yet (overlapping rating intervals), 0 for a pair every round orders alike (intervals apart);
* over the five aspects, the mean: every item is judged on all five.

The Ground-truth reveal rule is kept: completeness of a text is judged only once every pair of
that text in the annotator's queue has its four first aspects. So :func:`choose` serves a text
whose gold is revealed first (its completeness, in queue order); otherwise the pending pair with
the highest uncertainty, then the fewest battles, then the queue order. Before the first
judgement every pair is at 0.5 and nothing has been judged: the queue order, as without the option.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from annotation import ratings

UNCERTAINTY_ROUNDS = 100

# {frozenset({a, b}): (uncertainty, battles of the pair)}
Priorities = dict[frozenset[str], tuple[float, int]]


@dataclass(frozen=True)
class Candidate:
    """One pending assignment of the annotator, as the choice sees it."""

    key: object  # the assignment's id, returned when chosen
    text: object
    pair: tuple[str, str]  # (system A, system B) names, either order
    position: int  # queue position
    first_aspects_done: bool  # the four first aspects are saved: only completeness is left


def order_uncertainty(battles: ratings.Battles, rounds: int = UNCERTAINTY_ROUNDS, seed: int = 0) -> np.ndarray:
    """A systems × systems array: per pair, the bootstrap share of rounds ordering it against the majority."""
    samples = ratings.bootstrap_bradley_terry(battles, rounds=rounds, seed=seed)
    above = (samples[:, :, None] > samples[:, None, :]).mean(axis=0)
    above += 0.5 * (samples[:, :, None] == samples[:, None, :]).mean(axis=0)
    return np.minimum(above, above.T)


def pair_priorities(
    battles_by_aspect: Mapping[str, ratings.Battles], rounds: int = UNCERTAINTY_ROUNDS, seed: int = 0
) -> Priorities:
    """``{frozenset({a, b}): (mean uncertainty over aspects, battles of the pair)}`` for every pair.

    ``battles_by_aspect`` maps each aspect to its :class:`annotation.ratings.Battles`, all over
    the same systems in the same order.
    """
    uncertainty: np.ndarray | None = None
    count: np.ndarray | None = None
    systems: tuple[str, ...] = ()
    for battles in battles_by_aspect.values():
        size = len(battles.systems)
        aspect_uncertainty = order_uncertainty(battles, rounds, seed)
        uncertainty = aspect_uncertainty if uncertainty is None else uncertainty + aspect_uncertainty
        pairs = np.zeros((size, size), dtype=int)
        np.add.at(pairs, (battles.a, battles.b), 1)
        count = pairs + pairs.T if count is None else count + pairs + pairs.T
        systems = battles.systems
    if uncertainty is None or count is None:
        return {}
    uncertainty /= len(battles_by_aspect)
    return {
        frozenset((systems[i], systems[j])): (float(uncertainty[i, j]), int(count[i, j]))
        for i in range(len(systems))
        for j in range(i + 1, len(systems))
    }


def choose(candidates: Iterable[Candidate], priorities: Mapping[frozenset[str], tuple[float, int]]) -> object:
    """The key of the candidate to serve next, or None when there is none.

    A text whose pending pairs all have their four first aspects is ready for completeness: its
    first pair in queue order comes first. Otherwise, among pairs lacking first aspects: highest
    uncertainty, then fewest battles, then queue order. A pair missing from ``priorities`` (a
    system without battles yet) counts as wholly uncertain and unjudged.
    """
    candidates = list(candidates)
    waiting = {candidate.text for candidate in candidates if not candidate.first_aspects_done}
    ready = [candidate for candidate in candidates if candidate.text not in waiting]
    if ready:
        return min(ready, key=lambda candidate: candidate.position).key
    if not candidates:
        return None

    def order(candidate: Candidate) -> tuple[float, int, int]:
        uncertainty, battles = priorities.get(frozenset(candidate.pair), (0.5, 0))
        return (-uncertainty, battles, candidate.position)

    # A pair with its first four saved waits for the rest of its text: not served until then.
    return min((candidate for candidate in candidates if not candidate.first_aspects_done), key=order).key
