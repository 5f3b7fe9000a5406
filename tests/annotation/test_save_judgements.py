"""save_judgements, next_assignment and skip: idempotent saves, conflicts, completeness last."""

import pytest

from annotation.models import Assignment, Judgement, Label
from annotation.services import (
    AssignmentClosed,
    CompletenessTooEarly,
    InvalidJudgement,
    VersionConflict,
    next_assignment,
    remove_annotator,
    save_judgements,
    skip,
)
from tests.annotation.campaign_factories import make_campaign

pytestmark = pytest.mark.django_db

FIRST_FOUR = {"ts": "left", "us": "right", "fs": "tie", "gs": "left"}


@pytest.fixture
def campaign_and_people():
    return make_campaign()


def first_assignment(campaign, person):
    return next_assignment(person, campaign)


def test_labels_are_stored_in_canonical_order(campaign_and_people):
    campaign, people = campaign_and_people
    assignment = first_assignment(campaign, people[0])
    saved = save_judgements(assignment, FIRST_FOUR, expected_version=0, seconds=12.5)
    stored = dict(saved.judgements.values_list("aspect", "label"))
    left, right = (Label.A, Label.B) if assignment.a_on_left else (Label.B, Label.A)
    assert stored == {"ts": left, "us": right, "fs": Label.TIE, "gs": left}
    assert saved.version == 1 and saved.seconds_spent == 12.5
    assert saved.status == Assignment.Status.PENDING and saved.started_at is not None


def test_the_same_post_twice_stores_one_judgement(campaign_and_people):
    campaign, people = campaign_and_people
    assignment = first_assignment(campaign, people[0])
    save_judgements(assignment, FIRST_FOUR, expected_version=0, seconds=3)
    again = save_judgements(assignment, FIRST_FOUR, expected_version=0, seconds=3)
    assert Judgement.objects.filter(assignment=assignment).count() == 4
    assert again.version == 1 and again.seconds_spent == 3


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
    saved = save_judgements(assignment, {"ts": "tie"}, expected_version=1, seconds=2)
    assert saved.judgements.get(aspect="ts").label == Label.TIE
    assert saved.version == 2 and saved.seconds_spent == 5


def test_completeness_is_refused_before_the_four_others(campaign_and_people):
    campaign, people = campaign_and_people
    assignment = first_assignment(campaign, people[0])
    with pytest.raises(CompletenessTooEarly, match="Completeness is judged last"):
        save_judgements(assignment, {**FIRST_FOUR, "cs": "left"}, expected_version=0, seconds=1)
    assert not Judgement.objects.filter(assignment=assignment).exists()
    assert Assignment.objects.get(pk=assignment.pk).version == 0


def test_completeness_after_the_four_finishes_the_item(campaign_and_people):
    campaign, people = campaign_and_people
    assignment = first_assignment(campaign, people[0])
    save_judgements(assignment, FIRST_FOUR, expected_version=0, seconds=10)
    done = save_judgements(assignment, {"cs": "right"}, expected_version=1, seconds=5)
    assert done.status == Assignment.Status.DONE and done.completed_at is not None
    assert done.is_done
    assert next_assignment(people[0], campaign) != done


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
    assert saved.seconds_spent == 0
    saved = save_judgements(assignment, {"us": "left"}, expected_version=1, seconds=10**9)
    assert saved.seconds_spent == 3600
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


def test_skip_sends_the_assignment_to_the_end_of_the_queue(campaign_and_people):
    campaign, people = campaign_and_people
    first = first_assignment(campaign, people[0])
    skip(first)
    pending = list(
        Assignment.objects.filter(annotator=people[0], item__campaign=campaign, status="pending").order_by(
            "queue_position", "pk"
        )
    )
    assert pending[-1] == first
    assert next_assignment(people[0], campaign) == pending[0] != first


def test_finished_items_cannot_be_skipped(campaign_and_people):
    campaign, people = campaign_and_people
    assignment = first_assignment(campaign, people[0])
    save_judgements(assignment, FIRST_FOUR, expected_version=0, seconds=1)
    save_judgements(assignment, {"cs": "tie"}, expected_version=1, seconds=1)
    with pytest.raises(AssignmentClosed, match="already finished"):
        skip(assignment)
