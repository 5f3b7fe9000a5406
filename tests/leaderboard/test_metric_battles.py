"""Metric battles: verdicts from automatic scores, with a margin, rated like human battles."""

import math

import pytest

from annotation.ratings import elo_ratings
from leaderboard.metric_battles import metric_battles, metric_labels

SYSTEMS = ["gpt", "llama", "mistral"]


@pytest.mark.parametrize(
    ("score_a", "score_b", "label"),
    [
        (0.7, 0.5, "a"),  # exactly the margin, despite 0.7 − 0.5 < 0.2 in floating point
        (0.5, 0.7, "b"),
        (0.69, 0.5, "tie"),  # just short of the margin
        (0.5, 0.69, "tie"),
        (0.6, 0.6, "tie"),
        (1.0, 0.0, "a"),
        (0.0, 0.0, "tie"),
    ],
)
def test_the_higher_score_wins_only_by_the_margin(score_a, score_b, label):
    labels = metric_labels({"t1": {"gpt": score_a, "llama": score_b}}, SYSTEMS[:2])
    assert labels == {("t1", "gpt", "llama"): label}


def test_margin_is_configurable_and_zero_still_needs_a_higher_score():
    scores = {"t1": {"gpt": 0.55, "llama": 0.5, "mistral": 0.55}}
    assert metric_labels(scores, SYSTEMS, margin=0.05) == {
        ("t1", "gpt", "llama"): "a",
        ("t1", "gpt", "mistral"): "tie",
        ("t1", "llama", "mistral"): "b",
    }
    assert metric_labels(scores, SYSTEMS, margin=0.0) == metric_labels(scores, SYSTEMS, margin=0.05)
    assert set(metric_labels(scores, SYSTEMS, margin=0.1).values()) == {"tie"}


def test_pairs_with_a_missing_score_are_skipped():
    scores = {"t1": {"gpt": 0.9, "llama": None, "mistral": 0.1}, "t2": {"llama": 0.8}}
    assert metric_labels(scores, SYSTEMS) == {("t1", "gpt", "mistral"): "a"}


def test_pairs_follow_the_given_system_order():
    scores = {"t1": {"gpt": 0.9, "llama": 0.1}}
    assert metric_labels(scores, ["llama", "gpt"]) == {("t1", "llama", "gpt"): "b"}


@pytest.mark.parametrize("bad", [math.nan, math.inf, "0.5", True])
def test_a_score_that_is_not_a_finite_number_is_named(bad):
    with pytest.raises(ValueError, match=r"text 't2', system 'llama': score .* is not a finite number"):
        metric_labels({"t1": {"gpt": 0.5}, "t2": {"gpt": 0.5, "llama": bad}}, SYSTEMS)


@pytest.mark.parametrize("margin", [-0.1, math.nan, None])
def test_the_margin_must_be_a_non_negative_number(margin):
    with pytest.raises(ValueError, match="margin"):
        metric_labels({"t1": {"gpt": 0.5}}, SYSTEMS, margin=margin)


def test_metric_battles_are_rated_like_human_battles():
    scores = {
        "t1": {"gpt": 0.9, "llama": 0.4, "mistral": 0.8},
        "t2": {"gpt": 0.3, "llama": 0.6, "mistral": None},
    }
    battles = metric_battles(scores, SYSTEMS)
    assert battles.systems == tuple(SYSTEMS)
    # t1: gpt beats llama, gpt ties mistral, mistral beats llama; t2: llama beats gpt.
    assert battles.a.tolist() == [0, 0, 1, 0]
    assert battles.b.tolist() == [1, 2, 2, 1]
    assert battles.outcome.tolist() == [1.0, 0.5, 0.0, 0.0]
    assert elo_ratings(battles).sum() == pytest.approx(3000)


def test_no_scores_give_no_battles_but_keep_every_system():
    battles = metric_battles({}, SYSTEMS)
    assert len(battles) == 0
    assert battles.systems == tuple(SYSTEMS)
