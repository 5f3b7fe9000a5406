"""Bootstrap intervals, paired sign-flip tests, Holm's correction and tied ranks, on hand-checked cases."""

import itertools

import numpy as np
import pytest

from leaderboard import significance


def test_holm_adjusts_step_down_and_keeps_the_order():
    # Sorted 0.01, 0.03, 0.04 times 3, 2, 1 = 0.03, 0.06, 0.04; running maximum 0.03, 0.06, 0.06.
    assert significance.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert significance.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])  # capped at 1


def test_exact_sign_flip_counts_every_pattern_at_least_as_extreme():
    # d = (0.5, 0.1, -0.1), sum 0.5. The 8 sign patterns give sums 0.5, -0.5, 0.3, 0.7, -0.7, -0.3,
    # 0.5, -0.5: six reach |0.5|, so p = 6/8. d = (0.3, 0.2, 0.1): only ±0.6 reach 0.6, p = 2/8.
    differences = np.array([[0.5, 0.3], [0.1, 0.2], [-0.1, 0.1]])
    assert significance.sign_flip_p_values(differences, rounds=8) == pytest.approx([0.75, 0.25])


def test_monte_carlo_p_values_match_the_exact_test_and_repeat_with_the_seed():
    rng = np.random.default_rng(5)
    differences = rng.normal(0.15, 0.5, size=(14, 3))  # 16,384 patterns: more than the rounds
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=14)))
    exact = (np.abs(signs @ differences) >= np.abs(differences.sum(axis=0)) - 1e-12).mean(axis=0)
    drawn = significance.sign_flip_p_values(differences, rounds=10_000, seed=1)
    assert drawn == pytest.approx(exact, abs=0.015)  # three standard errors at p = 0.5
    assert (drawn == significance.sign_flip_p_values(differences, rounds=10_000, seed=1)).all()
    # Never below 1 / (1 + rounds): a drawn p-value is never zero.
    assert significance.sign_flip_p_values(np.full((20, 1), 1.0), rounds=99)[0] == pytest.approx(0.01)


def test_pairs_are_tested_on_the_texts_both_have():
    nan = np.nan
    # A has texts 1-3, B texts 2-4: they share texts 2 and 3, where A - B = 0.2 and 0.4.
    scores = np.array([[0.9, nan], [0.6, 0.4], [0.7, 0.3], [nan, 0.1]])
    tests = significance.paired_tests(scores)
    assert tests["shared"][0, 1] == tests["shared"][1, 0] == 2
    assert tests["difference"][0, 1] == pytest.approx(0.3)
    assert tests["difference"][1, 0] == pytest.approx(-0.3)
    # Exact over the 16 patterns of four texts; the two unshared contribute 0: 8 of 16 reach 0.6.
    assert tests["p_value"][0, 1] == pytest.approx(0.5)
    assert not tests["better"].any()


def test_ranks_tie_systems_not_significantly_apart():
    better = np.array([[False, True, True], [False, False, False], [False, False, False]])
    assert significance.significance_ranks(better) == [(1, 1), (2, 3), (2, 3)]


def test_score_significance_of_a_clear_leader_and_two_systems_alike():
    # 12 texts (4,096 patterns: the exact test). alpha is 0.2 above beta on every text, beta and
    # gamma alternate ±0.1. alpha - beta: only the all-plus and all-minus patterns reach 2.4, so
    # p = 2/4096, times 3 pairs (Holm's first step) = 0.00146; beta - gamma: every pattern, p = 1.
    per_text = {
        text: {"alpha": 0.7, "beta": 0.5, "gamma": 0.5 + (0.1 if text % 2 else -0.1), "delta": None}
        for text in range(12)
    }
    result = significance.score_significance(per_text, ["alpha", "beta", "gamma", "delta"])
    assert result["systems"] == ["alpha", "beta", "gamma"]  # delta has no score at all
    assert result["rank"] == {"alpha": [1, 1], "beta": [2, 3], "gamma": [2, 3]}
    p_value = result["p_value"]
    assert p_value[0][1] == pytest.approx(3 * 2 / 4096)
    assert p_value[1][2] == p_value[2][1] == pytest.approx(1.0)
    assert p_value[0][0] is None
    assert result["difference"][1][0] == pytest.approx(-0.2)
    assert result["shared"][0][2] == 12
    # A constant score has a degenerate interval at its mean.
    alpha = result["intervals"]["alpha"]
    assert (alpha["mean"], alpha["ci_low"], alpha["ci_high"]) == pytest.approx((0.7, 0.7, 0.7))
    assert alpha["texts"] == 12


def test_bootstrap_interval_of_two_texts_spans_their_scores():
    # Resampling texts (0, 1) gives means 0, 0.5, 1 with probability 1/4, 1/2, 1/4: the 2.5th and
    # 97.5th percentiles are the two scores themselves.
    means, low, high, texts = significance.mean_intervals(np.array([[0.0, np.nan], [1.0, 0.4]]), rounds=1000)
    assert means == pytest.approx([0.5, 0.4])
    assert (low[0], high[0]) == (0.0, 1.0)
    # The second system has one text: every round that draws it gives 0.4.
    assert (low[1], high[1]) == pytest.approx((0.4, 0.4))
    assert texts.tolist() == [2, 1]


def test_bootstrap_interval_covers_the_normal_approximation():
    scores = np.random.default_rng(3).uniform(size=(800, 1))
    _, low, high, _ = significance.mean_intervals(scores, rounds=2000, seed=4)
    half_width = 1.96 * scores.std() / np.sqrt(800)
    assert high[0] - low[0] == pytest.approx(2 * half_width, rel=0.1)


def test_human_ratings_are_apart_when_their_intervals_do_not_overlap():
    board = {
        "alpha": {"rating": 1100, "ci_low": 1060, "ci_high": 1140},
        "beta": {"rating": 1000, "ci_low": 950, "ci_high": 1050},
        "gamma": {"rating": 980, "ci_low": 900, "ci_high": 1070},
    }
    matrix = significance.interval_separation(board)
    assert matrix["systems"] == ["alpha", "beta", "gamma"]
    assert matrix["separated"] == [[None, 1, 0], [-1, None, 0], [0, 0, None]]
    assert matrix["difference"][0][1] == 100


def test_rounds_must_be_positive():
    with pytest.raises(ValueError, match="rounds must be at least 1"):
        significance.mean_intervals(np.zeros((2, 1)), rounds=0)
