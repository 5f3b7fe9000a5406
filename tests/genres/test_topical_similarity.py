import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from scoring.genres.topics import (
    TopicModel,
    TopicSettings,
    default_topic_count,
    kl_divergence,
    text_tokens,
    triple_tokens,
)

REPOSITORY = Path(__file__).resolve().parents[2]

TEXTS = [
    "The striker scored twice and the home team won the league final in front of a full stadium.",
    "The goalkeeper saved a penalty, and the club celebrated the championship with its supporters.",
    "Investors sold bank shares as the central bank raised interest rates and markets fell.",
    "The stock exchange closed lower after inflation figures worried traders and fund managers.",
    "Doctors treated the patient with a new drug, and the tumour shrank within three months.",
    "The hospital trial showed the vaccine reduced infections among elderly patients.",
] * 4
SPORT = [["striker", "scored for", "home team"], ["club", "won", "championship"]]
FINANCE = [["investors", "sold", "bank shares"], ["central bank", "raised", "interest rates"]]
SETTINGS = TopicSettings(num_topics=3, seed=7)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return TopicModel.for_texts(TEXTS, tmp_path_factory.mktemp("lda"), SETTINGS)


def test_default_topic_count_scales_with_the_square_root_of_the_corpus():
    assert [default_topic_count(n) for n in (1, 40, 1500, 5000, 38000)] == [2, 8, 50, 92, 150]


def test_tokens_are_lower_case_words_without_stop_words_or_numbers():
    assert text_tokens("The Danube flows into the Black Sea, 2,850 kilometres away!") == [
        "danube",
        "flows",
        "black",
        "sea",
        "kilometres",
        "away",
    ]


def test_each_triple_is_tokenised_on_its_own():
    assert triple_tokens([["New York", "hosts", "Olympics"], ["it", "is", "big"]]) == [
        "new",
        "york",
        "hosts",
        "olympics",
        "big",
    ]


def test_kl_divergence_hand_computed():
    assert kl_divergence([0.5, 0.5], [0.25, 0.75]) == pytest.approx(0.5 * math.log(2) + 0.5 * math.log(2 / 3))
    assert kl_divergence([0.2, 0.8], [0.2, 0.8]) == pytest.approx(0.0, abs=1e-12)


def test_kl_divergence_is_finite_when_a_topic_is_missing():
    # Without smoothing this is infinite; with ε = 1e-10 it is about ln(1e10) / 2 + ln 2 / 2.
    expected = 0.5 * math.log(0.5 / 1e-10) + 0.5 * math.log(0.5)
    assert kl_divergence([0.5, 0.5], [1.0, 0.0]) == pytest.approx(expected, rel=1e-6)


def test_ts_is_exp_of_minus_kl_between_text_and_triples(model):
    expected = math.exp(-kl_divergence(model.mixture(text_tokens(TEXTS[0])), model.mixture(triple_tokens(SPORT))))
    assert model.topical_similarity(TEXTS[0], SPORT) == pytest.approx(expected)


def test_on_topic_triples_score_higher_than_off_topic_ones(model):
    assert model.topical_similarity(TEXTS[0], SPORT) > 0.8 > 0.2 > model.topical_similarity(TEXTS[0], FINANCE)
    assert model.topical_similarity(TEXTS[2], FINANCE) > model.topical_similarity(TEXTS[2], SPORT)


def test_no_triples_scores_zero(model):
    assert model.topical_similarity(TEXTS[0], []) == 0.0


def test_reference_rules_compare_no_triples_as_an_empty_document(model):
    # The authors infer the topics of the empty string: the prior (uniform) mixture, so an empty
    # output scores exp(-KL(θ_D ‖ uniform)), small but above 0; with triples both rules agree.
    expected = math.exp(-kl_divergence(model.mixture(text_tokens(TEXTS[0])), np.full(3, 1 / 3)))
    assert model.reference_topical_similarity(TEXTS[0], []) == pytest.approx(expected)
    assert 0 < model.reference_topical_similarity(TEXTS[0], []) < model.topical_similarity(TEXTS[0], SPORT)
    assert model.reference_topical_similarity(TEXTS[0], SPORT) == model.topical_similarity(TEXTS[0], SPORT)


def test_triples_without_known_words_get_the_prior_mixture(model):
    mixture = model.mixture(triple_tokens([["xyzzy", "the", "plugh"]]))
    assert mixture == pytest.approx(np.full(3, 1 / 3))


def test_mixtures_are_full_and_sum_to_one(model):
    mixture = model.mixture(text_tokens(TEXTS[4]))
    assert mixture.shape == (3,) and mixture.min() > 0 and mixture.sum() == pytest.approx(1.0)


def test_inference_does_not_depend_on_earlier_calls(model):
    first = model.topical_similarity(TEXTS[1], SPORT)
    for text in TEXTS[:6]:
        model.topical_similarity(text, FINANCE)
    assert model.topical_similarity(TEXTS[1], SPORT) == first


def test_models_are_cached_on_disk_and_reloaded(tmp_path):
    trained = TopicModel.for_texts(TEXTS, tmp_path, SETTINGS)
    reloaded = TopicModel.for_texts(TEXTS, tmp_path, SETTINGS)
    assert not trained.loaded_from_cache and reloaded.loaded_from_cache
    assert reloaded.fingerprint == trained.fingerprint
    assert reloaded.topical_similarity(TEXTS[0], SPORT) == trained.topical_similarity(TEXTS[0], SPORT)
    assert len(list(tmp_path.iterdir())) == 1


def test_changed_texts_or_settings_train_a_new_model(tmp_path):
    TopicModel.for_texts(TEXTS, tmp_path, SETTINGS)
    assert not TopicModel.for_texts(TEXTS[:-1], tmp_path, SETTINGS).loaded_from_cache
    assert not TopicModel.for_texts(TEXTS, tmp_path, TopicSettings(num_topics=3, seed=8)).loaded_from_cache
    assert len(list(tmp_path.iterdir())) == 3


def test_default_settings_pick_the_topic_count_from_the_corpus(tmp_path):
    assert TopicModel.for_texts(TEXTS, tmp_path).num_topics == default_topic_count(len(TEXTS))


def test_texts_without_any_word_are_refused(tmp_path):
    with pytest.raises(ValueError, match="no words left"):
        TopicModel.for_texts(["the and of", "42 !"], tmp_path)


@pytest.mark.subprocess
def test_scores_are_identical_in_a_fresh_process(model, tmp_path):
    # Trains its own model in another directory: training and inference must both be reproducible.
    script = f"""
import json
from scoring.genres.topics import TopicModel, TopicSettings
model = TopicModel.for_texts({TEXTS!r}, {str(tmp_path)!r}, TopicSettings(num_topics=3, seed=7))
scores = [model.topical_similarity(text, triples) for text in {TEXTS[:6]!r} for triples in ({SPORT!r}, {FINANCE!r})]
print(json.dumps(scores))
"""
    result = subprocess.run([sys.executable, "-c", script], cwd=REPOSITORY, capture_output=True, text=True, check=True)
    here = [model.topical_similarity(text, triples) for text in TEXTS[:6] for triples in (SPORT, FINANCE)]
    assert json.loads(result.stdout) == here
