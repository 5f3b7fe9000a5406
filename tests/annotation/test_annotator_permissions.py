"""What an annotator may open: only their own assignments, never gold early, never staff pages."""

import pytest
from django.urls import reverse

from annotation.models import CampaignAnnotator, Judgement
from tests.annotation.annotator_fixtures import make_annotation_setup, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    return make_user("ann"), make_user("bob")


@pytest.fixture
def setup(people):
    # Full overlap: both annotators hold an assignment of every item.
    return make_annotation_setup(list(people), overlap_share=1.0)


@pytest.fixture
def signed_in(client, people):
    client.force_login(people[0])
    return client


def bobs_assignment(setup, people):
    return setup.assignments(people[1])[0]


def test_another_annotators_item_is_not_found(signed_in, setup, people):
    other = bobs_assignment(setup, people)
    assert signed_in.get(reverse("annotation:annotate_item", args=[other.public_id])).status_code == 404


def test_saving_another_annotators_item_is_not_found_and_changes_nothing(signed_in, setup, people):
    other = bobs_assignment(setup, people)
    response = signed_in.post(
        reverse("annotation:annotate_item", args=[other.public_id]),
        {"version": 0, "ts": "left"},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 404
    assert not Judgement.objects.exists()


def test_skipping_another_annotators_item_is_not_found(signed_in, setup, people):
    other = bobs_assignment(setup, people)
    position = other.queue_position
    assert signed_in.post(reverse("annotation:annotate_skip", args=[other.public_id])).status_code == 404
    other.refresh_from_db()
    assert other.queue_position == position


def test_another_annotators_campaign_queue_is_not_found(client, setup):
    client.force_login(make_user("outsider"))
    assert client.get(reverse("annotation:annotate_continue", args=[setup.campaign.pk])).status_code == 404


def test_an_annotator_removed_from_a_campaign_cannot_open_its_items(signed_in, setup, people):
    own = setup.assignments(people[0])[0]
    CampaignAnnotator.objects.filter(campaign=setup.campaign, annotator=people[0]).update(active=False)
    assert signed_in.get(reverse("annotation:annotate_item", args=[own.public_id])).status_code == 404


def test_signed_out_visitors_are_sent_to_sign_in(client, setup, people):
    own = setup.assignments(people[0])[0]
    for url in (
        reverse("annotation:annotate_home"),
        reverse("annotation:annotate_review"),
        reverse("annotation:annotate_guidelines"),
        reverse("annotation:annotate_item", args=[own.public_id]),
    ):
        response = client.get(url)
        assert response.status_code == 302 and response.url.startswith(reverse("login")), url
    client.post(reverse("annotation:annotate_item", args=[own.public_id]), {"version": 0, "ts": "left"})
    assert not Judgement.objects.exists()


def test_gold_cannot_be_requested_before_the_first_four_are_saved(signed_in, setup, people):
    own = next(a for a in setup.assignments(people[0]) if a.item.text.position == 1)
    url = reverse("annotation:annotate_item", args=[own.public_id])
    # "drains into" is only in the gold triples of this text.
    assert "drains into" not in signed_in.get(url, {"stage": "completeness"}).content.decode()
    response = signed_in.post(url, {"version": 0, "cs": "left"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 400 and "drains into" not in response.content.decode()
    assert not Judgement.objects.exists()


def test_staff_pages_admin_and_uploads_are_closed_to_annotators(signed_in, setup):
    campaign = setup.campaign
    refused = {
        reverse("admin:index"): 302,
        reverse("admin:scoring_system_changelist"): 302,
        "/admin/rq/": 302,
        reverse("scoring:upload"): 403,
        reverse("annotation:campaign_list"): 403,
        reverse("annotation:campaign_detail", args=[campaign.pk]): 403,
        reverse("annotation:campaign_csv", args=[campaign.pk]): 403,
    }
    for url, status in refused.items():
        response = signed_in.get(url)
        assert response.status_code == status, url
        if status == 302:
            assert response.url.startswith(reverse("admin:login")), url
