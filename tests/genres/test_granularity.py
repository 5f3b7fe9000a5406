"""gs = mean over triples of e^(-n), n = finer triples a triple splits into, n = 1 counting as 0."""

import math

import pytest

from scoring.genres.judges.base import SplitVerdict, granularity
from scoring.genres.prompts import parse_split


def verdict(reply):
    n, sub_triples, parsed = parse_split(reply)
    return SplitVerdict(n, sub_triples, parsed, reply)


def test_atomic_triple_scores_one():
    atomic = verdict('["Lake Baikal", "located in", "Siberia"]\nGranularity: 1')
    assert atomic.n == 0
    assert granularity([atomic]) == 1.0


def test_mean_of_exponential_penalties():
    verdicts = [
        verdict("Granularity: 1"),  # e^0 = 1
        verdict("Granularity: 2"),  # e^-2 = 0.1353...
        verdict("Granularity: 3"),  # e^-3 = 0.0498...
    ]
    assert [v.n for v in verdicts] == [0, 2, 3]
    assert granularity(verdicts) == pytest.approx((1 + math.exp(-2) + math.exp(-3)) / 3)
    assert granularity(verdicts) == pytest.approx(0.39504, abs=1e-5)


def test_unparseable_reply_counts_as_not_split():
    unreadable = verdict("This triple looks fine to me.")
    assert (unreadable.n, unreadable.parsed) == (0, False)
    assert granularity([unreadable, verdict("Granularity: 2")]) == pytest.approx((1 + math.exp(-2)) / 2)


def test_failed_request_counts_as_not_split():
    failed = SplitVerdict(n=0, parsed=False, error="APITimeoutError: Request timed out. (after 6 attempts)")
    assert granularity([failed]) == 1.0


def test_no_triples_scores_zero():
    assert granularity([]) == 0.0
