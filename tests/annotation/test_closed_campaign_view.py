"""An annotator of a closed campaign sees "this campaign is closed" (403), not a 404; others still 404."""

import pytest
from django.urls import reverse

from annotation.models import Assignment, CampaignAnnotator
from annotation.services.quality_control import replace_practice_items
from tests.annotation.annotator_fixtures import make_annotation_setup, make_user
from tests.annotation.quality_fixtures import PRACTICE_RECORDS

pytestmark = pytest.mark.django_db


@pytest.fixture
def closed():
    reader, other = make_user("reader"), make_user("other")
    setup = make_annotation_setup([reader])
    setup.campaign.is_open = False
    setup.campaign.save(update_fields=["is_open"])
    return setup, reader, other


def test_the_item_page_the_queue_and_a_save_say_the_campaign_is_closed(client, closed):
    setup, reader, _ = closed
    client.force_login(reader)
    own = setup.assignments(reader)[0]
    for address in (
        reverse("annotation:annotate_item", args=[own.public_id]),
        reverse("annotation:annotate_continue", args=[setup.campaign.pk]),
        reverse("annotation:annotate_previous", args=[own.public_id]),
    ):
        response = client.get(address)
        page = response.content.decode()
        assert response.status_code == 403 and "This campaign is closed" in page, address
        assert "The campaign Pilot study is closed." in page and "My campaigns" in page
    saved = client.post(
        reverse("annotation:annotate_item", args=[own.public_id]),
        {"version": 0, "ts": "left"},
        HTTP_ACCEPT="application/json",
    )
    assert saved.status_code == 403 and "is closed" in saved.json()["message"] and not saved.json()["saved"]
    assert client.post(reverse("annotation:annotate_skip", args=[own.public_id])).status_code == 403
    assert not Assignment.objects.get(pk=own.pk).judgements.exists()


def test_the_practice_round_says_so_too(client, closed):
    setup, reader, _ = closed
    replace_practice_items(setup.campaign, PRACTICE_RECORDS)
    client.force_login(reader)
    response = client.get(reverse("annotation:annotate_practice", args=[setup.campaign.pk]))
    assert response.status_code == 403 and "This campaign is closed" in response.content.decode()


def test_someone_else_and_a_removed_annotator_still_get_404(client, closed):
    setup, reader, other = closed
    own = setup.assignments(reader)[0]
    client.force_login(other)
    assert client.get(reverse("annotation:annotate_item", args=[own.public_id])).status_code == 404
    assert client.get(reverse("annotation:annotate_continue", args=[setup.campaign.pk])).status_code == 404
    CampaignAnnotator.objects.filter(annotator=reader).update(active=False)
    client.force_login(reader)
    assert client.get(reverse("annotation:annotate_item", args=[own.public_id])).status_code == 404


def test_anonymous_visitors_are_sent_to_sign_in(client, closed):
    setup, reader, _ = closed
    response = client.get(reverse("annotation:annotate_item", args=[setup.assignments(reader)[0].public_id]))
    assert response.status_code == 302 and reverse("login") in response.url
