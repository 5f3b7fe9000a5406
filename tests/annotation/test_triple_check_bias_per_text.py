"""The bias of FS and GS compares like with like: the humans' and the judge's estimates on a triple
sample follow the leaderboard's definition, a mean per text of the mean over its triples with an
empty output counted as 0 (docs/metrics.md), not a share of triples. Hand-computed."""

import math

import pytest

from annotation.triple_checks.statistics import Sample, system_bias

ROUNDS = 50
# One system, three texts: text 1 has one triple, text 2 three, text 3 none (an empty output).
# Humans: text 1's triple supported and atomic; text 2's first supported, the other two not, its
# last of two facts. The judge calls all four supported and atomic.
OUTPUT_TRIPLES = [1, 3, 3, 3]
ALL_FOUR = {
    "system": ["s"] * 4,
    "human_supported": [True, True, False, False],
    "human_facts": [1, 1, 1, 2],
    "judge_supported": [True, True, True, True],
    "judge_facts": [1, 1, 1, 1],
    "output_triples": OUTPUT_TRIPLES,
}
ANSWERED_SHARE = {"s": 2 / 3}


def test_the_whole_output_gives_the_per_text_means_of_the_leaderboard():
    figures = system_bias(Sample.of(**ALL_FOUR), rounds=ROUNDS, answered_share=ANSWERED_SHARE)["s"]
    # FS per text: humans (1 + 1/3 + 0) / 3 = 4/9, the judge (1 + 1 + 0) / 3 = 2/3; a share of
    # triples would say 2/4 and 4/4 instead.
    assert figures["fs"]["human"]["value"] == pytest.approx(4 / 9)
    assert figures["fs"]["judge"]["value"] == pytest.approx(2 / 3)
    assert figures["fs"]["bias"]["value"] == pytest.approx(2 / 9)
    # GS per text: humans (1 + (1 + 1 + e^-2) / 3 + 0) / 3, the judge (1 + 1 + 0) / 3.
    human_gs = (1 + (2 + math.exp(-2)) / 3) / 3
    assert figures["gs"]["human"]["value"] == pytest.approx(human_gs)
    assert figures["gs"]["bias"]["value"] == pytest.approx(2 / 3 - human_gs)


def test_sampling_weights_stand_for_the_triples_not_drawn():
    # Text 2's stratum of three gave two triples (weight 3/2 each): its supported one and the
    # unsupported atomic one. Ratio estimate over the texts with triples: (1·1 + 1/2·1 + 1/2·0) /
    # (1 + 1/2 + 1/2) = 3/4, scaled by the 2 of 3 texts with triples: 1/2.
    sample = Sample.of(
        system=["s"] * 3,
        human_supported=[True, True, False],
        human_facts=[1, 1, 1],
        judge_supported=[True, True, True],
        judge_facts=[1, 1, 1],
        weight=[1, 1.5, 1.5],
        output_triples=[1, 3, 3],
    )
    figures = system_bias(sample, rounds=ROUNDS, answered_share=ANSWERED_SHARE)["s"]
    assert figures["fs"]["human"]["value"] == pytest.approx(1 / 2)
    assert figures["fs"]["judge"]["value"] == pytest.approx(2 / 3)


def test_the_reference_rules_leave_an_empty_output_out_of_gs():
    figures = system_bias(Sample.of(**ALL_FOUR), rounds=ROUNDS, answered_share=ANSWERED_SHARE, empty_counts=("fs",))[
        "s"
    ]
    assert figures["fs"]["judge"]["value"] == pytest.approx(2 / 3)
    # Over the two texts with triples only: (1 + (2 + e^-2) / 3) / 2 and (1 + 1) / 2.
    assert figures["gs"]["human"]["value"] == pytest.approx((1 + (2 + math.exp(-2)) / 3) / 2)
    assert figures["gs"]["judge"]["value"] == pytest.approx(1.0)
