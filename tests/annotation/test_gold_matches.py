"""Near matches between extracted and gold triples, as the completeness page marks them on hover:
the relaxed P/R/F1's test (token Jaccard of each element ≥ 0.5, after normalisation)."""

from annotation.gold_matches import gold_matches

GOLD = [["Marie Curie", "born in", "Warsaw"], ["Marie Curie", "moved to", "Paris"], ["Curie", "studied", "physics"]]


def test_a_rephrased_triple_matches_its_gold_triple_and_nothing_else():
    assert gold_matches([["marie  CURIE", "was born in", "Warsaw"]], GOLD) == [[0]]


def test_every_element_must_be_near():
    # Same subject and relation, another object: not a match.
    assert gold_matches([["Marie Curie", "born in", "Paris"]], GOLD) == [[]]


def test_a_triple_may_be_near_several_gold_triples_and_duplicates_each_get_their_row():
    triples = [["Curie", "studied", "physics"], ["Curie", "studied", "physics"], ["Marie Curie", "lived in", "Paris"]]
    gold = [*GOLD, ["Curie", "studied", "Physics"]]
    assert gold_matches(triples, gold) == [[2, 3], [2, 3], []]


def test_no_gold_or_no_triples_match_nothing():
    assert gold_matches([["Marie Curie", "born in", "Warsaw"]], []) == [[]]
    assert gold_matches([], GOLD) == []


def test_the_threshold_is_the_relaxed_matching_one_and_can_be_raised():
    rephrased = [["Marie Curie", "was born in", "Warsaw"]]  # relation Jaccard 2/3
    assert gold_matches(rephrased, GOLD, threshold=0.9) == [[]]
