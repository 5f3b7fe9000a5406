"""The annotator × annotator agreement matrix and Fleiss' kappa (``annotation.agreement``)."""

import itertools
import random

import numpy as np
import pytest

from annotation.agreement import Judgement, agreement, fleiss_kappa, label_agreement, pairwise_agreement


def test_fleiss_kappa_of_a_small_table_worked_by_hand():
    # Four items, three annotators each; columns a, b, tie.
    # Per item, the share of ordered annotator pairs that agree, sum n(n-1) / (3·2):
    #   (3,0,0) → 6/6 = 1;  (2,1,0) → 2/6;  (0,2,1) → 2/6;  (1,1,1) → 0.
    # Mean observed agreement: (1 + 1/3 + 1/3 + 0) / 4 = 5/12.
    # Labels overall: a 6, b 4, tie 2 of 12, so chance agreement (1/2)² + (1/3)² + (1/6)² = 7/18.
    # kappa = (5/12 − 7/18) / (1 − 7/18) = (1/36) / (11/18) = 1/22.
    table = [[3, 0, 0], [2, 1, 0], [0, 2, 1], [1, 1, 1]]
    assert fleiss_kappa(np.array(table)) == pytest.approx(1 / 22)


def test_fleiss_kappa_takes_items_with_different_numbers_of_annotators_and_drops_single_labels():
    # (2,0,0) → 2/2 = 1; (1,1,0) → 0; (0,0,1) has one label and is left out.
    # Labels: a 3, b 1 of 4: chance 9/16 + 1/16 = 10/16; kappa = (1/2 − 5/8) / (3/8) = −1/3.
    assert fleiss_kappa(np.array([[2, 0, 0], [1, 1, 0], [0, 0, 1]])) == pytest.approx(-1 / 3)


def test_fleiss_kappa_is_none_without_items_or_with_one_label_in_use():
    assert fleiss_kappa(np.zeros((0, 3))) is None
    assert fleiss_kappa(np.array([[1, 0, 0]])) is None
    assert fleiss_kappa(np.array([[2, 0, 0], [3, 0, 0]])) is None


def test_fleiss_kappa_is_reported_per_aspect():
    judgements = [
        Judgement(item, "fs", annotator, label)
        for item, labels in enumerate([("a", "a", "a"), ("a", "a", "b"), ("b", "b", "tie"), ("a", "b", "tie")])
        for annotator, label in zip("xyz", labels, strict=True)
    ]
    figures = agreement(judgements)
    assert figures["fs"]["fleiss"] == pytest.approx(1 / 22)
    assert figures["ts"]["fleiss"] is None


def test_the_matrix_of_three_annotators_worked_by_hand():
    judgements = [
        Judgement(1, "ts", "x", "a"),
        Judgement(1, "ts", "y", "a"),
        Judgement(1, "ts", "z", "b"),
        Judgement(2, "ts", "x", "b"),
        Judgement(2, "ts", "y", "tie"),
        Judgement(3, "us", "x", "a"),
        Judgement(3, "us", "z", "a"),
    ]
    matrix = pairwise_agreement(judgements)
    assert matrix["annotators"] == ["x", "y", "z"]
    # x–y: (a, a) scores 1, (b, tie) 0.5. Observed agreement 1/2; x says a or b half the time each,
    # y a or tie half the time each: chance 1/4; kappa (1/2 − 1/4) / (3/4) = 1/3.
    # x–z: (a, b) 0, (a, a) 1. x always a: chance 1/2 = observed, kappa 0.
    # y–z: (a, b) only: accuracy 0, chance 0, kappa 0.
    assert matrix["accuracy"] == [[None, 0.75, 0.5], [0.75, None, 0.0], [0.5, 0.0, None]]
    assert matrix["pairs"] == [[0, 2, 2], [2, 0, 1], [2, 1, 0]]
    kappa = matrix["kappa"]
    assert kappa[0][1] == pytest.approx(1 / 3) and kappa[1][0] == pytest.approx(1 / 3)
    assert kappa[0][2] == pytest.approx(0.0) and kappa[1][2] == pytest.approx(0.0)
    assert [kappa[index][index] for index in range(3)] == [None, None, None]


def test_pairs_with_nothing_in_common_or_one_label_in_use_have_no_figure():
    judgements = [
        Judgement(1, "ts", "x", "a"),
        Judgement(1, "ts", "y", "a"),
        Judgement(2, "ts", "z", "b"),
    ]
    matrix = pairwise_agreement(judgements)
    assert matrix["accuracy"][0][1] == 1.0 and matrix["kappa"][0][1] is None
    assert matrix["accuracy"][0][2] is None and matrix["pairs"][0][2] == 0
    assert pairwise_agreement([]) == {"annotators": [], "accuracy": [], "kappa": [], "pairs": []}


def test_the_matrix_equals_pair_by_pair_counting():
    rng = random.Random(5)
    people = [f"p{index}" for index in range(6)]
    judgements = [
        Judgement(item, aspect, person, rng.choice(["a", "b", "tie"]))
        for item in range(40)
        for aspect in ("ts", "cs")
        for person in rng.sample(people, rng.randint(1, 4))
    ]
    matrix = pairwise_agreement(judgements)
    labels = {(j.item, j.aspect, j.annotator): j.label for j in judgements}
    keys = {(j.item, j.aspect) for j in judgements}
    for (row, first), (column, second) in itertools.permutations(enumerate(matrix["annotators"]), 2):
        both = [
            (labels[(*key, first)], labels[(*key, second)])
            for key in keys
            if (*key, first) in labels and (*key, second) in labels
        ]
        assert matrix["pairs"][row][column] == len(both)
        if both:
            expected = sum(label_agreement(x, y) for x, y in both) / len(both)
            assert matrix["accuracy"][row][column] == pytest.approx(expected)
