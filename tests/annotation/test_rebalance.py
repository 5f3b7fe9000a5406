"""Adding and removing annotators mid-campaign: queues rebalance, judgements stay put."""

from collections import Counter

import pytest

from annotation.models import Assignment, Judgement
from annotation.services.campaigns import add_annotator, remove_annotator
from annotation.services.errors import CampaignError
from annotation.services.judgements import save_judgements
from annotation.services.queues import next_assignment
from tests.annotation.campaign_factories import (
    FIRST_FOUR,
    finish_next,
    judge,
    make_annotators,
    make_campaign,
)

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


def pending_load(campaign):
    return Counter(
        Assignment.objects.filter(
            item__campaign=campaign, status="pending", annotator_id__in=campaign.active_annotator_ids()
        ).values_list("annotator_id", flat=True)
    )


def assert_no_item_twice_per_annotator(campaign):
    pairs = Counter(Assignment.objects.filter(item__campaign=campaign).values_list("item_id", "annotator_id"))
    assert max(pairs.values()) == 1


def test_removing_an_annotator_keeps_done_judgements_and_moves_pending_work():
    campaign, people = make_campaign(texts=10, annotators=3)
    leaving = people[0]
    for _ in range(6):  # two whole texts: nothing of the leaver's is left half judged
        finish_next(leaving, campaign)
    done_before = set(Assignment.objects.filter(annotator=leaving, status="done").values_list("pk", flat=True))
    judgements_before = set(Judgement.objects.values_list("pk", "assignment_id", "aspect", "label"))
    items_before = Counter(Assignment.objects.filter(item__campaign=campaign).values_list("item_id", flat=True))

    summary = remove_annotator(campaign, leaving)

    assert summary.moved > 0 and summary.dropped == 0
    assert set(Assignment.objects.filter(annotator=leaving).values_list("pk", flat=True)) == done_before
    assert set(Judgement.objects.values_list("pk", "assignment_id", "aspect", "label")) == judgements_before
    assert Counter(Assignment.objects.filter(item__campaign=campaign).values_list("item_id", flat=True)) == items_before
    assert_no_item_twice_per_annotator(campaign)
    loads = pending_load(campaign)
    assert set(loads) == {people[1].pk, people[2].pk}
    assert max(loads.values()) - min(loads.values()) <= 3  # one text's pairs


def test_a_partly_judged_item_is_reissued_and_its_judgements_stay_with_their_author():
    campaign, people = make_campaign(texts=6, annotators=2)
    leaving = people[0]
    started = next_assignment(leaving, campaign)
    save_judgements(started, {"ts": "left"}, expected_version=0, seconds=1)
    newcomer = make_annotators(1, prefix="newcomer")[0]
    add_annotator(campaign, newcomer)

    summary = remove_annotator(campaign, leaving)

    assert summary.reissued == 1
    started.refresh_from_db()
    assert started.annotator == leaving and started.judgements.count() == 1
    assert Assignment.objects.filter(item=started.item).exclude(annotator=leaving).exists()
    assert_no_item_twice_per_annotator(campaign)


def test_a_new_annotator_takes_work_from_the_most_loaded():
    campaign, people = make_campaign(texts=12, annotators=2, overlap_share=0.0)
    ahead = people[0]
    for _ in range(9):
        finish_next(ahead, campaign)
    newcomer = make_annotators(1, prefix="newcomer")[0]
    behind_before = Assignment.objects.filter(annotator=people[1], status="pending").count()

    add_annotator(campaign, newcomer)

    loads = pending_load(campaign)
    assert loads[newcomer.pk] > 0
    assert Assignment.objects.filter(annotator=people[1], status="pending").count() < behind_before
    assert max(loads.values()) - min(loads.values()) <= 3
    assert Assignment.objects.filter(annotator=ahead, status="done").count() == 9
    # The newcomer's queue keeps each text's pairs together.
    queue = list(
        Assignment.objects.filter(annotator=newcomer).order_by("queue_position").values_list("item__text_id", flat=True)
    )
    runs = [text for index, text in enumerate(queue) if index == 0 or queue[index - 1] != text]
    assert len(runs) == len(set(runs))
    assert next_assignment(newcomer, campaign) is not None


def test_the_last_annotator_cannot_be_removed():
    campaign, people = make_campaign(texts=4, annotators=2, overlap_share=0.0)
    remove_annotator(campaign, people[0])
    with pytest.raises(CampaignError, match="at least one annotator"):
        remove_annotator(campaign, people[1])
    assert campaign.memberships.get(annotator=people[1]).active


def test_overlap_copies_are_dropped_when_only_one_annotator_remains():
    campaign, people = make_campaign(texts=4, annotators=2, overlap_share=1.0)
    summary = remove_annotator(campaign, people[1])
    assert summary.dropped == 4 * 3 and summary.moved == 0
    assert not Assignment.objects.filter(annotator=people[1]).exists()
    assert Assignment.objects.filter(annotator=people[0]).count() == 4 * 3


def test_adding_someone_twice_or_removing_a_stranger_is_refused():
    campaign, people = make_campaign(texts=4, annotators=2)
    with pytest.raises(CampaignError, match="already annotates"):
        add_annotator(campaign, people[0])
    stranger = make_annotators(1, prefix="stranger")[0]
    with pytest.raises(CampaignError, match="does not annotate"):
        remove_annotator(campaign, stranger)


def test_a_removed_annotator_can_come_back():
    campaign, people = make_campaign(texts=6, annotators=3, overlap_share=0.0)
    remove_annotator(campaign, people[2])
    add_annotator(campaign, people[2])
    assert campaign.memberships.get(annotator=people[2]).active
    assert next_assignment(people[2], campaign) is not None


@pytest.mark.parametrize("gold_seen", [True, False])
def test_a_pair_never_goes_to_someone_who_has_seen_the_gold_of_its_text(gold_seen):
    # One text, three pairs, judged twice: two of the three annotators hold it, the third nothing.
    campaign, people = make_campaign(texts=1, annotators=3, overlap_share=1.0, systems=("alpha", "beta", "gamma"))
    first_holder, second_holder = [
        person for person in people if Assignment.objects.filter(annotator=person, item__campaign=campaign).exists()
    ]
    taker = next(person for person in people if person not in (first_holder, second_holder))
    finished = finish_next(first_holder, campaign)  # one pair done, the two others have their first four
    remove_annotator(campaign, first_holder)  # those two are reissued to the taker, who held nothing of the text
    taken = Assignment.objects.filter(annotator=taker, item__campaign=campaign)
    assert taken.count() == 2 and not taken.filter(item=finished.item).exists()
    if gold_seen:
        for _ in range(2):  # both pairs' first four: the text's gold is shown to the taker
            judge(next_assignment(taker, campaign), FIRST_FOUR)

    # The second holder's three pairs are left: the taker lacks only the one the first holder finished.
    summary = remove_annotator(campaign, second_holder)

    assert taken.filter(item=finished.item).exists() is not gold_seen
    assert summary.moved == (0 if gold_seen else 1)
    assert not Assignment.objects.filter(annotator=second_holder).exists()  # the rest: dropped
    assert_no_item_twice_per_annotator(campaign)
