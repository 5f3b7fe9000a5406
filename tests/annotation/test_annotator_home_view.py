"""The annotator home: own open campaigns with progress, Continue, and the review list."""

import pytest
from django.urls import reverse

from annotation.models import CampaignAnnotator
from annotation.services.judgements import save_judgements
from tests.annotation.annotator_fixtures import FIRST_FOUR_LEFT, make_annotation_setup, make_user

pytestmark = pytest.mark.django_db


def finish(assignment):
    save_judgements(assignment, FIRST_FOUR_LEFT, expected_version=0, seconds=5)
    save_judgements(assignment, {"cs": "tie"}, expected_version=1, seconds=5)


def test_home_shows_each_campaign_with_its_pairs_and_judgements(signed_in, setup, annotator):
    finish(setup.assignments(annotator)[0])
    body = signed_in.get(reverse("annotation:annotate_home")).content.decode()
    assert "Pilot study" in body
    assert "<strong>1</strong> of 3 pairs, <strong>5</strong> of 15 judgements" in body
    assert 'style="width: 33%"' in body
    assert reverse("annotation:annotate_continue", args=[setup.campaign.pk]) in body
    assert ">Continue<" in body


def test_home_leaves_out_other_peoples_campaigns(signed_in, annotator):
    other = make_user("someone-else")
    make_annotation_setup([other], name="Not mine")
    body = signed_in.get(reverse("annotation:annotate_home")).content.decode()
    assert "Not mine" not in body and "not part of an open annotation campaign" in body


def test_home_hides_a_closed_campaign(signed_in, setup):
    setup.campaign.is_open = False
    setup.campaign.save()
    assert "Pilot study" not in signed_in.get(reverse("annotation:annotate_home")).content.decode()


def test_home_hides_a_campaign_the_annotator_left(signed_in, setup, annotator):
    CampaignAnnotator.objects.filter(campaign=setup.campaign, annotator=annotator).update(active=False)
    assert "Pilot study" not in signed_in.get(reverse("annotation:annotate_home")).content.decode()


def test_continue_opens_the_first_pending_item_in_queue_order(signed_in, setup, annotator):
    first, second, _ = setup.assignments(annotator)
    continue_url = reverse("annotation:annotate_continue", args=[setup.campaign.pk])
    assert signed_in.get(continue_url).url == reverse("annotation:annotate_item", args=[first.public_id])
    finish(first)
    assert signed_in.get(continue_url).url == reverse("annotation:annotate_item", args=[second.public_id])


def test_continue_returns_home_with_thanks_when_everything_is_judged(signed_in, setup, annotator):
    for assignment in setup.assignments(annotator):
        finish(assignment)
    response = signed_in.get(reverse("annotation:annotate_continue", args=[setup.campaign.pk]), follow=True)
    body = response.content.decode()
    assert response.redirect_chain[-1][0] == reverse("annotation:annotate_home")
    assert "Every item of Pilot study is judged" in body and "All done" in body


def test_review_lists_judged_items_most_recent_first_with_reopen_links(signed_in, setup, annotator):
    first, second, third = setup.assignments(annotator)
    finish(first)
    save_judgements(third, {"ts": "tie"}, expected_version=0, seconds=2)
    home = signed_in.get(reverse("annotation:annotate_home")).content.decode()
    assert reverse("annotation:annotate_review") in home
    body = signed_in.get(reverse("annotation:annotate_review")).content.decode()
    third_link = reverse("annotation:annotate_item", args=[third.public_id])
    first_link = reverse("annotation:annotate_item", args=[first.public_id])
    assert third_link in body and first_link in body
    assert body.index(third_link) < body.index(first_link)
    assert reverse("annotation:annotate_item", args=[second.public_id]) not in body
    assert "1 of 5" in body and "all 5" in body


def test_review_link_is_absent_before_any_judgement(signed_in, setup):
    assert (
        reverse("annotation:annotate_review") not in signed_in.get(reverse("annotation:annotate_home")).content.decode()
    )


def test_home_requires_signing_in(client, setup):
    response = client.get(reverse("annotation:annotate_home"))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
