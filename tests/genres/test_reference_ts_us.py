"""The scorer under the reference rules: an empty output's ts and us as the authors' code gives them."""

import math

import numpy as np
import pytest

from scoring.genres.embedders import get_embedder
from scoring.genres.scorer import Scorer, ScoreSettings, TextRecord, aggregate
from scoring.genres.topics import TopicModel, TopicSettings, kl_divergence, text_tokens

TEXTS = [
    "The striker scored twice and the home team won the league final.",
    "Investors sold bank shares as the central bank raised interest rates.",
] * 6
TRIPLES = [["striker", "scored for", "home team"], ["home team", "won", "league final"]]


@pytest.fixture(scope="module")
def topic_model(tmp_path_factory):
    return TopicModel.for_texts(TEXTS, tmp_path_factory.mktemp("lda"), TopicSettings(num_topics=2, seed=3))


def scores(rules, topic_model):
    records = [TextRecord("full", TEXTS[0], TRIPLES), TextRecord("empty", TEXTS[1], [])]
    scorer = Scorer(ScoreSettings(rules=rules), get_embedder("hashing"), None, topic_model)
    return scorer.score(records, ("ts", "us"))


def test_an_empty_output_scores_zero_under_the_app_rules(topic_model):
    full, empty = scores("app", topic_model)
    assert empty.values["ts"] == 0.0 and empty.values["us"] == 0.0
    assert full.values["us"] == 1.0  # two different triples


def test_an_empty_output_scores_the_prior_ts_and_us_one_under_the_reference_rules(topic_model):
    app_full, _ = scores("app", topic_model)
    full, empty = scores("reference", topic_model)
    prior = math.exp(-kl_divergence(topic_model.mixture(text_tokens(TEXTS[1])), np.full(2, 0.5)))
    assert empty.values["ts"] == pytest.approx(prior) and empty.values["us"] == 1.0
    assert full.values == app_full.values  # a text with triples scores the same under both
    means = aggregate([full, empty])
    assert means["us"] == 1.0 and means["ts"] == pytest.approx((full.values["ts"] + prior) / 2)
