"""Pure planning: seeded sampling, overlap, balanced queues and rebalancing plans (no database)."""

from collections import Counter

import pytest

from annotation.sampling import Slot, a_on_left, assign_queues, plan_rebalance, sample_texts, select_overlap

TEXTS = list(range(100, 140))
PAIRS_PER_TEXT = 3  # three systems


def text_items(texts=TEXTS, pairs=PAIRS_PER_TEXT):
    return {text: [text * 10 + pair for pair in range(pairs)] for text in texts}


def text_of(item):
    return item // 10


def test_sample_is_reproducible_and_keeps_original_order():
    first = sample_texts(TEXTS, 12, seed=3)
    assert first == sample_texts(TEXTS, 12, seed=3)
    assert first == sorted(first)
    assert len(set(first)) == 12 and set(first) <= set(TEXTS)
    assert first != sample_texts(TEXTS, 12, seed=4)


def test_sample_refuses_impossible_sizes():
    with pytest.raises(ValueError, match="Cannot sample 41 texts from 40"):
        sample_texts(TEXTS, 41, seed=1)
    with pytest.raises(ValueError, match="at least one"):
        sample_texts(TEXTS, 0, seed=1)


@pytest.mark.parametrize("share, expected", [(0.0, 0), (0.5, 20), (0.25, 10), (1.0, 40)])
def test_overlap_takes_the_share_of_texts(share, expected):
    overlap = select_overlap(TEXTS, share, seed=5)
    assert len(overlap) == expected
    assert overlap == select_overlap(TEXTS, share, seed=5)


def test_overlap_share_outside_unit_interval_is_refused():
    with pytest.raises(ValueError, match="between 0 and 1"):
        select_overlap(TEXTS, 1.5, seed=5)


def test_sides_are_seeded_per_assignment_and_roughly_fair():
    sides = [a_on_left(9, item, annotator) for item in range(500) for annotator in (1, 2)]
    assert sides == [a_on_left(9, item, annotator) for item in range(500) for annotator in (1, 2)]
    assert 400 < sum(sides) < 600


def test_queues_give_overlap_texts_to_two_different_annotators():
    overlap = select_overlap(TEXTS, 0.5, seed=2)
    queues = assign_queues(text_items(), overlap, [1, 2, 3], seed=2)
    holders = Counter()
    for queue in queues.values():
        assert len(queue) == len(set(queue)), "an annotator never gets the same item twice"
        for text in {text_of(item) for item in queue}:
            holders[text] += 1
    assert {text for text, count in holders.items() if count == 2} == overlap
    assert {text for text, count in holders.items() if count == 1} == set(TEXTS) - overlap


def test_queues_are_balanced_by_items_and_keep_a_text_together():
    overlap = select_overlap(TEXTS, 0.5, seed=2)
    queues = assign_queues(text_items(), overlap, [1, 2, 3, 4, 5, 6, 7], seed=2)
    loads = [len(queue) for queue in queues.values()]
    assert sum(loads) == (len(TEXTS) + len(overlap)) * PAIRS_PER_TEXT
    assert max(loads) - min(loads) <= PAIRS_PER_TEXT
    for queue in queues.values():
        texts_in_order = [text_of(item) for item in queue]
        # Adjacent pairs: each text appears as one contiguous run of all its pairs.
        runs = [text for index, text in enumerate(texts_in_order) if index == 0 or texts_in_order[index - 1] != text]
        assert len(runs) == len(set(runs))
        assert all(count == PAIRS_PER_TEXT for count in Counter(texts_in_order).values())


def test_queues_are_reproducible():
    overlap = select_overlap(TEXTS, 0.5, seed=2)
    assert assign_queues(text_items(), overlap, [1, 2, 3], seed=2) == assign_queues(
        text_items(), overlap, [1, 2, 3], seed=2
    )


