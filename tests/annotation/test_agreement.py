"""Agreement between annotators: tie-discounted accuracy, Cohen's kappa, Krippendorff's alpha."""

import krippendorff
import numpy as np
import pytest

from annotation.agreement import Judgement, agreement, label_agreement, to_canonical
from scoring.genres.aspects import ASPECT_CODES


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("a", "a", 1.0),
        ("b", "b", 1.0),
        ("tie", "tie", 1.0),
        ("a", "tie", 0.5),
        ("tie", "a", 0.5),
        ("b", "tie", 0.5),
        ("tie", "b", 0.5),
        ("a", "b", 0.0),
        ("b", "a", 0.0),
    ],
)
def test_label_agreement_discounts_ties(first, second, expected):
    assert label_agreement(first, second) == expected


@pytest.mark.parametrize(
    ("shown", "swapped", "canonical"),
    [
        ("a", False, "a"),
        ("b", False, "b"),
        ("tie", False, "tie"),
        ("a", True, "b"),
        ("b", True, "a"),
        ("tie", True, "tie"),
    ],
)
def test_to_canonical_swaps_sides_but_not_ties(shown, swapped, canonical):
    assert to_canonical(shown, swapped) == canonical


def test_to_canonical_rejects_unknown_labels():
    with pytest.raises(ValueError, match="'left'"):
        to_canonical("left", swapped=False)


def test_accuracy_averages_doubly_judged_items_per_aspect():
    judgements = [
        Judgement("item-1", "ts", "ann-1", "a"),
        Judgement("item-1", "ts", "ann-2", "a"),  # same label: 1
        Judgement("item-2", "ts", "ann-1", "a"),
        Judgement("item-2", "ts", "ann-2", "tie"),  # one tie: 0.5
        Judgement("item-3", "ts", "ann-1", "a"),
        Judgement("item-3", "ts", "ann-2", "b"),  # opposite sides: 0
        Judgement("item-4", "ts", "ann-1", "b"),  # judged once: left out
        Judgement("item-1", "us", "ann-1", "b"),
        Judgement("item-1", "us", "ann-2", "b"),
    ]
    figures = agreement(judgements)
    assert figures["ts"]["accuracy"] == pytest.approx(1.5 / 3)
    assert (figures["ts"]["items"], figures["ts"]["pairs"]) == (3, 3)
    assert figures["us"]["accuracy"] == 1.0
    assert (figures["us"]["items"], figures["us"]["pairs"]) == (1, 1)


def test_three_annotators_on_one_item_contribute_three_pairs():
    judgements = [
        Judgement(7, "fs", "ann-1", "a"),
        Judgement(7, "fs", "ann-2", "a"),
        Judgement(7, "fs", "ann-3", "tie"),
    ]
    figures = agreement(judgements)["fs"]
    # Pairs (1, 2) = 1, (1, 3) = 0.5, (2, 3) = 0.5.
    assert figures["accuracy"] == pytest.approx(2 / 3)
    assert (figures["items"], figures["pairs"]) == (1, 3)
    assert figures["annotators"] == {
        "ann-1": {"accuracy": pytest.approx(0.75), "pairs": 2},
        "ann-2": {"accuracy": pytest.approx(0.75), "pairs": 2},
        "ann-3": {"accuracy": pytest.approx(0.5), "pairs": 2},
    }


def test_every_figure_is_none_without_doubly_judged_items():
    figures = agreement([Judgement(1, "gs", "ann-1", "a"), Judgement(2, "gs", "ann-2", "b")])
    assert set(figures) == set(ASPECT_CODES)
    gs = figures["gs"]
    assert (gs["accuracy"], gs["kappa"], gs["alpha"], gs["items"], gs["pairs"]) == (None, None, None, 0, 0)
    assert gs["annotators"] == {"ann-1": {"accuracy": None, "pairs": 0}, "ann-2": {"accuracy": None, "pairs": 0}}
    assert figures["cs"] == {
        "accuracy": None,
        "kappa": None,
        "alpha": None,
        "fleiss": None,
        "items": 0,
        "pairs": 0,
        "annotators": {},
    }


