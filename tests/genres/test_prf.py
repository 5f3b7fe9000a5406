import pytest

from scoring.genres.prf import PRF, exact_prf, normalise_triple, relaxed_matches, relaxed_prf

GOLD = [["Marie Curie", "born in", "Warsaw"], ["Marie Curie", "won", "Nobel Prize in Physics"]]


def test_normalisation_folds_case_and_whitespace():
    assert normalise_triple(["  Marie\tCURIE ", "Born  in", "Warsaw"]) == ("marie curie", "born in", "warsaw")


def test_exact_prf_hand_computed():
    predicted = [["marie curie", "born in", "Warsaw"], ["Marie Curie", "died in", "Passy"], ["Curie", "won", "Nobel"]]
    # 1 of 3 predicted is right, 1 of 2 gold is found.
    precision, recall, f1 = exact_prf(predicted, GOLD)
    assert (precision, recall) == (pytest.approx(1 / 3), 0.5)
    assert f1 == pytest.approx(2 * (1 / 3) * 0.5 / (1 / 3 + 0.5))


def test_exact_counts_each_distinct_triple_once():
    predicted = [GOLD[0], ["MARIE CURIE", "born  in", "warsaw"], GOLD[0]]
    assert exact_prf(predicted, GOLD) == PRF(1.0, 0.5, pytest.approx(2 / 3))


def test_empty_output_scores_zero():
    assert exact_prf([], GOLD) == PRF(0.0, 0.0, 0.0)
    assert relaxed_prf([], GOLD) == PRF(0.0, 0.0, 0.0)


def test_no_gold_is_not_applicable():
    assert exact_prf(GOLD, []) is None
    assert relaxed_prf(GOLD, []) is None


def test_relaxed_match_needs_every_element_to_reach_the_jaccard_threshold():
    gold = [["Marie Curie", "won", "Nobel Prize in Physics"]]
    # Subject 1/2, relation 1/1, object 2/4: exactly 0.5 each.
    assert relaxed_matches([["Curie", "won", "Nobel Prize"]], gold, 0.5).tolist() == [[True]]
    assert relaxed_matches([["Curie", "won", "Nobel Prize"]], gold, 0.51).tolist() == [[False]]
    # Object 1/4 is below 0.5.
    assert relaxed_matches([["Curie", "won", "Nobel"]], gold, 0.5).tolist() == [[False]]


def test_relaxed_prf_hand_computed():
    predicted = [["Curie", "won", "Nobel Prize"], ["Curie", "born in", "Poland"]]
    assert relaxed_prf(predicted, GOLD) == PRF(0.5, 0.5, 0.5)


def test_relaxed_matching_is_one_to_one():
    gold = [["Marie Curie", "won", "Nobel Prize"]]
    predicted = [["Curie", "won", "Nobel Prize"], ["Marie Curie", "won", "Prize"]]
    # Both could match the one gold triple; only one may.
    assert relaxed_prf(predicted, gold) == PRF(0.5, 1.0, pytest.approx(2 / 3))


def test_relaxed_matching_is_maximal_not_greedy():
    gold = [["Marie Curie", "won", "Nobel Prize"], ["Marie Curie", "won", "Davy Medal"]]
    # The first prediction fits both gold triples, the second only the first one. Greedy in
    # order would pair prediction 1 with gold 1 and leave prediction 2 unmatched.
    predicted = [["Marie Curie", "won", "Nobel Prize Davy Medal"], ["Marie Curie", "won", "Nobel Prize"]]
    assert relaxed_matches(predicted, gold).tolist() == [[True, True], [True, False]]
    assert relaxed_prf(predicted, gold) == PRF(1.0, 1.0, 1.0)


def test_relaxed_ignores_punctuation_and_case():
    assert relaxed_prf([["marie curie,", "WON", "the Nobel Prize."]], [["Marie Curie", "won", "Nobel Prize"]]).f1 == 1.0


def test_elements_without_words_compare_whole():
    assert relaxed_prf([["GDP", "grew by", "3 %"]], [["GDP", "grew by", "3 %"]]).f1 == 1.0
    assert relaxed_matches([["x", "=", "y"]], [["x", "≠", "y"]]).tolist() == [[False]]
