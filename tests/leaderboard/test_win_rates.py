"""Win rates worked out by hand, from the ratings module's win matrix."""

from annotation.ratings import Battles
from leaderboard.human import win_rate_matrix


def test_win_rates_count_a_tie_as_half():
    battles = Battles.from_labels(
        [("x", "y", "a"), ("x", "y", "tie"), ("y", "x", "a"), ("x", "z", "b")], systems=["x", "y", "z"]
    )
    matrix = win_rate_matrix(battles)
    assert matrix["systems"] == ["x", "y", "z"]
    # x against y: a win, a tie, a loss → 1.5 of 3 points.
    assert matrix["rates"][0] == [None, 0.5, 0.0]
    assert matrix["rates"][1] == [0.5, None, None]
    assert matrix["battles"] == [[0, 3, 1], [3, 0, 0], [1, 0, 0]]
