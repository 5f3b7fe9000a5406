"""Judges against humans on single triples: hand-computed κ, precision/recall, MAE, bias, tests."""

import math

import pytest

from annotation.triple_checks.statistics import (
    Sample,
    annotator_agreement,
    gold_label,
    judge_agreement,
    judge_facts,
    paired_test,
    system_bias,
)

ROUNDS = 200


def six_triples(weight=None):
    # Unsupported first: both say unsupported on 3 and 4, only humans on 5, only the judge on 2.
    return Sample.of(
        system=["x", "x", "x", "y", "y", "y"],
        human_supported=[True, True, True, False, False, False],
        human_facts=[1, 2, 1, 1, 3, 1],
        judge_supported=[True, True, False, False, False, True],
        judge_facts=[1, 1, 1, 2, 3, None],
        weight=weight,
    )


def test_judge_figures_by_hand():
    figures = judge_agreement(six_triples(), rounds=ROUNDS)
    assert figures["accuracy"]["value"] == pytest.approx(4 / 6)
    # Observed 4/6, chance 1/2 (each says unsupported for half): κ = (2/3 − 1/2) / (1/2).
    assert figures["kappa"]["value"] == pytest.approx(1 / 3)
    assert figures["precision"]["value"] == pytest.approx(2 / 3)
    assert figures["recall"]["value"] == pytest.approx(2 / 3)
    # Errors 0, 1, 0, 1, 0 on the five triples the judge split.
    assert figures["mae"]["value"] == pytest.approx(2 / 5)
    assert (figures["triples"], figures["split"]) == (6, 5)
    for name in ("accuracy", "precision", "recall", "mae"):
        assert figures[name]["low"] <= figures[name]["value"] <= figures[name]["high"]


def test_sampling_weights_count_a_triple_as_its_stratum():
    # The triple only humans call unsupported stands for three: recall 2 / 5, accuracy 4 / 8.
    figures = judge_agreement(six_triples(weight=[1, 1, 1, 1, 1, 3]), rounds=ROUNDS)
    assert figures["recall"]["value"] == pytest.approx(2 / 5)
    assert figures["precision"]["value"] == pytest.approx(2 / 3)
    assert figures["accuracy"]["value"] == pytest.approx(1 / 2)


def test_bootstrap_is_seeded():
    assert judge_agreement(six_triples(), rounds=ROUNDS) == judge_agreement(six_triples(), rounds=ROUNDS)


def test_bias_per_system_by_hand():
    bias = system_bias(six_triples(), rounds=ROUNDS)
    assert bias["x"]["fs"]["judge"]["value"] == pytest.approx(2 / 3)
    assert bias["x"]["fs"]["human"]["value"] == pytest.approx(1.0)
    assert bias["x"]["fs"]["bias"]["value"] == pytest.approx(-1 / 3)
    assert bias["y"]["fs"]["bias"]["value"] == pytest.approx(1 / 3)
    # y's granularity on the two triples the judge split: facts 2 and 3 against 1 and 3.
    assert bias["y"]["gs"]["bias"]["value"] == pytest.approx((math.exp(-2) - 1) / 2)
    assert bias["y"]["gs"]["triples"] == 2
    low, high = bias["y"]["fs"]["bias"]["low"], bias["y"]["fs"]["bias"]["high"]
    assert low <= 1 / 3 <= high


def test_no_judged_triple_gives_none_not_zero():
    sample = Sample.of(["x"], [True], [1], [None], [None])
    figures = judge_agreement(sample, rounds=ROUNDS)
    assert figures["accuracy"] == {"value": None, "low": None, "high": None}
    assert figures["mae"]["value"] is None


def test_mcnemar_counts_the_triples_one_judge_alone_gets_right():
    truth = [True, True, True, True, True, False]
    first = [True, True, True, True, True, False]
    second = [False, False, False, False, False, False]
    result = paired_test(truth, first, second)
    assert (result["first_only"], result["second_only"]) == (5, 0)
    assert result["p_value"] == pytest.approx(2 / 32)
    assert paired_test(truth, first, first)["p_value"] == 1.0


def test_gold_label_is_the_majority_and_the_lower_median():
    assert gold_label([True, True, False], [1, 2, 3]) == (True, 2)
    assert gold_label([True, False], [1, 2]) == (None, 1)
    assert gold_label([], []) == (None, None)


def test_annotator_agreement_by_hand():
    answers = [{"a": True, "b": True}, {"a": True, "b": False}, {"a": False, "b": False}, {"b": False, "a": False}]
    figures = annotator_agreement([*answers, {"a": True}], (True, False))
    # Observed 3/4; a says yes half the time, b a quarter: chance 1/2, κ = 1/2.
    assert figures["kappa"] == pytest.approx(0.5)
    # Per-item agreement 1, 0, 1, 1; shares 3/8 and 5/8: (3/4 − 34/64) / (30/64).
    assert figures["fleiss"] == pytest.approx(7 / 15)
    # Nominal α = 1 − (n − 1) · disagreeing pairs / (n_yes · n_no · 2) = 1 − 7 · 2 / 30.
    assert figures["alpha"] == pytest.approx(8 / 15)
    assert (figures["items"], figures["pairs"]) == (4, 4)


def test_fact_counts_use_an_interval_alpha():
    close = annotator_agreement([{"a": 2, "b": 3}, {"a": 1, "b": 1}, {"a": 4, "b": 4}], (1, 2, 3, 4, 5))
    far = annotator_agreement([{"a": 1, "b": 5}, {"a": 1, "b": 1}, {"a": 4, "b": 4}], (1, 2, 3, 4, 5))
    assert close["alpha"] > far["alpha"]


def test_a_judges_split_count_is_a_fact_count():
    assert [judge_facts(n) for n in (0, 2, 3)] == [1, 2, 3]
