"""Attention checks: an extraction beside a copy of it made clearly worse (pure, no Django).

The copy differs from the original in one way only, and that way loses one aspect beyond
doubt, so an annotator who reads the pair answers it one way:

* ``duplicated``: the triples are repeated (at least :data:`MIN_ADDED` repeats): the original
  wins on uniqueness;
* ``unsupported``: triples taken from other texts, whose subject and object this text never
  mentions, are mixed in (at least :data:`MIN_ADDED`): the original wins on factualness.

Only the aspect named by the method is scored; the other four are the annotator's to judge.
"""

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scoring.genres.triples import Triple

DUPLICATED, UNSUPPORTED = "duplicated", "unsupported"
ASPECT_OF_METHOD = {DUPLICATED: "us", UNSUPPORTED: "fs"}
MIN_ADDED = 3


@dataclass(frozen=True)
class WorseCopy:
    method: str
    aspect: str  # the aspect on which the original must win
    triples: list[list[str]]


def check_count(real_items: int, share: float) -> int:
    """How many checks to add to a queue of ``real_items`` so that they make up ``share`` of it
    (at least one when the share is above 0 and the queue is not empty)."""
    if share <= 0 or real_items == 0:
        return 0
    return max(1, round(real_items * share / (1 - share)))


def duplicated(triples: Sequence[Triple]) -> list[list[str]] | None:
    """Every triple twice, and more repeats until :data:`MIN_ADDED` were added; None without triples."""
    if not triples:
        return None
    repeats = math.ceil(MIN_ADDED / len(triples))
    return [list(triple) for triple in triples for _ in range(1 + repeats)]


def unsupported(
    triples: Sequence[Triple], content: str, foreign: Iterable[Triple], rng: random.Random
) -> list[list[str]] | None:
    """The triples with foreign triples mixed in at random places; None when too few foreign
    triples are unrelated to ``content`` (neither their subject nor their object appears in it)."""
    lowered = content.lower()
    unrelated = [
        list(triple) for triple in foreign if triple[0].lower() not in lowered and triple[2].lower() not in lowered
    ]
    unrelated = list({tuple(triple): triple for triple in unrelated}.values())
    wanted = max(MIN_ADDED, len(triples))
    if len(unrelated) < MIN_ADDED:
        return None
    copy = [list(triple) for triple in triples]
    for triple in rng.sample(unrelated, min(wanted, len(unrelated))):
        copy.insert(rng.randrange(len(copy) + 1), triple)
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
