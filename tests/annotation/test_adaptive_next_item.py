"""A campaign with the adaptive pair order serves next the pairs its judgements leave least certain."""

import pytest

from annotation.models import ASPECTS, Assignment, Campaign, Judgement
from annotation.services.campaigns import create_campaign
from annotation.services.queues import next_assignment
from tests.annotation.campaign_factories import FIRST_FOUR, judge, make_annotators
from tests.factories import make_dataset

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


def campaign_with(pair_order):
    dataset, systems = make_dataset(texts=8)
    person = make_annotators(1)[0]
    campaign = create_campaign(
        name="adaptive", dataset=dataset, systems=systems, annotators=[person], seed=5, overlap_share=0.0,
        sample_size=8, pair_order=pair_order,
    ).campaign  # fmt: skip
    return campaign, person


def settle_alpha_over_beta(campaign, texts=6):
    """Every alpha–beta pair of the first ``texts`` texts judged on all aspects: alpha better."""
    chosen = sorted({assignment.item.text_id for assignment in Assignment.objects.select_related("item")})[:texts]
    pairs = Assignment.objects.filter(
        item__campaign=campaign, item__text_id__in=chosen, item__system_a__name="alpha", item__system_b__name="beta"
    )
    Judgement.objects.bulk_create(
        Judgement(assignment=pair, aspect=aspect, label="a") for pair in pairs for aspect in ASPECTS
    )
    pairs.update(status=Assignment.Status.DONE)


def names(assignment):
    return {assignment.item.system_a.name, assignment.item.system_b.name}


def test_a_settled_pair_is_served_after_the_open_ones():
    campaign, person = campaign_with(Campaign.PairOrder.ADAPTIVE)
    settle_alpha_over_beta(campaign)
    served = []
    # Eight texts × three pairs, six alpha–beta pairs done: 18 pending. Their first four aspects,
    # each answered "tie" (gamma is level with both), then completeness as each text is ready.
    while (assignment := next_assignment(person, campaign)) is not None:
        stage = "first" if assignment.judgements.filter(aspect__in=FIRST_ASPECT_CODES).count() < 4 else "cs"
        served.append((stage, frozenset(names(assignment))))
        judge(assignment, {aspect: "tie" for aspect in FIRST_FOUR} if stage == "first" else {"cs": "tie"})
    first_pairs = [pair for stage, pair in served if stage == "first"]
    settled = frozenset(("alpha", "beta"))
    # The two alpha–beta pairs left (certain: every bootstrap round puts alpha first, 6 battles)
    # wait while the pairs with gamma are less certain or have fewer battles: until each has its
    # 6 ties, 12 first stages. From then on the queue's order decides between them, and the queue
    # is drawn per annotator.
    assert first_pairs.count(settled) == 2
    assert all("gamma" in pair for pair in first_pairs[:12])
    assert first_pairs[12:].count(settled) == 2
    assert len(served) == 2 * 18
    assert not Assignment.objects.filter(status=Assignment.Status.PENDING).exists()


def test_the_queue_order_ignores_uncertainty():
    campaign, person = campaign_with(Campaign.PairOrder.QUEUE)
    settle_alpha_over_beta(campaign, texts=0)
    first = next_assignment(person, campaign)
    queue = Assignment.objects.filter(annotator=person).order_by("queue_position", "pk").first()
    assert first == queue


def test_before_any_judgement_adaptive_follows_the_queue():
    campaign, person = campaign_with(Campaign.PairOrder.ADAPTIVE)
    queue = Assignment.objects.filter(annotator=person).order_by("queue_position", "pk").first()
    assert next_assignment(person, campaign) == queue


def test_a_closed_adaptive_campaign_has_nothing_next():
    campaign, person = campaign_with(Campaign.PairOrder.ADAPTIVE)
    Campaign.objects.filter(pk=campaign.pk).update(is_open=False)
    assert next_assignment(person, campaign) is None


FIRST_ASPECT_CODES = list(FIRST_FOUR)


def test_the_creation_form_offers_the_adaptive_order_and_the_page_shows_it(admin_client):
    from django.urls import reverse

    dataset, systems = make_dataset(texts=4)
    people = make_annotators(2)
    form = {
        "name": "pilot", "dataset": dataset.pk, "systems": [system.pk for system in systems], "sample_size": 4,
        "seed": 11, "annotators": [person.pk for person in people], "overlap_percent": 0,
    }  # fmt: skip
    assert b"Least certain pairs first (adaptive)" in admin_client.get(reverse("annotation:campaign_create")).content
    admin_client.post(reverse("annotation:campaign_create"), {**form, "pair_order": "adaptive"})
    admin_client.post(reverse("annotation:campaign_create"), {**form, "name": "plain"})  # not given: the queue order
    adaptive, plain = Campaign.objects.get(name="pilot"), Campaign.objects.get(name="plain")
    assert (adaptive.pair_order, plain.pair_order) == ("adaptive", "queue")
    assert b"Adaptive</strong> pair order" in admin_client.get(adaptive.get_absolute_url()).content
    assert b"Adaptive</strong> pair order" not in admin_client.get(plain.get_absolute_url()).content
