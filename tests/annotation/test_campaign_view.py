"""The campaign list and page: counts, progress, live agreement, annotator changes; staff only."""

import pytest
from django.urls import reverse

from annotation.models import Assignment, Campaign, Judgement
from annotation.services.queues import next_assignment
from tests.annotation.campaign_factories import finish_next, make_annotators, make_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign_and_people():
    # Every text judged by both annotators: every item is shared.
    return make_campaign(texts=3, annotators=2, overlap_share=1.0)


def judge(campaign, person, item, aspect, label):
    assignment = Assignment.objects.get(item=item, annotator=person)
    Judgement.objects.create(assignment=assignment, aspect=aspect, label=label)


def test_campaign_list_shows_each_campaign_with_progress(admin_client, campaign_and_people):
    campaign, people = campaign_and_people
    finish_next(people[0], campaign)
    response = admin_client.get(reverse("annotation:campaign_list"))
    assert response.status_code == 200
    listed = response.context["campaigns"].get(pk=campaign.pk)
    assert (listed.item_count, listed.assignment_count, listed.done_count, listed.annotator_count) == (9, 18, 1, 2)
    assert campaign.get_absolute_url().encode() in response.content


def test_page_counts_and_progress_per_annotator(admin_client, campaign_and_people):
    campaign, people = campaign_and_people
    # The first text's three pairs get their first four (30 s each), then completeness one by one.
    for completeness_seconds in (10, 30, 60):
        finish_next(people[0], campaign, seconds=(30, completeness_seconds))
    response = admin_client.get(campaign.get_absolute_url())
    assert response.status_code == 200
    context = response.context
    assert (context["text_count"], context["item_count"], context["assignment_count"], context["done_count"]) == (
        3,
        9,
        18,
        3,
    )
    assert context["doubly_judged_texts"] == 3
    progress = {row.username: row for row in context["progress"]}
    assert (progress["annotator0"].done, progress["annotator0"].assigned) == (3, 9)
    assert progress["annotator0"].median_seconds == 60
    assert (progress["annotator1"].done, progress["annotator1"].median_seconds) == (0, None)
    assert b"60.0" in response.content


def test_page_shows_agreement_so_far_per_aspect(admin_client, campaign_and_people):
    campaign, people = campaign_and_people
    same, one_tie, opposite = campaign.items.all()[:3]
    for item, labels in ((same, ("a", "a")), (one_tie, ("a", "tie")), (opposite, ("a", "b"))):
        judge(campaign, people[0], item, "ts", labels[0])
        judge(campaign, people[1], item, "ts", labels[1])
    judge(campaign, people[0], same, "us", "b")  # judged once: not comparable yet

    response = admin_client.get(campaign.get_absolute_url())
    rows = {row["aspect"].value: row for row in response.context["agreement"]}
    assert rows["ts"]["items"] == 3
    assert rows["ts"]["accuracy"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert rows["us"]["items"] == 0 and rows["us"]["accuracy"] is None
    html = response.content.decode()
    assert "0.500" in html
    assert f"{rows['ts']['kappa']:.3f}" in html


def test_adding_and_removing_an_annotator_rebalances(admin_client, campaign_and_people):
    campaign, people = campaign_and_people
    newcomer = make_annotators(1, prefix="newcomer")[0]
    url = reverse("annotation:campaign_annotators", args=[campaign.pk])

    response = admin_client.post(url, {"annotator": newcomer.username, "action": "add"}, follow=True)
    assert "newcomer0 added; queues rebalanced" in response.content.decode()
    assert Assignment.objects.filter(annotator=newcomer).exists()

    response = admin_client.post(url, {"annotator": people[0].username, "action": "remove"}, follow=True)
    assert "annotator0 removed" in response.content.decode()
    assert not Assignment.objects.filter(annotator=people[0], status="pending").exists()
    assert not campaign.memberships.get(annotator=people[0]).active


def test_refused_annotator_changes_say_why(admin_client, campaign_and_people):
    campaign, people = campaign_and_people
    url = reverse("annotation:campaign_annotators", args=[campaign.pk])
    response = admin_client.post(url, {"annotator": people[0].username, "action": "add"}, follow=True)
    assert "annotator0 already annotates study." in response.content.decode()
    response = admin_client.post(url, {"annotator": "nobody", "action": "add"}, follow=True)
    assert "Choose an annotator" in response.content.decode()


def test_closing_and_reopening(admin_client, campaign_and_people):
    campaign, people = campaign_and_people
    url = reverse("annotation:campaign_toggle_open", args=[campaign.pk])
    admin_client.post(url, {"confirm": "close"})
    closed = Campaign.objects.get(pk=campaign.pk)
    assert not closed.is_open
    assert next_assignment(people[0], closed) is None
    admin_client.post(url)
    assert Campaign.objects.get(pk=campaign.pk).is_open


def test_instructions_and_names_are_escaped(admin_client, campaign_and_people):
    campaign, _ = campaign_and_people
    campaign.instructions = "<script>alert(1)</script>"
    campaign.save()
    html = admin_client.get(campaign.get_absolute_url()).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def staff_urls(campaign):
    return [
        ("get", reverse("annotation:campaign_list")),
        ("get", reverse("annotation:campaign_create")),
        ("post", reverse("annotation:campaign_create")),
        ("get", reverse("annotation:campaign_detail", args=[campaign.pk])),
        ("post", reverse("annotation:campaign_annotators", args=[campaign.pk])),
        ("post", reverse("annotation:campaign_toggle_open", args=[campaign.pk])),
        ("get", reverse("annotation:campaign_csv", args=[campaign.pk])),
        ("get", reverse("annotation:campaign_jsonl", args=[campaign.pk])),
    ]


def test_annotators_get_403_on_every_campaign_url_and_admin(client, campaign_and_people):
    campaign, people = campaign_and_people
    client.force_login(people[0])
    for method, url in staff_urls(campaign):
        assert getattr(client, method)(url).status_code == 403, url
    admin_response = client.get(reverse("admin:annotation_campaign_changelist"))
    assert admin_response.status_code == 302 and reverse("admin:login") in admin_response.url
    assert Campaign.objects.get(pk=campaign.pk).is_open


def test_anonymous_visitors_are_sent_to_sign_in(client, campaign_and_people):
    campaign, _ = campaign_and_people
    for method, url in staff_urls(campaign):
        response = getattr(client, method)(url)
        assert response.status_code == 302 and response.url.startswith(reverse("login")), url
