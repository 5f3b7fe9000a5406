"""Merging several judgements of one item into one label."""

import pytest

from annotation.agreement import Judgement, merge, merge_labels


@pytest.mark.parametrize(
    ("first", "second", "merged"),
    [
        ("a", "a", "a"),
        ("b", "b", "b"),
        ("tie", "tie", "tie"),
        ("a", "tie", "a"),
        ("tie", "a", "a"),
        ("b", "tie", "b"),
        ("tie", "b", "b"),
        ("a", "b", "tie"),
        ("b", "a", "tie"),
    ],
)
def test_two_judgements_follow_the_merge_rule(first, second, merged):
    assert merge_labels([first, second]) == merged


@pytest.mark.parametrize("label", ["a", "b", "tie"])
def test_a_single_judgement_is_kept(label):
    assert merge_labels([label]) == label


@pytest.mark.parametrize(
    ("labels", "merged"),
    [
        (["a", "a", "b"], "a"),  # majority
        (["a", "tie", "tie"], "tie"),  # majority, even though the only side taken is a
        (["a", "b", "tie"], "tie"),  # no majority; a and b cancel
        (["a", "a", "b", "b"], "tie"),  # no majority; cancel
        (["a", "a", "b", "tie"], "a"),  # no majority; a leads by one vote
        (["b", "b", "tie", "tie", "a"], "b"),  # no majority; b leads by one vote
    ],
)
def test_three_or_more_judgements_take_the_majority_then_net_votes(labels, merged):
    assert merge_labels(labels) == merged
    assert merge_labels(labels[::-1]) == merged


def test_merge_keys_by_item_and_aspect():
    judgements = [
        Judgement("item-1", "ts", "ann-1", "a"),
        Judgement("item-1", "ts", "ann-2", "tie"),
        Judgement("item-1", "us", "ann-1", "a"),
        Judgement("item-1", "us", "ann-2", "b"),
        Judgement("item-2", "ts", "ann-1", "b"),
    ]
    assert merge(judgements) == {("item-1", "ts"): "a", ("item-1", "us"): "tie", ("item-2", "ts"): "b"}


def test_merging_nothing_is_an_error():
    with pytest.raises(ValueError, match="without judgements"):
        merge_labels([])


def test_unknown_labels_are_refused():
    with pytest.raises(ValueError, match="'better'"):
        merge_labels(["a", "better"])
    with pytest.raises(ValueError, match=r"judgement 1 \(item 'x', annotator 'ann-1'\): unknown label"):
        merge([Judgement("x", "ts", "ann-1", "A")])
