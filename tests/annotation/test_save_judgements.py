"""save_judgements, next_assignment and skip: idempotent saves, conflicts, completeness last."""

import pytest

from annotation.models import Assignment, Judgement, Label
from annotation.services.campaigns import create_campaign, remove_annotator
from annotation.services.errors import (
    AssignmentClosed,
    CompletenessTooEarly,
    FirstAspectsLocked,
    InvalidJudgement,
    VersionConflict,
)
from annotation.services.judgements import save_judgements
from annotation.services.queues import next_assignment, skip
from scoring.models import System
from tests.annotation.campaign_factories import FIRST_FOUR, finish_next, judge, make_annotators, make_campaign
from tests.factories import make_dataset

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


@pytest.fixture
def campaign_and_people():
    return make_campaign()


def first_assignment(campaign, person):
    return next_assignment(person, campaign)


def text_pairs(campaign, person):
    """The person's pairs of their first text, in queue order."""
    text_id = first_assignment(campaign, person).item.text_id
    return list(
        Assignment.objects.filter(annotator=person, item__campaign=campaign, item__text_id=text_id).order_by(
            "queue_position", "pk"
        )
    )


def test_labels_are_stored_in_canonical_order(campaign_and_people):
    campaign, people = campaign_and_people
    assignment = first_assignment(campaign, people[0])
    saved = save_judgements(assignment, FIRST_FOUR, expected_version=0, seconds=12.5)
    stored = dict(assignment.judgements.values_list("aspect", "label"))
    left, right = (Label.A, Label.B) if assignment.a_on_left else (Label.B, Label.A)
    assert stored == {"ts": left, "us": right, "fs": Label.TIE, "gs": left}
    assert saved.first_aspects_done and saved.completed_first_aspects and not saved.is_done
    assert saved.text.pairs == 3 and saved.text.lacking_first_aspects == 2
    in_database = Assignment.objects.get(pk=assignment.pk)
    assert in_database.version == saved.assignment.version == 1
    assert in_database.seconds_spent == saved.assignment.seconds_spent == 12.5
    assert in_database.status == Assignment.Status.PENDING and in_database.started_at is not None


def test_the_same_post_twice_stores_one_judgement(campaign_and_people):
    campaign, people = campaign_and_people
    assignment = first_assignment(campaign, people[0])
    save_judgements(assignment, FIRST_FOUR, expected_version=0, seconds=3)
    again = save_judgements(assignment, FIRST_FOUR, expected_version=0, seconds=3)
    assert Judgement.objects.filter(assignment=assignment).count() == 4
    assert not again.completed_first_aspects
    in_database = Assignment.objects.get(pk=assignment.pk)
    assert in_database.version == 1 and in_database.seconds_spent == 3


def test_a_stale_version_with_different_labels_is_a_conflict(campaign_and_people):
    campaign, people = campaign_and_people
    assignment = first_assignment(campaign, people[0])
    save_judgements(assignment, FIRST_FOUR, expected_version=0, seconds=3)
    with pytest.raises(VersionConflict, match="another window"):
        save_judgements(assignment, {**FIRST_FOUR, "ts": "right"}, expected_version=0, seconds=3)
    assert dict(Judgement.objects.filter(assignment=assignment).values_list("aspect", "label"))["ts"] == (
        assignment.shown_to_canonical("left")
    )


def test_changing_a_label_with_the_current_version_updates_it(campaign_and_people):
    campaign, people = campaign_and_people
    assignment = first_assignment(campaign, people[0])
    save_judgements(assignment, FIRST_FOUR, expected_version=0, seconds=3)
    save_judgements(assignment, {"ts": "tie"}, expected_version=1, seconds=2)
    assert assignment.judgements.get(aspect="ts").label == Label.TIE
    in_database = Assignment.objects.get(pk=assignment.pk)
    assert in_database.version == 2 and in_database.seconds_spent == 5


def test_completeness_is_refused_before_the_four_others(campaign_and_people):
    campaign, people = campaign_and_people
    assignment = first_assignment(campaign, people[0])
    with pytest.raises(CompletenessTooEarly, match="Completeness is judged last"):
        save_judgements(assignment, {**FIRST_FOUR, "cs": "left"}, expected_version=0, seconds=1)
    assert not Judgement.objects.filter(assignment=assignment).exists()
    assert Assignment.objects.get(pk=assignment.pk).version == 0


def test_completeness_waits_for_the_first_four_of_every_pair_of_the_text(campaign_and_people):
    campaign, people = campaign_and_people
    pairs = text_pairs(campaign, people[0])
    assert len(pairs) == 3
    for number, pair in enumerate(pairs):
        judge(pair, FIRST_FOUR, seconds=10)
        if number < 2:
            with pytest.raises(CompletenessTooEarly, match=f"{2 - number} still lack them"):
                judge(pairs[0], {"cs": "right"})
    done = judge(pairs[0], {"cs": "right"}, seconds=5)
    assert done.is_done and done.assignment.completed_at is not None
    in_database = Assignment.objects.get(pk=pairs[0].pk)
    assert in_database.status == Assignment.Status.DONE and in_database.seconds_spent == 15
    assert next_assignment(people[0], campaign) == pairs[1]


