"""Adaptive pair order: serve next the pairs whose order is least certain (pure numpy, no Django).

Chatbot Arena spends its votes where the ranking is still open; a campaign with the adaptive
pair order does the same with its queue. After each save, the pairs still pending are ordered
by how much uncertainty serving them resolves:

* per aspect, a Bradley–Terry bootstrap of the merged battles so far
  (``annotation.ratings.bootstrap_bradley_terry``, :data:`UNCERTAINTY_ROUNDS` rounds); a pair's
  uncertainty is the share of rounds that order the two systems against the majority of rounds,
  ``min(P(r_a > r_b), P(r_b > r_a))`` with ties counted half: 0.5 for a pair nothing separates
  yet (overlapping rating intervals), 0 for a pair every round orders alike (intervals apart);
* serving a pair gives one judgement on each of the four first aspects: their uncertainties
  count for it directly;
* completeness cannot be targeted pair by pair. The Ground-truth reveal rule holds a text's
  completeness until every pair of that text in the annotator's queue has its four first
  aspects; only then is the gold shown and the text's pairs judged on completeness. So the
  completeness uncertainty of a text's pending pairs is released by finishing the text, and a
  pair of a text with ``k`` pairs still lacking their first aspects carries ``1/k`` of it.

The priority of a pair lacking its first aspects is therefore
``sum of its four first-aspect uncertainties + (sum of the completeness uncertainties of its
text's pending pairs) / k``. Early on (everything uncertain) this spreads judgements over the
pairs that most need them, as Chatbot Arena does; as a text nears completion, or while the
completeness ranking is still open, it finishes texts, so completeness judgements are not all
left to the end (which the spreading alone did: it needed up to 1.13× the judgements of the
queue order to reach the study's ranking on all five aspects).

:func:`choose` serves a text whose gold is revealed first (its completeness, in queue order);
otherwise the pending pair with the highest priority, then the fewest battles, then the queue
order. Before the first judgement every pair is at 0.5 and nothing has been judged: the queue
order, as without the option.
"""

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from annotation import ratings

UNCERTAINTY_ROUNDS = 100
COMPLETENESS = "cs"
FIRST_ASPECTS = ("ts", "us", "fs", "gs")  # judged together on each pair, before completeness
# A pair nothing is known about yet: every order a coin flip.
UNKNOWN_UNCERTAINTY = 0.5


@dataclass(frozen=True)
class Candidate:
    """One pending assignment of the annotator, as the choice sees it."""

    key: Hashable  # the assignment's id, returned when chosen
    text: Hashable
    pair: tuple[str, str]  # (system A, system B) names, either order
    position: int  # queue position
    first_aspects_done: bool  # the four first aspects are saved: only completeness is left


class PairPriority(NamedTuple):
    """What serving one pair of systems resolves, as far as the battles so far tell."""

    first: float  # the sum of its uncertainties over the aspects other than completeness
    completeness: float  # its completeness uncertainty (0 when completeness is not rated)
    battles: int  # battles of the pair so far, over all aspects


def order_uncertainty(battles: ratings.Battles, rounds: int = UNCERTAINTY_ROUNDS, seed: int = 0) -> np.ndarray:
    """A systems × systems array: per pair, the bootstrap share of rounds ordering it against the majority."""
    samples = ratings.bootstrap_bradley_terry(battles, rounds=rounds, seed=seed)
    above = (samples[:, :, None] > samples[:, None, :]).mean(axis=0)
    above += 0.5 * (samples[:, :, None] == samples[:, None, :]).mean(axis=0)
    return np.minimum(above, above.T)


def pair_priorities(
    battles_by_aspect: Mapping[str, ratings.Battles], rounds: int = UNCERTAINTY_ROUNDS, seed: int = 0
) -> dict[frozenset[str], PairPriority]:
    """A :class:`PairPriority` for every pair of systems.

    ``battles_by_aspect`` maps each aspect to its :class:`annotation.ratings.Battles`, all over
    the same systems in the same order.
    """
    if not battles_by_aspect:
        return {}
    systems = next(iter(battles_by_aspect.values())).systems
    size = len(systems)
    first, completeness, count = np.zeros((size, size)), np.zeros((size, size)), np.zeros((size, size), dtype=int)
    for aspect, battles in battles_by_aspect.items():
        uncertainty = order_uncertainty(battles, rounds, seed)
        if aspect == COMPLETENESS:
            completeness += uncertainty
        else:
            first += uncertainty
        np.add.at(count, (battles.a, battles.b), 1)
    count += count.T
    return {
        frozenset((systems[i], systems[j])): PairPriority(
            float(first[i, j]), float(completeness[i, j]), int(count[i, j])
        )
        for i in range(size)
        for j in range(i + 1, size)
    }


def choose(candidates: Iterable[Candidate], priorities: Mapping[frozenset[str], PairPriority]) -> Hashable | None:
    """The key of the candidate to serve next, or None when there is none.

    A text whose pending pairs all have their four first aspects is ready for completeness: its
    first pair in queue order comes first. Otherwise, among pairs lacking first aspects: the
    highest priority (see the module), then the fewest battles, then queue order. A pair missing
    from ``priorities`` (a system without battles yet) counts as wholly uncertain and unjudged.
    With no priorities at all, the queue order.
    """
    candidates = list(candidates)
    waiting = {candidate.text for candidate in candidates if not candidate.first_aspects_done}
    ready = [candidate for candidate in candidates if candidate.text not in waiting]
    if ready:
        return min(ready, key=lambda candidate: candidate.position).key
    if not candidates:
        return None
    if not priorities:
        return min(candidates, key=lambda candidate: (candidate.first_aspects_done, candidate.position)).key
    unknown = PairPriority(UNKNOWN_UNCERTAINTY * len(FIRST_ASPECTS), UNKNOWN_UNCERTAINTY, 0)

    def priority(candidate: Candidate) -> PairPriority:
        return priorities.get(frozenset(candidate.pair), unknown)

    lacking: dict[Hashable, int] = defaultdict(int)  # per text, pairs still lacking their first aspects
    released: dict[Hashable, float] = defaultdict(float)  # per text, completeness uncertainty its finish releases
    for candidate in candidates:
        lacking[candidate.text] += not candidate.first_aspects_done
        released[candidate.text] += priority(candidate).completeness

    def order(candidate: Candidate) -> tuple[float, int, int]:
        own = priority(candidate)
        return (-(own.first + released[candidate.text] / lacking[candidate.text]), own.battles, candidate.position)

    # A pair with its first four saved waits for the rest of its text: not served until then.
    return min((candidate for candidate in candidates if not candidate.first_aspects_done), key=order).key
