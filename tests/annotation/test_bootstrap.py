"""Bootstrap of Elo and Bradley–Terry ratings: seeded, vectorised, with 95% intervals."""

import numpy as np
import pytest

from annotation import ratings
from annotation.ratings import (
    Battles,
    bootstrap_bradley_terry,
    bootstrap_elo,
    bradley_terry_leaderboard,
    elo_leaderboard,
    elo_ratings,
)

SYSTEMS = ("x", "y", "z")


@pytest.fixture
def battles():
    rng = np.random.default_rng(11)
    strength = np.array([1150.0, 1000.0, 850.0])
    a = rng.integers(0, 3, 600)
    b = (a + rng.integers(1, 3, 600)) % 3
    expected = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
    draw = rng.random(600)
    outcome = np.where(draw < expected - 0.1, 1.0, np.where(draw < expected + 0.1, 0.5, 0.0))
    return Battles(SYSTEMS, a, b, outcome)


@pytest.mark.parametrize("order", ["given", "shuffled"])
def test_elo_bootstrap_is_reproducible_with_a_seed(battles, order):
    first = bootstrap_elo(battles, rounds=50, order=order, seed=5)
    assert first.shape == (50, 3)
    assert np.array_equal(first, bootstrap_elo(battles, rounds=50, order=order, seed=5))
    assert not np.array_equal(first, bootstrap_elo(battles, rounds=50, order=order, seed=6))
    # Every round is an Elo run of its own, so each keeps the total of 3 × 1000 points.
    assert first.sum(axis=1) == pytest.approx(np.full(50, 3000.0))


def test_bradley_terry_bootstrap_is_reproducible_with_a_seed(battles):
    first = bootstrap_bradley_terry(battles, rounds=50, seed=5)
    assert first.shape == (50, 3)
    assert np.array_equal(first, bootstrap_bradley_terry(battles, rounds=50, seed=5))
    assert not np.array_equal(first, bootstrap_bradley_terry(battles, rounds=50, seed=6))
    assert first.mean(axis=1) == pytest.approx(np.full(50, 1000.0))


def test_resampling_identical_battles_replays_the_same_games(battles):
    # Any resample of n copies of one battle is that battle n times, so every round must equal
    # a single pass: the vectorised rounds agree with the one-at-a-time rule.
    same = Battles(SYSTEMS, [0] * 30, [2] * 30, [1.0] * 30)
    rounds = bootstrap_elo(same, rounds=20, k=24)
    assert rounds == pytest.approx(np.tile(elo_ratings(same, k=24), (20, 1)))


@pytest.mark.parametrize("leaderboard", [elo_leaderboard, bradley_terry_leaderboard])
def test_intervals_contain_the_rating_and_order_the_systems(battles, leaderboard):
    board = leaderboard(battles, rounds=300, seed=1)
    assert list(board) == list(SYSTEMS)
    for entry in board.values():
        assert entry["ci_low"] <= entry["rating"] <= entry["ci_high"]
        assert entry["ci_high"] - entry["ci_low"] > 0
    assert board["x"]["ci_low"] > board["z"]["ci_high"]
    assert sum(entry["battles"] for entry in board.values()) == 2 * len(battles)


def test_elo_rating_is_the_bootstrap_median(battles):
    board = elo_leaderboard(battles, rounds=101, seed=2)
    samples = bootstrap_elo(battles, rounds=101, seed=2)
    assert [board[system]["rating"] for system in SYSTEMS] == pytest.approx(np.median(samples, axis=0))
    assert [board[system]["ci_low"] for system in SYSTEMS] == pytest.approx(np.percentile(samples, 2.5, axis=0))


def test_no_battles_give_the_initial_rating_with_no_spread():
    nothing = Battles(SYSTEMS, [], [], [])
    for leaderboard in (elo_leaderboard, bradley_terry_leaderboard):
        board = leaderboard(nothing, rounds=10)
        assert board["y"] == {"rating": 1000.0, "ci_low": 1000.0, "ci_high": 1000.0, "battles": 0}


def test_memory_blocks_do_not_change_the_result(battles, monkeypatch):
    whole = bootstrap_elo(battles, rounds=12, seed=4)
    monkeypatch.setattr(ratings, "_MAX_POSITIONS_IN_MEMORY", 5 * len(battles))  # blocks of 5 rounds
    assert np.array_equal(bootstrap_elo(battles, rounds=12, seed=4), whole)


def test_sorted_draws_are_an_ordered_uniform_resample():
    rng = np.random.default_rng(0)
    counts = np.zeros(50)
    for _ in range(2000):
        draws = ratings._sorted_draws(rng, 50)
        assert len(draws) == 50
        assert np.all(np.diff(draws) >= 0)
        assert draws[0] >= 0 and draws[-1] < 50
        counts += np.bincount(draws, minlength=50)
    # 100,000 draws over 50 values: each expects 2000 (sd ≈ 44); 6 sd is never reached by chance.
    assert np.abs(counts - 2000).max() < 270


@pytest.mark.parametrize("rounds", [0, -3, 2.5, True])
def test_rounds_must_be_a_positive_integer(battles, rounds):
    with pytest.raises(ValueError, match="positive integer"):
        bootstrap_elo(battles, rounds=rounds)
    with pytest.raises(ValueError, match="positive integer"):
        bootstrap_bradley_terry(battles, rounds=rounds)
