"""Triples for a triple-check campaign: stratified by system and verdict, seeded (no database)."""

from collections import Counter

import pytest

from annotation.triple_checks.sampling import Candidate, stratified_sample

# System x: 10 supported, 2 unsupported; system y: 6 supported, 1 without a verdict.
CANDIDATES = [
    *(Candidate(("x", index), "x", index >= 2) for index in range(12)),
    *(Candidate(("y", index), "y", None if index == 0 else True) for index in range(7)),
]


def strata(sample):
    return Counter((each.candidate.system, each.candidate.supported) for each in sample)


def test_every_stratum_gives_up_to_its_share():
    sample = stratified_sample(CANDIDATES, 3, seed=1)
    assert strata(sample) == {("x", True): 3, ("x", False): 2, ("y", True): 3, ("y", None): 1}
    weights = {(each.candidate.system, each.candidate.supported): each.weight for each in sample}
    assert weights == {("x", True): 10 / 3, ("x", False): 1.0, ("y", True): 2.0, ("y", None): 1.0}


def test_sample_is_seeded_and_keeps_candidate_order():
    first = stratified_sample(CANDIDATES, 3, seed=1)
    assert first == stratified_sample(CANDIDATES, 3, seed=1)
    keys = [each.candidate.key for each in first]
    assert keys == [candidate.key for candidate in CANDIDATES if candidate.key in set(keys)]
    assert keys != [each.candidate.key for each in stratified_sample(CANDIDATES, 3, seed=2)]


def test_refuses_an_empty_share_and_duplicate_keys():
    with pytest.raises(ValueError, match="at least one"):
        stratified_sample(CANDIDATES, 0, seed=1)
    with pytest.raises(ValueError, match="twice"):
        stratified_sample([CANDIDATES[0], CANDIDATES[0]], 1, seed=1)