def test_overlap_needs_two_annotators():
    with pytest.raises(ValueError, match="at least two annotators"):
        assign_queues(text_items(), {TEXTS[0]}, [1], seed=2)


def slots_from(queues, done=frozenset(), started=frozenset()):
    return [
        Slot(
            key=(annotator, item),
            item=item,
            text=text_of(item),
            annotator=annotator,
            done=(annotator, item) in done,
            position=position,
            started=(annotator, item) in started,
        )
        for annotator, queue in queues.items()
        for position, item in enumerate(queue)
    ]


def owners_after(slots, plan):
    owners = {}
    for slot in slots:
        if slot.key not in plan.dropped:
            owners[slot.key] = plan.moves.get(slot.key, slot.annotator)
    return owners


def test_removed_annotator_pending_work_is_redistributed_to_different_annotators():
    overlap = select_overlap(TEXTS, 0.5, seed=2)
    queues = assign_queues(text_items(), overlap, [1, 2, 3], seed=2)
    done = {(1, item) for item in queues[1][:6]}
    slots = slots_from(queues, done=done)
    plan = plan_rebalance(slots, [2, 3], seed=2)

    owners = owners_after(slots, plan)
    assert all(owners[key] == 1 for key in done), "done work never moves"
    assert not plan.dropped
    holders_of_item = Counter((owner, key[1]) for key, owner in owners.items())
    assert max(holders_of_item.values()) == 1, "nobody holds an item twice"
    pending_load = Counter(owner for key, owner in owners.items() if key not in done)
    assert set(pending_load) == {2, 3}
    assert abs(pending_load[2] - pending_load[3]) <= PAIRS_PER_TEXT
    # Every pending slot sits in exactly one queue: its new owner's.
    queued = [key for queue in plan.queues.values() for key in queue]
    assert sorted(queued, key=str) == sorted((key for key in owners if key not in done), key=str)


def test_new_annotator_takes_whole_texts_from_the_most_loaded():
    queues = assign_queues(text_items(), set(), [1, 2], seed=4)
    done = {(1, item) for item in queues[1][:30]}  # annotator 1 is well ahead
    slots = slots_from(queues, done=done)
    plan = plan_rebalance(slots, [1, 2, 3], seed=4)

    owners = owners_after(slots, plan)
    pending_load = Counter(owner for key, owner in owners.items() if key not in done)
    assert max(pending_load.values()) - min(pending_load.values()) <= PAIRS_PER_TEXT
    assert pending_load[3] > 0
    assert {key[0] for key in plan.moves} == {2}, "work comes from the annotator with most left to do"
    assert all(new_owner != key[0] for key, new_owner in plan.moves.items()), "a move changes the owner"
    assert all(owners[key] == 1 for key in done)
    texts_of_newcomer = Counter(text_of(key[1]) for key, owner in owners.items() if owner == 3)
    assert set(texts_of_newcomer.values()) == {PAIRS_PER_TEXT}, "texts move whole"


def test_started_groups_stay_with_their_active_annotator():
    queues = assign_queues(text_items(TEXTS[:4]), set(), [1], seed=4)
    started = {(1, item) for item in queues[1]}
    plan = plan_rebalance(slots_from(queues, started=started), [1, 2], seed=4)
    assert plan.moves == {}


def test_overlap_copy_is_dropped_when_one_annotator_remains():
    texts = TEXTS[:2]
    queues = assign_queues(text_items(texts), set(texts), [1, 2], seed=4)
    slots = slots_from(queues)
    plan = plan_rebalance(slots, [1], seed=4)
    assert sorted(plan.dropped) == sorted(slot.key for slot in slots if slot.annotator == 2)
    assert plan.moves == {}


def test_rebalance_plan_is_reproducible():
    queues = assign_queues(text_items(), set(), [1, 2, 3], seed=4)
    slots = slots_from(queues)
    assert plan_rebalance(slots, [2, 3, 4], seed=4) == plan_rebalance(slots, [2, 3, 4], seed=4)
