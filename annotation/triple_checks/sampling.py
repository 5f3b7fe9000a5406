"""Stratified, seeded sampling of triples for a triple-check campaign (pure, no Django).

A stratum is one system and one verdict of the judge the sample is drawn for (supported,
unsupported, or no verdict). Each stratum gives up to ``per_stratum`` triples, so a verdict the
judge rarely gives is still present; each sampled triple carries the weight ``stratum size /
triples taken from it``, which turns means over the sample back into estimates for the
system's whole population of triples (``statistics`` uses it).
"""

from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from annotation.sampling import seeded_random


@dataclass(frozen=True)
class Candidate:
    """A triple that may be sampled: ``key`` identifies it (e.g. output id and index)."""

    key: Hashable
    system: Hashable
    supported: bool | None  # the stratifying judge's verdict; None when it gave none


@dataclass(frozen=True)
class Sampled:
    candidate: Candidate
    weight: float  # triples of its stratum per sampled triple of it (≥ 1)


def stratified_sample(candidates: Iterable[Candidate], per_stratum: int, seed: object) -> list[Sampled]:
    """Up to ``per_stratum`` triples of every (system, verdict) stratum, drawn at random.

    Returned in the order of ``candidates``; the same candidates and seed give the same sample.
    """
    if per_stratum < 1:
        raise ValueError("Sample at least one triple per system and verdict.")
    strata: defaultdict[tuple[str, str], list[Candidate]] = defaultdict(list)
    order: dict[Hashable, int] = {}
    for position, candidate in enumerate(candidates):
        if candidate.key in order:
            raise ValueError(f"The triple {candidate.key!r} is a candidate twice.")
        order[candidate.key] = position
        strata[str(candidate.system), str(candidate.supported)].append(candidate)
    sampled: list[Sampled] = []
    # Strata in a fixed order, each drawn from its own seeded stream: adding a system leaves
    # the other systems' samples as they were.
    for (system, verdict), members in sorted(strata.items()):
        taken = seeded_random(seed, "triples", system, verdict).sample(members, min(per_stratum, len(members)))
        weight = len(members) / len(taken)
        sampled.extend(Sampled(candidate, weight) for candidate in taken)
    return sorted(sampled, key=lambda each: order[each.candidate.key])
