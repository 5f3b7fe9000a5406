"""Invariants the annotation models keep: canonical item order and side mapping."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from annotation.models import ASPECTS, FIRST_ASPECTS, Aspect, Assignment, Item, Judgement, Label
from tests.annotation.campaign_factories import make_campaign

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


def test_aspect_codes_and_names():
    assert ASPECTS == ["ts", "us", "fs", "gs", "cs"]
    assert FIRST_ASPECTS == ["ts", "us", "fs", "gs"]
    assert Aspect("gs").label == "Granularity"


def test_item_refuses_systems_out_of_canonical_order():
    campaign, _ = make_campaign()
    item = campaign.items.first()
    reversed_item = Item(campaign=campaign, text=item.text, system_a=item.system_b, system_b=item.system_a)
    with pytest.raises(ValidationError, match="canonical order"):
        reversed_item.save()
    same = Item(campaign=campaign, text=item.text, system_a=item.system_a, system_b=item.system_a)
    with pytest.raises(ValidationError, match="two different systems"):
        same.save()


def test_database_refuses_reversed_items_written_in_bulk():
    campaign, _ = make_campaign()
    item = campaign.items.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Item.objects.bulk_create(
            [Item(campaign=campaign, text=item.text, system_a=item.system_b, system_b=item.system_a)]
        )


def test_canonical_pair_orders_by_id():
    campaign, _ = make_campaign()
    first, second = campaign.systems.order_by("pk")[:2]
    assert Item.canonical_pair(second, first) == (first, second, True)
    assert Item.canonical_pair(first, second) == (first, second, False)
    with pytest.raises(ValueError, match="two different systems"):
        Item.canonical_pair(first, first)


@pytest.mark.parametrize(
    "a_on_left, side, label",
    [
        (True, "left", Label.A),
        (True, "right", Label.B),
        (False, "left", Label.B),
        (False, "right", Label.A),
        (True, "tie", Label.TIE),
        (False, "tie", Label.TIE),
    ],
)
def test_sides_map_to_canonical_labels_and_back(a_on_left, side, label):
    assignment = Assignment(a_on_left=a_on_left)
    assert assignment.shown_to_canonical(side) == label
    assert assignment.canonical_to_shown(label) == side


def test_unknown_sides_and_labels_are_refused():
    assignment = Assignment(a_on_left=True)
    with pytest.raises(ValueError, match="Unknown side"):
        assignment.shown_to_canonical("up")
    with pytest.raises(ValueError, match="Unknown label"):
        assignment.canonical_to_shown("c")


def test_progress_helpers_follow_the_judgements():
    campaign, _ = make_campaign()
    assignment = Assignment.objects.filter(item__campaign=campaign).first()
    assert not assignment.first_aspects_done and not assignment.is_done
    for aspect in FIRST_ASPECTS:
        Judgement.objects.create(assignment=assignment, aspect=aspect, label=Label.TIE)
    assert assignment.first_aspects_done and not assignment.is_done
    Judgement.objects.create(assignment=assignment, aspect=Aspect.CS, label=Label.A)
    assert assignment.is_done


def test_one_judgement_per_aspect():
    campaign, _ = make_campaign()
    assignment = Assignment.objects.filter(item__campaign=campaign).first()
    Judgement.objects.create(assignment=assignment, aspect="ts", label="a")
    with pytest.raises(IntegrityError), transaction.atomic():
        Judgement.objects.create(assignment=assignment, aspect="ts", label="b")
