"""The figures: one view per aspect, and JSON that plotly.js reads."""

import json

import pytest

from leaderboard.plots.matrices import win_rate_heatmaps
from leaderboard.plots.ratings import rating_bars, rating_vs_score, ratings_by_aspect
from leaderboard.plots.scores import score_profile

ASPECTS = [("ts", "Topical similarity"), ("us", "Uniqueness")]


def board(**ratings):
    return {
        system: {"rating": rating, "ci_low": rating - 20, "ci_high": rating + 30} for system, rating in ratings.items()
    }


def test_rating_points_show_one_aspect_at_a_time_best_human_rating_on_top():
    human = {"ts": board(x=1040, y=960), "us": board(x=990, y=1010)}
    metric = {"ts": board(x=1100, y=900), "us": board(x=1000, y=1000)}
    figure = rating_bars(human, metric, ASPECTS, "Elo")
    traces = figure["data"]
    assert [trace["visible"] for trace in traces] == [True, True, False, False]
    # Points with their intervals, not bars: ratings near 1000 stay visible.
    assert traces[0]["mode"] == "markers" and traces[0]["x"] == [1040, 960] and traces[0]["y"] == ["x", "y"]
    assert traces[0]["error_x"]["array"] == [30, 30] and traces[0]["error_x"]["arrayminus"] == [20, 20]
    # Plotly draws categories bottom-up: the array is reversed so the best is on top.
    assert figure["layout"]["yaxis"]["categoryarray"] == ["y", "x"]
    # Every aspect on one range, which holds every interval and the initial rating.
    low, high = figure["layout"]["xaxis"]["range"]
    assert low < 880 and high > 1130
    assert figure["layout"]["shapes"][0]["x0"] == 1000
    buttons = figure["layout"]["updatemenus"][0]["buttons"]
    assert [button["label"] for button in buttons] == ["Topical similarity", "Uniqueness"]
    assert buttons[1]["args"][0]["visible"] == [False, False, True, True]
    assert buttons[1]["args"][1] == {"yaxis.categoryarray": ["x", "y"]}
    json.dumps(figure)


def test_figure_five_puts_every_aspect_of_a_system_side_by_side():
    human = {"ts": board(x=1040, y=960), "us": board(x=990, y=1010)}
    metric = {"ts": board(x=1100, y=900), "us": board(x=1000, y=1000)}
    figure = ratings_by_aspect(human, metric, ASPECTS, "Elo")
    assert [trace["name"] for trace in figure["data"]] == ["Human", "GENRES metric battles"]
    human_bars = figure["data"][0]
    # Two levels on the axis: the system (best mean human rating first), then the aspect.
    assert human_bars["y"] == [["x", "x", "y", "y"], ["TS", "US", "TS", "US"]]
    # Bars rise from the initial rating: their length is the rating minus 1000.
    assert human_bars["x"] == [40, -10, -40, 10] and human_bars["base"] == 1000
    assert human_bars["customdata"] == [1040, 990, 960, 1010]
    assert human_bars["error_x"]["array"] == [30] * 4
    json.dumps(figure)


def test_scatter_leaves_out_systems_without_a_score():
    human = {"ts": board(x=1040, y=960), "us": board(x=990)}
    figure = rating_vs_score(human, {"ts": {"x": 0.8, "y": None}, "us": {"x": 0.5}}, ASPECTS, "Elo")
    assert [trace["text"] for trace in figure["data"]] == [["x"], ["x"]]
    assert figure["data"][0]["mode"] == "markers+text"  # points are labelled
    # The hover names the system from customdata: the page blanks a label that has no room.
    assert [trace["customdata"] for trace in figure["data"]] == [["x"], ["x"]]
    assert "%{customdata}" in figure["data"][0]["hovertemplate"]
    assert figure["data"][0]["x"] == [pytest.approx(80.0)]


def test_profile_closes_each_system_polygon_and_marks_ground_truth():
    rows = [
        {"system": "Ground truth", "ground_truth": True, "values": {"ts": 1.0, "us": 1.0}},
        {"system": "x", "ground_truth": False, "values": {"ts": 0.5, "us": None}},
    ]
    traces = score_profile(rows, ASPECTS)["data"]
    assert traces[0]["r"] == [100.0, 100.0, 100.0] and traces[0]["line"]["dash"] == "dot"
    assert traces[1]["r"] == [50.0, None, 50.0]
    # Two-word names on two lines, so they are not clipped at a phone's width.
    assert traces[1]["theta"] == ["Topical<br>similarity", "Uniqueness", "Topical<br>similarity"]


def test_heatmaps_without_judgements_are_empty_but_valid():
    figure = win_rate_heatmaps({}, ASPECTS)
    assert [trace["type"] for trace in figure["data"]] == ["heatmap", "heatmap"]
    json.dumps(figure)


def test_heatmap_cells_read_as_whole_percentages():
    matrix = {"systems": ["x", "y"], "rates": [[None, 0.625], [0.375, None]], "battles": [[0, 8], [8, 0]]}
    figure = win_rate_heatmaps({"ts": matrix, "us": matrix}, ASPECTS)
    assert figure["data"][0]["text"] == [["", "62"], ["38", ""]]