def _two_annotator_table(cells):
    """Judgements of annotators 1 and 2 giving ``cells[(label_1, label_2)]`` items each."""
    judgements = []
    item = 0
    for (label_1, label_2), count in cells.items():
        for _ in range(count):
            item += 1
            judgements += [Judgement(item, "ts", 2, label_2), Judgement(item, "ts", 1, label_1)]
    return judgements


def test_cohen_kappa_on_a_small_table():
    # Rows annotator 1, columns annotator 2: 8 of 10 on the diagonal, so p_o = 0.8.
    # Marginals: annotator 1 (a, b, tie) = (.5, .3, .2), annotator 2 = (.5, .4, .1),
    # p_e = .25 + .12 + .02 = .39, kappa = (.8 − .39) / (1 − .39) = .41 / .61.
    cells = {("a", "a"): 4, ("b", "b"): 3, ("tie", "tie"): 1, ("a", "b"): 1, ("tie", "a"): 1}
    figures = agreement(_two_annotator_table(cells))["ts"]
    assert figures["kappa"] == pytest.approx(0.41 / 0.61)
    assert figures["accuracy"] == pytest.approx((8 + 0 + 0.5) / 10)


def test_kappa_does_not_depend_on_the_order_judgements_arrive_in():
    cells = {("a", "a"): 2, ("b", "tie"): 1, ("tie", "b"): 2, ("a", "b"): 1}
    judgements = _two_annotator_table(cells)
    assert agreement(judgements)["ts"]["kappa"] == agreement(judgements[::-1])["ts"]["kappa"]


def test_kappa_and_alpha_are_none_when_everyone_always_says_the_same():
    figures = agreement(_two_annotator_table({("tie", "tie"): 3}))["ts"]
    assert figures["accuracy"] == 1.0
    assert figures["kappa"] is None
    assert figures["alpha"] is None


def test_krippendorff_alpha_on_a_tiny_case():
    # Two annotators, three items: (a, a), (b, b), (a, b). The coincidence matrix has
    # o_aa = o_bb = 2 and o_ab = o_ba = 1, so n_a = n_b = 3 and n = 6;
    # D_o = 2/6, D_e = 2·3·3 / (6·5) = 0.6, alpha = 1 − (1/3)/0.6 = 4/9.
    judgements = _two_annotator_table({("a", "a"): 1, ("b", "b"): 1, ("a", "b"): 1})
    judgements.append(Judgement("judged-once", "ts", 3, "tie"))  # no pair: does not count
    figures = agreement(judgements)["ts"]
    package = krippendorff.alpha(reliability_data=[[0, 1, 0], [0, 1, 1]], level_of_measurement="nominal")
    assert figures["alpha"] == pytest.approx(4 / 9)
    assert figures["alpha"] == pytest.approx(package)


def test_alpha_matches_the_package_with_three_annotators_and_gaps():
    codes = {"a": 0.0, "b": 1.0, "tie": 2.0}
    table = [  # rows annotators, columns items, None: not judged
        ["a", "a", "b", "tie", None, "a"],
        ["a", "b", "b", "tie", "a", None],
        [None, "b", "b", "a", "a", "a"],
    ]
    judgements = [
        Judgement(item, "cs", annotator, label)
        for annotator, row in enumerate(table)
        for item, label in enumerate(row)
        if label is not None
    ]
    reliability = [[np.nan if label is None else codes[label] for label in row] for row in table]
    expected = krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal")
    assert agreement(judgements)["cs"]["alpha"] == pytest.approx(expected)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (Judgement(5, "xx", "ann-1", "a"), r"judgement 2 \(item 5, annotator 'ann-1'\): unknown aspect 'xx'"),
        (Judgement(5, "ts", "ann-1", "left"), r"judgement 2 \(item 5, annotator 'ann-1'\): unknown label 'left'"),
        (Judgement(4, "ts", "ann-1", "b"), r"judgement 2 \(item 4, annotator 'ann-1'\): .* already judged"),
    ],
)
def test_bad_judgements_are_named(bad, message):
    with pytest.raises(ValueError, match=message):
        agreement([Judgement(4, "ts", "ann-1", "a"), bad])
