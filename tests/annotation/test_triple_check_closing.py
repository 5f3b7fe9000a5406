"""Closing a triple check from its page (staff, confirmed as for a pairwise campaign) and reopening
it; its annotators then get the "campaign closed" page (403) where they got a 404, someone else
still a 404."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from annotation.triple_checks.models import TripleCheck, TripleLabel

pytestmark = pytest.mark.django_db


def url(campaign):
    return reverse("annotation:triple_check_toggle_open", args=[campaign.pk])


def is_open(campaign):
    return TripleCheck.objects.get(pk=campaign.pk).is_open


@pytest.fixture
def lead(client):
    client.force_login(User.objects.create_user("lead", is_staff=True))
    return client


def test_staff_close_after_confirming_and_reopen_at_once(lead, triple_check):
    page = lead.get(triple_check.get_absolute_url()).content.decode()
    assert f'href="{url(triple_check)}">Close the campaign…</a>' in page and "badge good" in page
    confirm = lead.get(url(triple_check)).content.decode()
    # 8 sampled triples, each queued for both annotators: 16 pending labels of 2 annotators.
    assert f"Close {triple_check.name}?" in confirm and 'name="confirm" value="close"' in confirm
    assert "<strong>16</strong> triples of <strong>2</strong> annotators are still pending" in confirm
    assert f'action="{url(triple_check)}"' in confirm
    assert f'<a href="{reverse("annotation:triple_check_list")}">Triple checks</a>' in confirm
    assert lead.post(url(triple_check)).status_code == 200 and is_open(triple_check)  # not confirmed
    assert lead.post(url(triple_check), {"confirm": "close"}).status_code == 302 and not is_open(triple_check)
    page = lead.get(triple_check.get_absolute_url()).content.decode()
    assert "badge warn" in page and "Reopen the campaign" in page
    assert lead.get(url(triple_check)).status_code == 302 and not is_open(triple_check)
    lead.post(url(triple_check))
    assert is_open(triple_check)


def test_annotators_may_not_close_it(client, triple_check):
    client.force_login(triple_check.annotators.get(username="checker1"))
    assert client.post(url(triple_check), {"confirm": "close"}).status_code == 403 and is_open(triple_check)


@pytest.fixture
def closed(triple_check):
    TripleCheck.objects.filter(pk=triple_check.pk).update(is_open=False)
    return triple_check


def test_its_annotator_is_told_the_campaign_is_closed(client, closed):
    annotator = closed.annotators.get(username="checker1")
    label = TripleLabel.objects.filter(item__campaign=closed, annotator=annotator).first()
    client.force_login(annotator)
    for address in (
        reverse("annotation:triple_next", args=[closed.pk]),
        reverse("annotation:triple_label", args=[label.public_id]),
        reverse("annotation:triple_practice", args=[closed.pk]),
    ):
        response = client.get(address)
        page = response.content.decode()
        assert response.status_code == 403 and "This campaign is closed" in page, address
        assert f"The campaign {closed.name} is closed." in page and "My campaigns" in page
    saved = client.post(reverse("annotation:triple_label", args=[label.public_id]), {"supported": "yes", "facts": "1"})
    assert saved.status_code == 403
    assert client.post(reverse("annotation:triple_skip", args=[label.public_id])).status_code == 403
    assert TripleLabel.objects.get(pk=label.pk).saved_at is None


def test_someone_else_and_a_removed_annotator_still_get_404(client, closed):
    label = TripleLabel.objects.filter(item__campaign=closed, annotator__username="checker1").first()
    client.force_login(closed.annotators.get(username="checker2"))
    assert client.get(reverse("annotation:triple_label", args=[label.public_id])).status_code == 404
    annotator = closed.annotators.get(username="checker1")
    closed.annotators.remove(annotator)
    client.force_login(annotator)
    assert client.get(reverse("annotation:triple_label", args=[label.public_id])).status_code == 404
    assert client.get(reverse("annotation:triple_next", args=[closed.pk])).status_code == 404
