"""Bradley–Terry maximum-likelihood ratings on the Elo scale."""

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from annotation.ratings import PRIOR_SD, Battles, bradley_terry_leaderboard, bradley_terry_ratings
from leaderboard.correlation import interval_ranks


def test_recovers_known_strengths_from_synthetic_battles():
    true_ratings = np.array([1250.0, 1100.0, 1000.0, 650.0])
    true_ratings += 1000 - true_ratings.mean()  # the fit is anchored at mean 1000
    rng = np.random.default_rng(7)
    a = rng.integers(0, 4, 40_000)
    b = (a + rng.integers(1, 4, 40_000)) % 4
    a_wins = rng.random(40_000) < 1 / (1 + 10 ** ((true_ratings[b] - true_ratings[a]) / 400))
    fitted = bradley_terry_ratings(Battles(("w", "x", "y", "z"), a, b, a_wins.astype(float)))
    assert fitted == pytest.approx(true_ratings, abs=15)


def test_three_wins_in_four_by_hand():
    # Strengths ±t (natural log), prior precision λ = 1 / (PRIOR_SD · ln 10 / 400)²; the
    # penalised log-likelihood 3·log σ(2t) + log σ(−2t) − λt² peaks where
    # 6·σ(−2t) − 2·σ(2t) − 2λt = 0. Without the prior t would be ln(3)/2 (95.4 points each way).
    precision = 1 / (PRIOR_SD * math.log(10) / 400) ** 2

    def slope(t):
        return 6 / (1 + math.exp(2 * t)) - 2 / (1 + math.exp(-2 * t)) - 2 * precision * t

    t = brentq(slope, 0, 5)
    fitted = bradley_terry_ratings(Battles.from_labels([("x", "y", "a")] * 3 + [("y", "x", "a")]))
    assert fitted == pytest.approx([1000 + t * 400 / math.log(10), 1000 - t * 400 / math.log(10)])
    assert 1080 < fitted[0] < 1000 + 400 * math.log10(3) / 2


def test_the_prior_is_negligible_with_plenty_of_battles():
    fitted = bradley_terry_ratings(Battles.from_labels([("x", "y", "a")] * 750 + [("x", "y", "b")] * 250))
    # Odds of 3 to 1 are 400 · log10(3) ≈ 190.85 points.
    assert fitted[0] - fitted[1] == pytest.approx(400 * math.log10(3), abs=0.2)


def test_a_tie_counts_as_half_a_win_for_each():
    wins_and_ties = Battles.from_labels([("x", "y", "a")] * 2 + [("x", "y", "tie")] * 2)
    three_wins_one_loss = Battles.from_labels([("x", "y", "a")] * 3 + [("x", "y", "b")])
    assert bradley_terry_ratings(wins_and_ties) == pytest.approx(bradley_terry_ratings(three_wins_one_loss))
    only_ties = Battles.from_labels([("x", "y", "tie")] * 5)
    assert bradley_terry_ratings(only_ties) == pytest.approx([1000, 1000])


def test_the_order_of_battles_does_not_matter():
    records = [("x", "y", "a"), ("y", "z", "tie"), ("z", "x", "a"), ("x", "z", "b"), ("y", "x", "b")]
    forward = bradley_terry_ratings(Battles.from_labels(records, systems=("x", "y", "z")))
    backward = bradley_terry_ratings(Battles.from_labels(records[::-1], systems=("x", "y", "z")))
    assert forward == pytest.approx(backward)


def test_ratings_are_anchored_at_mean_1000():
    records = [("x", "y", "a")] * 5 + [("y", "z", "a")] * 3 + [("z", "x", "tie")] * 2
    assert bradley_terry_ratings(Battles.from_labels(records)).mean() == pytest.approx(1000)


def test_a_system_that_never_wins_gets_a_finite_rating_and_the_last_rank():
    records = [("x", "y", "a")] * 6 + [("y", "x", "a")] * 4 + [("x", "loser", "a")] * 8 + [("loser", "y", "b")] * 8
    board = bradley_terry_leaderboard(Battles.from_labels(records), rounds=200)
    loser = board["loser"]
    assert all(math.isfinite(loser[key]) for key in ("rating", "ci_low", "ci_high"))
    assert loser["rating"] < min(board["x"]["rating"], board["y"]["rating"]) - 200
    assert loser["battles"] == 16
    ranks = interval_ranks(board)
    assert ranks["loser"] == (3, 3)
    assert ranks["x"] == ranks["y"] == (1, 2)


def test_a_system_without_battles_sits_at_the_anchor():
    battles = Battles.from_labels([("x", "y", "a")] * 4, systems=("x", "y", "idle"))
    assert bradley_terry_ratings(battles)[2] == pytest.approx(1000)