def test_next_gives_every_first_four_of_the_text_then_completeness_in_queue_order(campaign_and_people):
    campaign, people = campaign_and_people
    pairs = text_pairs(campaign, people[0])
    for pair in pairs:
        assert next_assignment(people[0], campaign) == pair
        judge(pair, FIRST_FOUR)
    for pair in pairs:
        assert next_assignment(people[0], campaign) == pair
        judge(pair, {"cs": "tie"})
    following = next_assignment(people[0], campaign)
    assert following.item.text_id != pairs[0].item.text_id


def test_a_changed_first_aspect_is_refused_once_gold_is_shown_with_ground_truth_in_the_campaign():
    dataset, systems = make_dataset(texts=2, systems=("alpha", "beta"))
    person = make_annotators(1, prefix="gt-reader")[0]
    campaign = create_campaign(
        name="against-gold",
        dataset=dataset,
        systems=[*systems, System.ground_truth()],
        annotators=[person],
        seed=5,
        overlap_share=0.0,
        sample_size=2,
    ).campaign
    pairs = text_pairs(campaign, person)
    for pair in pairs[:2]:
        judge(pair, FIRST_FOUR)
    judge(pairs[0], {"ts": "right"})  # the gold is still hidden: changes are free
    judge(pairs[2], FIRST_FOUR)  # the last pair: the gold of this text is revealed
    with pytest.raises(FirstAspectsLocked, match="topical similarity can no longer change"):
        judge(pairs[0], {"ts": "left", "cs": "tie"})
    assert not pairs[0].judgements.filter(aspect="cs").exists()
    judge(pairs[0], {"ts": "right", "cs": "tie"})  # the same first aspect, resent with completeness
    assert pairs[0].judgements.get(aspect="ts").label == pairs[0].shown_to_canonical("right")


def test_without_ground_truth_first_aspects_stay_editable_after_the_reveal(campaign_and_people):
    campaign, people = campaign_and_people
    pairs = text_pairs(campaign, people[0])
    for pair in pairs:
        judge(pair, FIRST_FOUR)
    judge(pairs[0], {"cs": "left"})
    judge(pairs[0], {"ts": "tie"})
    assert pairs[0].judgements.get(aspect="ts").label == Label.TIE


@pytest.mark.parametrize(
    "labels, message",
    [({}, "No judgement"), ({"xx": "left"}, "Unknown aspect"), ({"ts": "up"}, "Unknown choice")],
)
def test_bad_labels_are_refused(campaign_and_people, labels, message):
    campaign, people = campaign_and_people
    assignment = first_assignment(campaign, people[0])
    with pytest.raises(InvalidJudgement, match=message):
        save_judgements(assignment, labels, expected_version=0, seconds=1)


def test_browser_time_is_clamped(campaign_and_people):
    campaign, people = campaign_and_people
    assignment = first_assignment(campaign, people[0])
    saved = save_judgements(assignment, {"ts": "left"}, expected_version=0, seconds=-40)
    assert saved.assignment.seconds_spent == 0
    saved = save_judgements(assignment, {"us": "left"}, expected_version=1, seconds=10**9)
    assert saved.assignment.seconds_spent == Assignment.objects.get(pk=assignment.pk).seconds_spent == 3600
    with pytest.raises(InvalidJudgement, match="number of seconds"):
        save_judgements(assignment, {"fs": "left"}, expected_version=2, seconds="soon")


def test_closed_campaign_refuses_saves(campaign_and_people):
    campaign, people = campaign_and_people
    assignment = first_assignment(campaign, people[0])
    campaign.is_open = False
    campaign.save()
    with pytest.raises(AssignmentClosed, match="closed"):
        save_judgements(assignment, FIRST_FOUR, expected_version=0, seconds=1)
    assert next_assignment(people[0], campaign) is None


def test_removed_annotator_can_no_longer_save(campaign_and_people):
    campaign, people = campaign_and_people
    assignment = first_assignment(campaign, people[0])
    save_judgements(assignment, {"ts": "left"}, expected_version=0, seconds=1)
    remove_annotator(campaign, people[0])
    with pytest.raises(AssignmentClosed, match="no longer annotate"):
        save_judgements(assignment, {"us": "left"}, expected_version=1, seconds=1)
    assert next_assignment(people[0], campaign) is None


def test_skip_sends_the_whole_text_to_the_end_of_the_queue_in_its_order(campaign_and_people):
    campaign, people = campaign_and_people
    pairs = text_pairs(campaign, people[0])
    judge(pairs[0], FIRST_FOUR)
    assert skip(pairs[1]) == 3
    pending = list(
        Assignment.objects.filter(annotator=people[0], item__campaign=campaign, status="pending").order_by(
            "queue_position", "pk"
        )
    )
    assert pending[-3:] == pairs
    following = next_assignment(people[0], campaign)
    assert following == pending[0] and following.item.text_id != pairs[0].item.text_id


def test_finished_items_cannot_be_skipped(campaign_and_people):
    campaign, people = campaign_and_people
    assignment = finish_next(people[0], campaign)
    with pytest.raises(AssignmentClosed, match="already finished"):
        skip(assignment)
