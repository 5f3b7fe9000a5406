"""Attention checks: an extraction beside a copy of it made clearly worse (pure, no Django).

The copy has as many triples as the original, so nothing but its content tells it apart: some
of the original's triples are *replaced*, never added to. It differs in one way only, and that
way loses one aspect beyond doubt, so an annotator who reads the pair answers it one way:

* ``duplicated``: every second triple is replaced by the one before it (half the triples,
  rounded down, become repeats): the original wins on uniqueness;
* ``unsupported``: half the triples (rounded up), at random places, are replaced by triples of
  other texts whose subject and object this text never mentions: the original wins on factualness.

Only the aspect named by the method is scored; the other four are the annotator's to judge.
"""

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from scoring.genres.triples import Triple

DUPLICATED, UNSUPPORTED = "duplicated", "unsupported"
# The largest share of a queue (or of a triple check's sample) that attention checks may make up.
MAX_ATTENTION_SHARE = 0.2
ASPECT_OF_METHOD = {DUPLICATED: "us", UNSUPPORTED: "fs"}


@dataclass(frozen=True)
class WorseCopy:
    method: str
    aspect: str  # the aspect on which the original must win
    triples: list[list[str]]


def check_count(queue_items: int, share: float) -> int:
    """How many of a queue of ``queue_items`` pairs become checks, each in the place of a real
    pair, so that they make up ``share`` of it (at least one when the share is above 0 and the
    queue is not empty)."""
    if share <= 0 or queue_items == 0:
        return 0
    return max(1, round(queue_items * share))


def systems_to_copy(triple_counts: Mapping[int, int], copyable: Iterable[int]) -> list[int]:
    """The systems among ``copyable`` whose output on a text can be copied so that the check's two
    sides show as many triples as the two sides of a real pair of that text: those whose number of
    triples (``triple_counts``, by system, every compared system of the text) another compared
    system has too. An empty output is never copied."""
    return [
        system
        for system in copyable
        if triple_counts[system] > 0
        and any(other != system and count == triple_counts[system] for other, count in triple_counts.items())
    ]


def duplicated(triples: Sequence[Triple]) -> list[list[str]] | None:
    """Every second triple replaced by the one before it; None when that repeats nothing the
    original did not repeat already (fewer than two triples, or repeats in that very pattern)."""
    copy = [list(triples[index - index % 2]) for index in range(len(triples))]
    if len({tuple(triple) for triple in copy}) >= len({tuple(triple) for triple in triples}):
        return None
    return copy


def unsupported(
    triples: Sequence[Triple], content: str, foreign: Iterable[Triple], rng: random.Random
) -> list[list[str]] | None:
    """Half the triples (rounded up), at places drawn with ``rng``, replaced by foreign triples
    unrelated to ``content`` (neither their subject nor their object appears in it); None without
    triples or when too few foreign triples are unrelated."""
    lowered = content.lower()
    unrelated = [
        list(triple) for triple in foreign if triple[0].lower() not in lowered and triple[2].lower() not in lowered
    ]
    unrelated = list({tuple(triple): triple for triple in unrelated}.values())
    replaced = math.ceil(len(triples) / 2)
    if not triples or len(unrelated) < replaced:
        return None
    copy = [list(triple) for triple in triples]
    for place, triple in zip(rng.sample(range(len(copy)), replaced), rng.sample(unrelated, replaced), strict=True):
        copy[place] = triple
    return copy


def worse_copy(triples: Sequence[Triple], content: str, foreign: Iterable[Triple], seed: float) -> WorseCopy | None:
    """A :class:`WorseCopy` of ``triples`` (the extraction of a text with ``content``), by a method
    drawn with ``seed``; the other method when the drawn one cannot apply; None when neither can."""
    rng = random.Random(seed)
    methods = [DUPLICATED, UNSUPPORTED]
    rng.shuffle(methods)
    for method in methods:
        copy = duplicated(triples) if method == DUPLICATED else unsupported(triples, content, foreign, rng)
        if copy is not None:
            return WorseCopy(method=method, aspect=ASPECT_OF_METHOD[method], triples=copy)
    return None
