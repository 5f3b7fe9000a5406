"""The quality-control pages: who may open them, the practice round's pages, the attention
check's page (indistinguishable from a real item's), the comment on the item page."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.models import Assignment, CampaignAnnotator
from annotation.services.quality_control import add_attention_checks, replace_practice_items
from tests.annotation.annotator_fixtures import make_annotation_setup, make_user
from tests.annotation.campaign_factories import make_annotators, make_dataset
from tests.annotation.quality_fixtures import PRACTICE_RECORDS, make_practice_setup, practice_file, three_triples
from tests.annotation.test_campaign_create_view import form_data

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

DATA_ATTRIBUTE = re.compile(r"\b(data-[a-z-]+)")
INPUT_NAME = re.compile(r'<(?:input|textarea)[^>]*\bname="([^"]+)"')
GIVEAWAYS = re.compile(r"attention|worse|duplicat|unsupported|check|Zanzibar|Quetzal", re.IGNORECASE)


@pytest.fixture
def reader():
    return make_user("reader")


@pytest.fixture
def staff():
    return make_user("researcher", is_staff=True)


# --- Permissions --------------------------------------------------------------------------------


def test_an_annotator_cannot_open_the_quality_page_or_change_exclusions(client, reader):
    setup = make_annotation_setup([reader])
    client.force_login(reader)
    campaign = setup.campaign
    assert client.get(reverse("annotation:campaign_quality", args=[campaign.pk])).status_code == 403
    response = client.post(
        reverse("annotation:campaign_exclusion", args=[campaign.pk]), {"annotator": "reader", "excluded": "1"}
    )
    assert response.status_code == 403
    upload = SimpleUploadedFile("p.jsonl", practice_file())
    assert (
        client.post(
            reverse("annotation:campaign_practice_upload", args=[campaign.pk]), {"practice_file": upload}
        ).status_code
        == 403
    )
    assert not CampaignAnnotator.objects.get(annotator=reader).excluded
    assert not campaign.practice_items.exists()


def test_signed_out_visitors_are_sent_to_sign_in(client, reader):
    setup = make_annotation_setup([reader])
    response = client.get(reverse("annotation:campaign_quality", args=[setup.campaign.pk]))
    assert response.status_code == 302 and reverse("login") in response.url


def test_staff_see_the_quality_page_and_toggle_an_exclusion(client, reader, staff):
    setup = make_annotation_setup([reader])
    client.force_login(staff)
    url = reverse("annotation:campaign_quality", args=[setup.campaign.pk])
    page = client.get(url).content.decode()
    assert 'id="annotator-reader"' in page and "Leave out" in page
    response = client.post(
        reverse("annotation:campaign_exclusion", args=[setup.campaign.pk]), {"annotator": "reader", "excluded": "1"}
    )
    assert response.status_code == 302
    membership = CampaignAnnotator.objects.get(annotator=reader)
    assert membership.excluded and membership.exclusion_changed_by == staff
    page = client.get(url).content.decode()
    assert "Take back in" in page and "left out by researcher" in page
    assert client.get(reverse("annotation:campaign_quality", args=[999999])).status_code == 404


def test_staff_upload_a_practice_round(client, reader, staff):
    setup = make_annotation_setup([reader])
    client.force_login(staff)
    upload = SimpleUploadedFile("practice.jsonl", practice_file())
    response = client.post(
        reverse("annotation:campaign_practice_upload", args=[setup.campaign.pk]),
        {"practice_file": upload, "practice_pass_percent": 50},
    )
    assert response.status_code == 302
    setup.campaign.refresh_from_db()
    assert setup.campaign.practice_items.count() == 2 and setup.campaign.practice_pass_mark == 0.5


def test_practice_pages_are_404_without_a_practice_round_or_membership(client, reader):
    setup = make_annotation_setup([reader])
    client.force_login(reader)
    assert client.get(reverse("annotation:annotate_practice", args=[setup.campaign.pk])).status_code == 404
    replace_practice_items(setup.campaign, PRACTICE_RECORDS)
    outsider = make_user("outsider")
    client.force_login(outsider)
    assert client.get(reverse("annotation:annotate_practice", args=[setup.campaign.pk])).status_code == 404


# --- The practice round's pages ------------------------------------------------------------------


def test_the_practice_round_comes_first_shows_the_reference_and_then_opens_the_items(client, reader):
    setup = make_practice_setup(reader)
    client.force_login(reader)
    first = setup.assignments(reader)[0]
    practice_url = reverse("annotation:annotate_practice", args=[setup.campaign.pk])
    assert client.get(reverse("annotation:annotate_continue", args=[setup.campaign.pk])).url == practice_url
    assert client.get(reverse("annotation:annotate_item", args=[first.public_id])).url == practice_url
    assert (
        client.post(reverse("annotation:annotate_item", args=[first.public_id]), {"version": 0, "ts": "left"}).url
        == practice_url
    )

    page = client.get(practice_url).content.decode()
    assert "Alan Turing was born in London" in page and "Practice pair 1 of 2" in page
    assert "B says Paris" not in page  # the reason comes after the answer

    response = client.post(practice_url, {"fs": "left", "ts": "right"})
    assert response.url == reverse("annotation:annotate_practice_feedback", args=[setup.campaign.pk, 1])
    feedback = client.get(response.url).content.decode()
    assert "B says Paris" in feedback and "✓ matches" in feedback and "✗ differs" in feedback

    client.post(practice_url, {"us": "left"})
    result = client.get(practice_url).content.decode()
    assert "Practice passed" in result and "2 of 3" in result
    assert client.get(reverse("annotation:annotate_continue", args=[setup.campaign.pk])).url == reverse(
        "annotation:annotate_item", args=[first.public_id]
    )


def test_a_failed_practice_round_offers_a_retake(client, reader):
    setup = make_practice_setup(reader)
    client.force_login(reader)
    practice_url = reverse("annotation:annotate_practice", args=[setup.campaign.pk])
    client.post(practice_url, {"fs": "right", "ts": "right"})
    client.post(practice_url, {"us": "right"})
    assert "Not passed yet" in client.get(practice_url).content.decode()
    client.post(reverse("annotation:annotate_practice_retake", args=[setup.campaign.pk]))
    assert "Practice pair 1 of 2" in client.get(practice_url).content.decode()


def test_a_practice_answer_missing_an_aspect_is_refused_in_words(client, reader):
    setup = make_practice_setup(reader)
    client.force_login(reader)
    response = client.post(reverse("annotation:annotate_practice", args=[setup.campaign.pk]), {"fs": "left"})
    page = response.content.decode()
    assert response.status_code == 400 and "topical similarity still lack" in page
    assert 'name="fs" value="left" checked' in page  # the choice made is kept


# --- The attention check's page -----------------------------------------------------------------


def shape(html):
    """What could tell two item pages apart beyond their triples: data attributes and fields."""
    return sorted(set(DATA_ATTRIBUTE.findall(html))), sorted(set(INPUT_NAME.findall(html)))


def test_an_attention_check_looks_like_any_other_item(client, reader):
    # Ground truth in: a check copies only an output whose triple count another side shares.
    setup = make_annotation_setup([reader], with_ground_truth=True)
    setup.campaign.attention_share = 0.2
    setup.campaign.save()
    assert add_attention_checks(setup.campaign) == 2
    client.force_login(reader)
    queue = Assignment.objects.filter(annotator=reader).select_related("item").order_by("queue_position")
    check = next(assignment for assignment in queue if assignment.item.is_attention_check)
    real = next(assignment for assignment in queue if not assignment.item.is_attention_check)
    check_page = client.get(reverse("annotation:annotate_item", args=[check.public_id])).content.decode()
    real_page = client.get(reverse("annotation:annotate_item", args=[real.public_id])).content.decode()
    assert shape(check_page) == shape(real_page)
    # Such words occur in the guidelines of every item page, never more on a check's.
    assert GIVEAWAYS.findall(check_page) == GIVEAWAYS.findall(real_page)
    assert str(check.item.pk) not in re.findall(r'"(\d+)"', check_page)


# --- The comment --------------------------------------------------------------------------------


def test_the_comment_is_saved_escaped_and_shown_again(client, reader):
    setup = make_annotation_setup([reader])
    client.force_login(reader)
    first = setup.assignments(reader)[0]
    url = reverse("annotation:annotate_item", args=[first.public_id])
    client.post(url, {"version": 0, "ts": "left", "comment": "<script>alert(1)</script> odd"})
    first.refresh_from_db()
    assert first.comment == "<script>alert(1)</script> odd"
    page = client.get(url).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; odd</textarea>" in page and "<script>alert(1)" not in page
    response = client.post(url, {"version": 1, "ts": "left", "comment": "x" * 2001})
    assert response.status_code == 400 and "at most 2000 characters" in response.content.decode()


def test_a_save_from_a_page_opened_before_the_practice_round_is_refused_in_words(client, reader):
    setup = make_practice_setup(reader)
    client.force_login(reader)
    first = setup.assignments(reader)[0]
    response = client.post(
        reverse("annotation:annotate_item", args=[first.public_id]),
        {"version": 0, "ts": "left"},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 409 and "practice round" in response.json()["message"]
    assert not first.judgements.exists()


def test_the_campaign_form_takes_a_practice_round_and_attention_checks(admin_client):
    dataset, systems = make_dataset(texts=8, outputs=three_triples)
    people = make_annotators(2)
    upload = SimpleUploadedFile("practice.json", practice_file(jsonl=False))
    data = form_data(dataset, systems, people, practice_file=upload, practice_pass_percent=70, attention_percent=10)
    response = admin_client.post(reverse("annotation:campaign_create"), data)
    assert response.status_code == 302
    campaign = dataset.campaigns.get()
    assert campaign.practice_items.count() == 2 and campaign.practice_pass_mark == 0.7
    assert campaign.attention_share == 0.1 and campaign.items.exclude(attention_worse="").exists()

    bad = SimpleUploadedFile("practice.json", b'[{"text": "x"}]')
    response = admin_client.post(
        reverse("annotation:campaign_create"), form_data(dataset, systems, people, name="b", practice_file=bad)
    )
    assert response.status_code == 200 and "practice.json: record 1: missing" in response.content.decode()
    response = admin_client.post(
        reverse("annotation:campaign_create"), form_data(dataset, systems, people, name="c", attention_percent=30)
    )
    assert "less than or equal to 20" in response.content.decode()
    assert dataset.campaigns.count() == 1
