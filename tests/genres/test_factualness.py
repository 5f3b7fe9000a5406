"""fs = share of a text's triples the judge says are supported; no triples -> 0."""

import pytest

from scoring.genres.judges.base import SupportVerdict, factualness
from scoring.genres.prompts import parse_support


def verdict(reply):
    supported, parsed = parse_support(reply)
    return SupportVerdict(supported, parsed, reply)


def test_share_of_supported_triples():
    verdicts = [verdict("True"), verdict("False"), verdict("True"), verdict("True")]
    assert factualness(verdicts) == pytest.approx(3 / 4)


def test_every_triple_supported_scores_one():
    assert factualness([verdict("True"), verdict("yes")]) == 1.0


def test_unparseable_reply_counts_as_not_supported():
    verdicts = [verdict("True"), verdict("I am not sure what you mean.")]
    assert [v.parsed for v in verdicts] == [True, False]
    assert factualness(verdicts) == pytest.approx(1 / 2)


def test_failed_request_counts_as_not_supported():
    failed = SupportVerdict(supported=False, parsed=False, reply="", error="HTTP 500: overloaded (after 6 attempts)")
    assert factualness([verdict("True"), verdict("True"), failed]) == pytest.approx(2 / 3)


def test_no_triples_scores_zero():
    assert factualness([]) == 0.0
