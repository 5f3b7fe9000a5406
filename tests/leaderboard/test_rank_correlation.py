"""Human ranking against metric ranking: Kendall τ, Spearman ρ, item agreement, rank ranges."""

import pytest

from leaderboard.correlation import interval_ranks, item_agreement, rank_correlation


def test_identical_and_reversed_rankings():
    human = {"w": 1200, "x": 1100, "y": 1000, "z": 900}
    assert rank_correlation(human, {"w": 0.9, "x": 0.8, "y": 0.5, "z": 0.1}) == {
        "systems": 4,
        "kendall_tau": pytest.approx(1.0),
        "kendall_p": pytest.approx(1 / 12),  # exact test: 1 of 24 orders is as extreme, two-sided
        "spearman_rho": pytest.approx(1.0),
        "spearman_p": pytest.approx(0.0, abs=1e-9),
    }
    reversed_ranks = rank_correlation(human, {"w": 1, "x": 2, "y": 3, "z": 4})
    assert reversed_ranks["kendall_tau"] == pytest.approx(-1.0)
    assert reversed_ranks["spearman_rho"] == pytest.approx(-1.0)


def test_one_swapped_pair_by_hand():
    # 6 pairs, 5 concordant and 1 discordant: τ = (5 − 1) / 6. Rank differences (0, 0, 1, 1):
    # ρ = 1 − 6 · 2 / (4 · (16 − 1)) = 0.8.
    result = rank_correlation({"w": 4, "x": 3, "y": 2, "z": 1}, {"w": 4, "x": 3, "y": 1, "z": 2})
    assert result["kendall_tau"] == pytest.approx(2 / 3)
    assert result["spearman_rho"] == pytest.approx(0.8)


def test_only_shared_systems_count():
    human = {"w": 4, "x": 3, "y": 2, "only-human": 9}
    metric = {"w": 0.3, "x": 0.2, "y": 0.1, "only-metric": 0.0, "unrated": None}
    result = rank_correlation(human, metric)
    assert result["systems"] == 3
    assert result["kendall_tau"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("human", "metric", "shared"),
    [
        ({"w": 1}, {"w": 2}, 1),  # one shared system
        ({"w": 1, "x": 2}, {"y": 1, "z": 2}, 0),  # none shared
        ({"w": 1, "x": 2, "y": 3}, {"w": 5, "x": 5, "y": 5}, 3),  # constant: undefined
        ({"w": 1, "x": None}, {"w": 1, "x": 2}, 1),  # None is no rating
    ],
)
def test_undefined_correlations_are_none(human, metric, shared):
    assert rank_correlation(human, metric) == {
        "systems": shared,
        "kendall_tau": None,
        "kendall_p": None,
        "spearman_rho": None,
        "spearman_p": None,
    }


def test_item_agreement_discounts_ties_and_matches_reversed_pairs():
    human = {
        ("t1", "x", "y"): "a",
        ("t1", "x", "z"): "tie",
        ("t2", "x", "y"): "b",
        ("t2", "y", "z"): "a",  # the metric keys this pair the other way round
        ("t3", "x", "y"): "a",  # no metric verdict: left out
    }
    metric = {
        ("t1", "x", "y"): "a",  # 1
        ("t1", "x", "z"): "b",  # 0.5
        ("t2", "x", "y"): "a",  # 0
        ("t2", "z", "y"): "b",  # "y better", as the human said: 1
        ("t4", "x", "y"): "tie",  # no human verdict
    }
    assert item_agreement(human, metric) == {"accuracy": pytest.approx(2.5 / 4), "items": 4}


def test_item_agreement_without_shared_items_is_none():
    assert item_agreement({("t1", "x", "y"): "a"}, {("t2", "x", "y"): "a"}) == {"accuracy": None, "items": 0}


def test_overlapping_intervals_share_a_rank_range():
    board = {
        "top": {"ci_low": 1150, "ci_high": 1250},
        "close": {"ci_low": 1100, "ci_high": 1160},  # overlaps top and middle
        "middle": {"ci_low": 1000, "ci_high": 1120},
        "bottom": {"ci_low": 700, "ci_high": 800},
    }
    assert interval_ranks(board) == {"top": (1, 2), "close": (1, 3), "middle": (2, 3), "bottom": (4, 4)}


def test_separated_intervals_give_plain_ranks():
    board = {name: {"ci_low": low, "ci_high": low + 10} for name, low in [("a", 300), ("b", 200), ("c", 100)]}
    assert interval_ranks(board) == {"a": (1, 1), "b": (2, 2), "c": (3, 3)}
