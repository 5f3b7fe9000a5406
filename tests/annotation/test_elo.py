"""Online Elo ratings, checked by hand, and the battle arrays they read."""

import numpy as np
import pytest

from annotation.ratings import Battles, elo_ratings

SYSTEMS = ("alpha", "beta", "gamma")


def battles(*records):
    return Battles.from_labels(records, systems=SYSTEMS)


def test_one_win_between_equals_moves_each_by_half_of_k():
    # Expected score 0.5, so the winner gains 16 · (1 − 0.5) = 8.
    ratings = elo_ratings(battles(("alpha", "beta", "a")))
    assert ratings == pytest.approx([1008, 992, 1000])


def test_k_sets_the_step():
    assert elo_ratings(battles(("alpha", "beta", "b")), k=32) == pytest.approx([984, 1016, 1000])


def test_second_battle_uses_updated_ratings():
    # After alpha's win: 1008 vs 992. Beta's expected score is 1 / (1 + 10^(16/400)) ≈ 0.476990,
    # so beta gains 16 · (1 − 0.476990) ≈ 8.368153.
    ratings = elo_ratings(battles(("alpha", "beta", "a"), ("alpha", "beta", "b")))
    gain = 16 * (1 - 1 / (1 + 10 ** (16 / 400)))
    assert gain == pytest.approx(8.368153, abs=1e-6)
    assert ratings == pytest.approx([1008 - gain, 992 + gain, 1000])


def test_a_tie_pulls_the_ratings_together():
    # Alpha, at 1008, expected 0.523010 against 992; a tie (0.5) costs it 16 · 0.023010.
    ratings = elo_ratings(battles(("alpha", "beta", "a"), ("beta", "alpha", "tie")))
    loss = 16 * (1 / (1 + 10 ** (-16 / 400)) - 0.5)
    assert loss == pytest.approx(0.368153, abs=1e-6)
    assert ratings == pytest.approx([1008 - loss, 992 + loss, 1000])


def test_the_order_of_play_matters():
    forward = elo_ratings(battles(("alpha", "beta", "a"), ("alpha", "beta", "b")))
    backward = elo_ratings(battles(("alpha", "beta", "b"), ("alpha", "beta", "a")))
    # Whoever wins last ends ahead, by the same amount either way.
    assert forward[1] > forward[0]
    assert backward[0] > backward[1]
    assert backward[:2] == pytest.approx(forward[1::-1])


def test_shuffled_order_is_seeded():
    played = battles(*[("alpha", "beta", "a")] * 5, *[("beta", "gamma", "a")] * 5, *[("gamma", "alpha", "b")] * 5)
    given = elo_ratings(played)
    first = elo_ratings(played, order="shuffled", seed=3)
    assert np.array_equal(first, elo_ratings(played, order="shuffled", seed=3))
    assert not np.allclose(first, given)
    assert first.sum() == pytest.approx(3000)


def test_a_system_that_never_wins_sinks_but_stays_finite():
    played = battles(*[("alpha", "gamma", "a")] * 20, *[("gamma", "beta", "b")] * 20, ("alpha", "beta", "tie"))
    ratings = elo_ratings(played)
    assert np.all(np.isfinite(ratings))
    assert ratings[2] == ratings.min() < 1000
    assert ratings.sum() == pytest.approx(3000)  # Elo moves points, it never creates them


def test_a_system_without_battles_keeps_the_initial_rating():
    assert elo_ratings(battles(("alpha", "beta", "a")))[2] == 1000
    assert elo_ratings(battles()) == pytest.approx([1000, 1000, 1000])


@pytest.mark.parametrize("k", [0, -16, float("nan"), "16"])
def test_k_must_be_a_positive_number(k):
    with pytest.raises(ValueError, match="K factor"):
        elo_ratings(battles(("alpha", "beta", "a")), k=k)


def test_unknown_order_is_refused():
    with pytest.raises(ValueError, match="'random'"):
        elo_ratings(battles(("alpha", "beta", "a")), order="random")


def test_from_labels_maps_labels_to_outcomes_and_counts_battles():
    played = battles(("alpha", "beta", "a"), ("beta", "gamma", "b"), ("gamma", "alpha", "tie"))
    assert played.a.tolist() == [0, 1, 2]
    assert played.b.tolist() == [1, 2, 0]
    assert played.outcome.tolist() == [1.0, 0.0, 0.5]
    assert played.per_system().tolist() == [2, 2, 2]
    assert len(played) == 3


def test_from_labels_orders_systems_by_first_appearance_by_default():
    assert Battles.from_labels([("y", "x", "a"), ("z", "x", "b")]).systems == ("y", "x", "z")


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (("alpha", "beta", "left"), "battle 2: unknown label 'left'"),
        (("alpha", "delta", "a"), "battle 2: unknown system 'delta'"),
        (("beta", "beta", "a"), "battle 2: a system cannot battle itself"),
    ],
)
def test_from_labels_names_the_bad_record(record, message):
    with pytest.raises(ValueError, match=message):
        battles(("alpha", "beta", "a"), record)


@pytest.mark.parametrize(
    ("a", "b", "outcome", "message"),
    [
        ([0, 1], [1], [1, 0], "differ in length"),
        ([0, 3], [1, 0], [1, 0], "battle 2: a = 3 is not a system index"),
        ([0, 1], [1, 1], [1, 0], "battle 2: a system cannot battle itself"),
        ([0, 1], [1, 0], [1, 0.25], "battle 2: outcome 0.25 is not 1, 0 or 0.5"),
    ],
)
def test_battle_arrays_are_checked(a, b, outcome, message):
    with pytest.raises(ValueError, match=message):
        Battles(SYSTEMS, a, b, outcome)


def test_battle_arrays_are_read_only_copies():
    a = np.array([0, 1])
    played = Battles(SYSTEMS, a, [1, 2], [1, 0])
    a[0] = 2
    assert played.a.tolist() == [0, 1]
    with pytest.raises(ValueError):
        played.outcome[0] = 0.5
