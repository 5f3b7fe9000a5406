"""The bias of FS and GS compares like with like: the humans' and the judge's estimates on a triple
sample follow the leaderboard's definition, a mean per text of the mean over its triples with an
empty output counted as 0 (docs/metrics.md), not a share of triples. Hand-computed."""

import math

import pytest
from django.contrib.auth.models import User

from annotation.triple_checks.models import TripleLabel
from annotation.triple_checks.queries import judge_report
from annotation.triple_checks.services import create_triple_check, save_label
from annotation.triple_checks.statistics import Sample, system_bias
from tests.annotation.triple_check_fixtures import judge_run
from tests.factories import make_dataset

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


@pytest.mark.django_db
def test_the_report_gives_the_per_text_means_of_a_dataset():
    """Through the database: outputs of one, three and no triples; every triple sampled (weight 1)
    and labelled; the judge calls the second triple of each output unsupported."""
    lengths = [1, 3, 0]
    dataset, systems = make_dataset(
        "per-text",
        3,
        ("only",),
        outputs=lambda position, _: [["Ada", f"r{n}", "notes"] for n in range(lengths[position])],
    )
    judge_run(dataset, systems, "judged", "careful", unsupported_index=1)
    annotator = User.objects.create_user("reader")
    campaign = create_triple_check("per-text check", dataset, systems, [annotator], per_stratum=10, overlap_share=0.0)
    # Humans: text 1's triple supported; text 2's first two not, its third supported, of two facts.
    for label in TripleLabel.objects.filter(item__campaign=campaign).select_related("item"):
        index = label.item.index
        save_label(label, "yes" if index in (0, 2) and not (index == 0 and label.item.text.position == 1) else "no",
                   "2" if index == 2 else "1")  # fmt: skip
    figures = judge_report(dataset, rounds=ROUNDS)["judges"][0]["systems"]["only"]
    # FS: the judge (1 + 2/3 + 0) / 3 = 5/9; humans (1 + 1/3 + 0) / 3 = 4/9, where shares of the
    # four triples would say 3/4 and 2/4.
    assert campaign.items.count() == 4 and set(campaign.items.values_list("weight", flat=True)) == {1.0}
    assert figures["fs"]["judge"]["value"] == pytest.approx(5 / 9)
    assert figures["fs"]["human"]["value"] == pytest.approx(4 / 9)
    # GS: the judge splits nothing, (1 + 1 + 0) / 3; humans count two facts in text 2's third
    # triple, (1 + (1 + 1 + e^-2) / 3 + 0) / 3.
    assert figures["gs"]["judge"]["value"] == pytest.approx(2 / 3)
    assert figures["gs"]["human"]["value"] == pytest.approx((1 + (2 + math.exp(-2)) / 3) / 3)
