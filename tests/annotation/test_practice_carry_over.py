"""A passed practice round counts in every campaign with the same practice pairs and instructions
(issue 20): the annotator does not answer the same pairs again. A different round or different
instructions are taken afresh."""

import pytest

from annotation.models import CampaignAnnotator
from annotation.services.campaigns import add_annotator
from annotation.services.quality_control import answer_practice, replace_practice_items
from tests.annotation.annotator_fixtures import make_annotation_setup, make_user
from tests.annotation.quality_fixtures import PRACTICE_RECORDS

pytestmark = pytest.mark.django_db


def campaign(annotators, number, instructions=""):
    setup = make_annotation_setup(annotators, name=f"Study {number}", dataset_name=f"Snippets {number}")
    setup.campaign.instructions = instructions
    setup.campaign.save(update_fields=["instructions"])
    return setup.campaign


def pass_practice(campaign, annotator):
    membership = campaign.memberships.get(annotator=annotator)
    first, second = campaign.practice_items.all()
    answer_practice(membership, first, {"fs": "left", "ts": "left"})
    answer_practice(membership, second, {"us": "left"})


def passed(campaign, annotator):
    return CampaignAnnotator.objects.get(campaign=campaign, annotator=annotator).practice_passed_at


def test_a_pass_carries_over_to_a_campaign_with_the_same_round_and_instructions():
    ada, bea = make_user("ada"), make_user("bea")
    first, same = (campaign([ada, bea], n, "Read carefully.") for n in (1, 2))
    for each in (first, same):
        replace_practice_items(each, PRACTICE_RECORDS)
    pass_practice(first, ada)
    # Passing in one campaign counts in the one with the same round, at the time of the pass.
    assert passed(first, ada) is not None and passed(same, ada) == passed(first, ada)
    assert passed(same, bea) is None  # only the one who passed

    # A campaign whose round is uploaded later takes the pass then; another round does not.
    later = campaign([ada], 4, "Read carefully.")
    replace_practice_items(later, PRACTICE_RECORDS)
    assert passed(later, ada) == passed(first, ada)
    changed = campaign([ada], 5, "Read carefully.")
    replace_practice_items(changed, PRACTICE_RECORDS[:1])
    assert passed(changed, ada) is None


def test_other_instructions_are_another_round_and_a_new_member_brings_their_pass():
    ada, cyd = make_user("ada"), make_user("cyd")
    strict = campaign([ada], 1, "Judge strictly.")
    lenient = campaign([ada], 2, "Judge leniently.")
    for each in (strict, lenient):
        replace_practice_items(each, PRACTICE_RECORDS)
    pass_practice(strict, ada)
    assert passed(strict, ada) is not None and passed(lenient, ada) is None

    # Cyd passes the strict round elsewhere, then joins a campaign of the same round.
    elsewhere = campaign([cyd], 3, "Judge strictly.")
    replace_practice_items(elsewhere, PRACTICE_RECORDS)
    pass_practice(elsewhere, cyd)
    add_annotator(strict, cyd)
    assert passed(strict, cyd) == passed(elsewhere, cyd)
