"""Closing a campaign asks for confirmation (a page, no script needed); reopening does not; who may."""

import pytest
from django.urls import reverse

from annotation.models import Campaign

pytestmark = pytest.mark.django_db


def url(campaign):
    return reverse("annotation:campaign_toggle_open", args=[campaign.pk])


def is_open(campaign):
    return Campaign.objects.get(pk=campaign.pk).is_open


def test_the_campaign_page_links_to_a_confirmation_that_closes_only_when_confirmed(client, people, disputed_campaign):
    campaign = disputed_campaign
    client.force_login(people[2])
    assert f'href="{url(campaign)}">Close the campaign…</a>' in client.get(campaign.get_absolute_url()).content.decode()
    page = client.get(url(campaign)).content.decode()
    assert "Close Pilot study?" in page and 'name="confirm" value="close"' in page and "Cancel" in page
    # Each annotator has one item still lacking completeness.
    assert "<strong>6</strong> assignments of <strong>2</strong> annotators are still pending" in page
    # A post without the confirmation (an old page's button) shows the question again.
    assert client.post(url(campaign)).status_code == 200 and is_open(campaign)
    response = client.post(url(campaign), {"confirm": "close"})
    assert response.status_code == 302 and not is_open(campaign)
    # Reopening needs no confirmation; a GET on a closed campaign just goes back to its page.
    assert client.get(url(campaign)).status_code == 302 and not is_open(campaign)
    client.post(url(campaign))
    assert is_open(campaign)


@pytest.mark.parametrize("role", ["annotator", "researcher"])
def test_annotators_and_researchers_are_refused(client, people, disputed_campaign, role):
    client.force_login(people[0][0] if role == "annotator" else people[1])
    assert client.get(url(disputed_campaign)).status_code == 403
    assert client.post(url(disputed_campaign), {"confirm": "close"}).status_code == 403
    assert is_open(disputed_campaign)


def test_anonymous_visitors_are_sent_to_sign_in(client, disputed_campaign):
    response = client.get(url(disputed_campaign))
    assert response.status_code == 302 and reverse("login") in response.url
    client.post(url(disputed_campaign), {"confirm": "close"})
    assert is_open(disputed_campaign)
