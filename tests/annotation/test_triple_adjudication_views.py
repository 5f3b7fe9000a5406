"""The adjudication pages of a triple check: staff only; the list of disagreements; one triple
with its text, its system (staff may see it), each annotator's answers under a number, never a
name; recording the gold label opens the next unsettled disagreement, the list after the last."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from annotation.triple_checks.models import TripleAdjudication
from tests.annotation.triple_check_fixtures import label_with_disagreements

pytestmark = pytest.mark.django_db


def list_url(campaign):
    return reverse("annotation:triple_check_adjudication", args=[campaign.pk])


def item_url(campaign, item):
    return reverse("annotation:triple_adjudication_item", args=[campaign.pk, item.pk])


@pytest.fixture
def split(triple_check):
    return label_with_disagreements(triple_check)


@pytest.fixture
def lead(client):
    client.force_login(User.objects.create_user("lead", is_staff=True))
    return client


def test_staff_only(client, triple_check, split):
    client.force_login(triple_check.annotators.get(username="checker1"))
    assert client.get(list_url(triple_check)).status_code == 403
    assert client.get(item_url(triple_check, split["facts"])).status_code == 403
    assert client.post(item_url(triple_check, split["facts"]), {"supported": "no", "facts": "1"}).status_code == 403
    client.logout()
    assert client.get(list_url(triple_check)).status_code == 302
    assert not TripleAdjudication.objects.exists()


def test_the_list_and_the_campaign_page_count_the_disagreements(lead, triple_check, split):
    page = lead.get(list_url(triple_check)).content.decode()
    assert page.count(f'href="{item_url(triple_check, split["no_majority"])}"') == 2  # its row and "next"
    assert item_url(triple_check, split["facts"]) in page and item_url(triple_check, split["alone"]) not in page
    assert (
        "no majority" in page
        and "<strong>2</strong> disagreements" in page
        and "<strong>0</strong> adjudicated" in page
    )
    assert "checker1" not in page and "checker2" not in page
    campaign_page = lead.get(triple_check.get_absolute_url()).content.decode()
    assert "Adjudication (2 to settle)" in campaign_page


def test_one_triple_names_its_system_but_not_its_annotators(lead, triple_check, split):
    item = split["no_majority"]
    page = lead.get(item_url(triple_check, item)).content.decode()
    assert item.text.content in page and item.triple[1] in page and item.output.system.name in page
    assert "Annotator 1" in page and "Annotator 2" in page and "none (even split)" in page
    assert "checker1" not in page and "checker2" not in page
    assert 'id="next-disagreement"' in page and item_url(triple_check, split["facts"]) in page


def test_recording_opens_the_next_unsettled_then_the_list(lead, triple_check, split):
    first, second = split["no_majority"], split["facts"]
    response = lead.post(item_url(triple_check, first), {"supported": "yes", "facts": "1"})
    assert response.status_code == 302 and response.url == item_url(triple_check, second)
    adjudication = TripleAdjudication.objects.get(item=first)
    assert (adjudication.supported, adjudication.facts, adjudication.adjudicated_by.username) == (True, 1, "lead")
    response = lead.post(item_url(triple_check, second), {"supported": "no", "facts": "2"})
    assert response.status_code == 302 and response.url == list_url(triple_check)
    page = lead.get(item_url(triple_check, first)).content.decode()
    assert "Gold label: supported, 1 fact, by lead" in page
    assert 'value="yes" checked' in page and 'value="1" checked' in page
    listed = lead.get(list_url(triple_check)).content.decode()
    assert "<strong>2</strong> adjudicated" in listed and "Settle the next one" not in listed
    campaign_page = lead.get(triple_check.get_absolute_url()).content.decode()
    assert "(2 adjudicated)" in campaign_page and "to settle" not in campaign_page


def test_an_incomplete_answer_is_refused(lead, triple_check, split):
    response = lead.post(item_url(triple_check, split["facts"]), {"supported": "no"})
    assert response.status_code == 400 and "how many facts" in response.content.decode()
    assert 'value="no" checked' in response.content.decode()
    assert not TripleAdjudication.objects.exists()


def test_a_triple_nobody_disputes_or_of_another_campaign(lead, triple_check, split):
    response = lead.get(item_url(triple_check, split["alone"]), follow=True)
    assert response.redirect_chain[-1][0] == list_url(triple_check)
    assert "Nothing to settle on that triple" in response.content.decode()
    other = reverse("annotation:triple_adjudication_item", args=[triple_check.pk + 1, split["facts"].pk])
    assert lead.get(other).status_code == 404
    missing = reverse("annotation:triple_adjudication_item", args=[triple_check.pk, 10**6])
    assert lead.get(missing).status_code == 404
