"""Issue 23, finding 1: the Ground truth must not be recognisable across campaigns on the same texts.

An annotator who judged a text's first four aspects in one campaign was shown its gold triples
there; in a second campaign with Ground truth on the same text they would know the Ground-truth
side at once. So an annotator reads a text in one campaign only (creation and rebalancing never
make a second), and pairs that data from before the rule still holds in a second campaign are
withheld from every page once the gold was shown in the first.
"""

import pytest
from django.urls import reverse

from annotation.models import Assignment
from annotation.services.campaigns import add_annotator, create_campaign
from annotation.services.errors import CampaignError
from annotation.services.judgements import save_judgements
from scoring.models import System
from tests.annotation.annotator_fixtures import FIRST_FOUR_LEFT, make_annotation_setup, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]
JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture
def reader():
    return make_user("reader")


@pytest.fixture
def first(reader):
    """The first campaign, without Ground truth: three texts, one pair each, all the reader's."""
    return make_annotation_setup([reader])


def second_campaign(first, annotators, name="With ground truth"):
    return create_campaign(
        name=name,
        dataset=first.campaign.dataset,
        systems=[*first.systems, System.ground_truth()],
        annotators=annotators,
        seed=5,
        overlap_share=0.0,
        sample_size=3,
    ).campaign


def judge_first_four_everywhere(annotator, campaign):
    """Save the four first aspects of every pair the annotator holds in ``campaign``: each text's gold is shown."""
    for assignment in Assignment.objects.filter(annotator=annotator, item__campaign=campaign).select_related(
        "item__campaign"
    ):
        save_judgements(assignment, FIRST_FOUR_LEFT, expected_version=assignment.version, seconds=1)


def test_a_second_campaign_on_the_same_texts_refuses_an_annotator_who_read_them(first, reader):
    judge_first_four_everywhere(reader, first.campaign)
    with pytest.raises(CampaignError, match=r"one campaign only.*snippet-1 \(reader\)"):
        second_campaign(first, [reader])


def test_a_second_campaign_gives_the_texts_to_those_who_never_read_them(first, reader):
    fresh = make_user("fresh")
    campaign = second_campaign(first, [reader, fresh])
    assert not Assignment.objects.filter(item__campaign=campaign, annotator=reader).exists()
    assert Assignment.objects.filter(item__campaign=campaign, annotator=fresh).count() == 9


def test_joining_a_second_campaign_hands_over_none_of_the_texts_already_read(first, reader):
    judge_first_four_everywhere(reader, first.campaign)
    campaign = second_campaign(first, [make_user("fresh")])
    add_annotator(campaign, reader)
    assert not Assignment.objects.filter(item__campaign=campaign, annotator=reader).exists()


@pytest.fixture
def held_twice(first, reader, client):
    """The attacker's state, as data from before the rule holds it: the reader has every pair of
    the second campaign too, and has judged the first four of every text in the first."""
    campaign = second_campaign(first, [make_user("placeholder")])
    Assignment.objects.filter(item__campaign=campaign).update(annotator=reader)
    campaign.memberships.update(annotator=reader)
    judge_first_four_everywhere(reader, first.campaign)
    client.force_login(reader)
    return campaign


def test_pairs_of_a_text_whose_gold_was_shown_elsewhere_are_withheld_from_every_page(held_twice, reader, client):
    withheld = list(Assignment.objects.filter(item__campaign=held_twice, annotator=reader))
    for assignment in withheld:
        url = reverse("annotation:annotate_item", args=[assignment.public_id])
        assert client.get(url).status_code == 404
        assert client.post(url, {"version": 0, **FIRST_FOUR_LEFT}, **JSON).status_code == 404
        assert client.get(reverse("annotation:annotate_previous", args=[assignment.public_id])).status_code == 404
    following = client.get(reverse("annotation:annotate_continue", args=[held_twice.pk]))
    assert following.status_code == 302 and following["Location"] == reverse("annotation:annotate_home")
    review = client.get(reverse("annotation:annotate_review")).content.decode()
    assert not any(str(assignment.public_id) in review for assignment in withheld)


def test_first_aspects_saved_before_the_gold_was_shown_elsewhere_lock_and_move_on(first, reader, client):
    campaign = second_campaign(first, [make_user("placeholder")])
    Assignment.objects.filter(item__campaign=campaign).update(annotator=reader)
    campaign.memberships.update(annotator=reader)
    text = first.campaign.texts.order_by("position").first()
    judged = Assignment.objects.select_related("item__campaign").filter(
        item__campaign=campaign, annotator=reader, item__text=text
    )[0]
    save_judgements(judged, FIRST_FOUR_LEFT, expected_version=0, seconds=1)
    judge_first_four_everywhere(reader, first.campaign)
    client.force_login(reader)
    page = client.get(reverse("annotation:annotate_item", args=[judged.public_id]))
    assert page.status_code == 200 and page.context["stage"] == "completeness" and page.context["locked"]
    changed = client.post(
        reverse("annotation:annotate_item", args=[judged.public_id]),
        {"version": 1, **FIRST_FOUR_LEFT, "ts": "right"},
        **JSON,
    )
    assert changed.status_code == 400 and "can no longer change" in changed.json()["message"]


def test_a_rebalance_hands_withheld_pairs_to_someone_else(held_twice, reader):
    fresh = make_user("fresh")
    summary = add_annotator(held_twice, fresh)
    assert summary.moved == 9
    assert Assignment.objects.filter(item__campaign=held_twice, annotator=fresh, status="pending").count() == 9
    assert not Assignment.objects.filter(item__campaign=held_twice, annotator=reader).exists()
