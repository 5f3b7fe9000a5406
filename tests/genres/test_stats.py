import pytest

from scoring.genres.stats import empty_share, tokens_in_triple, tokens_per_triple


def test_tokens_are_whitespace_tokens_of_all_three_elements():
    assert tokens_in_triple(["Marie  Curie", "was born in", "Warsaw"]) == 6


def test_tokens_per_triple_is_the_mean_over_triples():
    triples = [["a", "b", "c"], ["New York", "is in", "United States of America"]]
    assert tokens_per_triple(triples) == pytest.approx((3 + 8) / 2)


def test_tokens_per_triple_without_triples_is_not_applicable():
    assert tokens_per_triple([]) is None


def test_empty_share():
    assert empty_share([0, 3, 0, 1]) == 0.5
    assert empty_share([]) is None
