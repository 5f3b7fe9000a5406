"""The notebook API: DataFrames of per-text scores, means with intervals, tests, judgements, agreement, ratings."""

import pandas as pd
import pytest

from leaderboard import frames
from tests.leaderboard.leaderboard_fixtures import (
    HUMAN_ORDER,
    judged_campaign,
    ranking_labels,
    scored_dataset,
)

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


@pytest.fixture
def dataset():
    dataset, systems = scored_dataset(name="eight", texts=8)
    judged_campaign(dataset, systems, ranking_labels(HUMAN_ORDER), is_open=False)
    return dataset


def test_text_scores_have_one_row_per_text_and_system(dataset):
    scores = frames.text_scores("eight")
    assert list(scores.columns) == list(frames.TEXT_SCORE_COLUMNS)
    assert len(scores) == 8 * 3
    assert scores["text"].tolist()[:3] == ["eight-1"] * 3  # the external id
    assert scores["position"].tolist()[-1] == 8
    alpha = scores[scores["system"] == "alpha"]
    assert (alpha["ts"] == 0.9).all() and (alpha["relaxed_f1"] == 0.9).all()
    # The mean over texts is the leaderboard's mean.
    assert scores.groupby("system")["cs"].mean().to_dict() == pytest.approx({"alpha": 0.9, "beta": 0.5, "gamma": 0.1})


def test_system_means_and_pairwise_tests(dataset):
    means = frames.system_means(dataset).set_index(["aspect", "system"])
    assert means.loc[("ts", "beta"), "mean"] == pytest.approx(0.5)
    assert means.loc[("ts", "beta"), ["rank_best", "rank_worst"]].tolist() == [2, 2]
    assert means.loc[("gs", "alpha"), "texts"] == 8
    tests = frames.pairwise_tests(dataset).set_index(["aspect", "system", "opponent"])
    assert len(tests) == 5 * 6
    # 8 texts, all differences positive: exact p = 2/256, Holm's first step × 3.
    assert tests.loc[("us", "alpha", "gamma"), "p_holm"] == pytest.approx(3 * 2 / 256)
    assert tests.loc[("us", "gamma", "alpha"), "apart"] == -1


def test_judgements_agreement_and_ratings(dataset):
    judgements = frames.judgements("eight")
    assert len(judgements) == 8 * 3 * 5  # texts × pairs × aspects, one annotator
    assert set(judgements["campaign"]) == {"study"}
    assert isinstance(judgements["judged_at"].dtype, pd.DatetimeTZDtype)
    agreement = frames.agreement("eight", campaign="study")
    assert agreement["aspect"].tolist() == ["ts", "us", "fs", "gs", "cs"]
    assert (agreement["items"] == 0).all()  # nothing judged twice
    ratings = frames.ratings("eight", rounds=50)
    elo_us = ratings[(ratings["method"] == "elo") & (ratings["aspect"] == "us")].sort_values("rating")
    assert elo_us["system"].tolist() == ["alpha", "beta", "gamma"]  # humans rank uniqueness backwards
    assert set(ratings["method"]) == {"elo", "bt"}


def test_unknown_names_are_refused_with_a_message():
    with pytest.raises(LookupError, match="No dataset named 'nowhere'"):
        frames.text_scores("nowhere")
    scored_dataset(name="eight", texts=2)
    with pytest.raises(LookupError, match="No scoring results with the setting 'abc'"):
        frames.system_means("eight", setting="abc")
    with pytest.raises(LookupError, match="No campaign named 'other'"):
        frames.judgements("eight", campaign="other")
    assert frames.judgements("eight").empty
