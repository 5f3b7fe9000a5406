"""The adjudication pages: who may open them (every role on every page and action), the list's
filters, the item page (escaped, blind to system names), recording a resolution, and the
campaign's choice of rating labels."""

import pytest
from django.urls import reverse

from annotation.models import Campaign, Resolution
from tests.annotation.adjudication_fixtures import make_attention_check
from tests.annotation.annotator_fixtures import SYSTEM_NAMES

pytestmark = pytest.mark.django_db


def pages(campaign):
    """(method, url, data) of every adjudication page and action."""
    item = campaign.items.first()
    return [
        ("get", reverse("annotation:adjudication_list", args=[campaign.pk]), None),
        ("get", reverse("annotation:adjudication_item", args=[campaign.pk, item.pk]), None),
        (
            "post",
            reverse("annotation:adjudication_resolve", args=[campaign.pk, item.pk]),
            {"aspect": "ts", "label": "a", "note": ""},
        ),
        ("post", reverse("annotation:campaign_rating_labels", args=[campaign.pk]), {"rating_labels": "adjudicated"}),
    ]


def test_anonymous_visitors_are_sent_to_sign_in(client, disputed_campaign):
    campaign = disputed_campaign
    for method, url, data in pages(campaign):
        response = getattr(client, method)(url, data)
        assert response.status_code == 302 and reverse("login") in response.url, url


@pytest.mark.parametrize("role", ["annotator", "researcher"])
def test_annotators_and_researchers_are_refused(client, people, disputed_campaign, role):
    campaign = disputed_campaign
    client.force_login(people[0][0] if role == "annotator" else people[1])
    for method, url, data in pages(campaign):
        assert getattr(client, method)(url, data).status_code == 403, url
    assert not Resolution.objects.exists()
    assert Campaign.objects.get(pk=campaign.pk).rating_labels == Campaign.RatingLabels.MAJORITY


def test_staff_open_every_page_and_act(client, people, disputed_campaign):
    campaign = disputed_campaign
    client.force_login(people[2])
    for method, url, data in pages(campaign):
        assert getattr(client, method)(url, data).status_code in (200, 302), url
    assert Resolution.objects.get().label == "a"
    assert Campaign.objects.get(pk=campaign.pk).rating_labels == Campaign.RatingLabels.ADJUDICATED


def test_an_item_of_another_campaign_or_an_attention_check_is_not_found(client, people, disputed_campaign):
    campaign = disputed_campaign
    client.force_login(people[2])
    other = Campaign.objects.create(name="other", dataset=campaign.dataset)
    item = campaign.items.first()
    assert client.get(reverse("annotation:adjudication_item", args=[other.pk, item.pk])).status_code == 404
    response = client.post(
        reverse("annotation:adjudication_resolve", args=[other.pk, item.pk]), {"aspect": "ts", "label": "a"}
    )
    assert response.status_code == 404 and not Resolution.objects.exists()
    check = make_attention_check(item)
    assert client.get(reverse("annotation:adjudication_item", args=[campaign.pk, check.pk])).status_code == 404


def test_the_list_filters_by_aspect_and_margin(client, people, disputed_campaign):
    campaign = disputed_campaign
    client.force_login(people[2])
    url = reverse("annotation:adjudication_list", args=[campaign.pk])
    page = client.get(url).content.decode()
    assert page.count("Topical similarity</td>") == 3 and page.count("Uniqueness</td>") == 3
    opposite = client.get(url, {"margin": "1.0"}).content.decode()
    assert opposite.count("Topical similarity</td>") == 3 and "Uniqueness</td>" not in opposite
    only_us = client.get(url, {"aspect": "us"}).content.decode()
    assert "Topical similarity</td>" not in only_us and only_us.count("Uniqueness</td>") == 3
    assert "No disagreements match these filters" in client.get(url, {"aspect": "fs"}).content.decode()


def test_the_item_page_shows_choices_comments_and_time_escaped_and_blind(client, people, disputed_campaign):
    campaign = disputed_campaign
    client.force_login(people[2])
    item = campaign.items.get(text__position=2)  # the text whose output carries markup
    page = client.get(reverse("annotation:adjudication_item", args=[campaign.pk, item.pk])).content.decode()
    assert "<script>window.leaked=1</script>" not in page and "&lt;script&gt;window.leaked=1&lt;/script&gt;" in page
    assert "&lt;i&gt;A is plainly on topic&lt;/i&gt;" in page
    assert "ann-one" in page and "ann-two" in page
    assert "A better" in page and "B better" in page and "Tie" in page
    for name in SYSTEM_NAMES:
        assert name not in page
    assert page.count('name="aspect"') == 4  # the four aspects both judged; completeness nobody did


def test_a_resolution_is_shown_with_who_and_the_note(client, people, disputed_campaign):
    campaign = disputed_campaign
    client.force_login(people[2])
    item = campaign.items.first()
    url = reverse("annotation:adjudication_resolve", args=[campaign.pk, item.pk])
    response = client.post(url, {"aspect": "ts", "label": "b", "note": "<b>B</b> is on topic"})
    assert response.status_code == 302 and response.url.endswith("#aspect-ts")
    page = client.get(response.url).content.decode()
    assert "Resolved: <strong>System B better</strong> by boss" in page
    assert "&lt;b&gt;B&lt;/b&gt; is on topic" in page
    listing = client.get(reverse("annotation:adjudication_list", args=[campaign.pk])).content.decode()
    assert "<strong>1</strong> resolved" in listing


def test_a_bad_resolution_is_refused_with_the_reason(client, people, disputed_campaign):
    campaign = disputed_campaign
    client.force_login(people[2])
    item = campaign.items.first()
    url = reverse("annotation:adjudication_resolve", args=[campaign.pk, item.pk])
    assert client.post(url, {"aspect": "ts", "label": "left"}).status_code == 400
    response = client.post(url, {"aspect": "cs", "label": "a"})
    assert response.status_code == 400 and "two or more annotators" in response.content.decode()
    assert not Resolution.objects.exists()


def test_the_campaign_page_shows_the_rating_labels_choice(client, people, disputed_campaign):
    campaign = disputed_campaign
    client.force_login(people[2])
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert 'value="majority" selected' in page and "Adjudication</a>" in page
    client.post(reverse("annotation:campaign_rating_labels", args=[campaign.pk]), {"rating_labels": "adjudicated"})
    assert 'value="adjudicated" selected' in client.get(campaign.get_absolute_url()).content.decode()
    response = client.post(reverse("annotation:campaign_rating_labels", args=[campaign.pk]), {"rating_labels": "x"})
    assert response.status_code == 302
    assert Campaign.objects.get(pk=campaign.pk).rating_labels == Campaign.RatingLabels.ADJUDICATED
