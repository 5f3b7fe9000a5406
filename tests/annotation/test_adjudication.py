"""Adjudication (``annotation.adjudication``): which items are disagreements, the resolution's
invariants, the export carrying it, and ratings using it when the campaign asks."""

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from annotation import adjudication, exports, judgement_queries
from annotation.models import Campaign, Resolution
from leaderboard import human
from tests.annotation.adjudication_fixtures import make_attention_check

pytestmark = pytest.mark.django_db


def test_margin_is_one_for_opposite_sides_and_a_half_for_a_tie():
    assert adjudication.margin(["a", "b"]) == 1.0
    assert adjudication.margin(["a", "b", "tie"]) == 1.0
    assert adjudication.margin(["a", "tie"]) == 0.5
    assert adjudication.margin(["b", "b"]) == 0.0


def test_disagreements_filter_by_aspect_and_margin(disputed_campaign):
    campaign = disputed_campaign
    every = adjudication.disagreements(campaign)
    assert {(found.aspect, found.margin) for found in every} == {("ts", 1.0), ("us", 0.5)}
    assert len(every) == 6  # three items, two disputed aspects each
    assert [found.aspect for found in adjudication.disagreements(campaign, min_margin=1.0)] == ["ts"] * 3
    assert {found.aspect for found in adjudication.disagreements(campaign, aspect="us")} == {"us"}
    assert adjudication.disagreements(campaign, aspect="fs") == []
    assert every[0].counts == {"a": 1, "b": 1, "tie": 0}


def test_a_resolution_records_who_and_when_and_can_be_changed(disputed_campaign, people):
    campaign = disputed_campaign
    staff = people[2]
    item = campaign.items.first()
    first = adjudication.resolve(item, "ts", "b", "  B names the topic  ", staff)
    assert (first.label, first.note, first.resolved_by) == ("b", "B names the topic", staff)
    changed = adjudication.resolve(item, "ts", "tie", "", staff)
    assert changed.pk == first.pk and Resolution.objects.count() == 1 and changed.label == "tie"
    assert adjudication.disagreements(campaign, aspect="ts")[0].resolution.label == "tie"


def test_only_an_aspect_judged_twice_can_be_resolved(disputed_campaign, people):
    campaign = disputed_campaign
    with pytest.raises(adjudication.AdjudicationError, match="two or more annotators"):
        adjudication.resolve(campaign.items.first(), "cs", "a", "", people[2])


def test_the_model_refuses_attention_checks_unknown_labels_and_long_notes(disputed_campaign, people):
    campaign = disputed_campaign
    item = campaign.items.first()
    check = make_attention_check(item)
    now = timezone.now()
    with pytest.raises(ValidationError, match="attention check"):
        Resolution.objects.create(item=check, aspect="us", label="b", resolved_at=now)
    with pytest.raises(ValidationError):
        Resolution.objects.create(item=item, aspect="us", label="left", resolved_at=now)
    with pytest.raises(ValidationError, match="at most"):
        Resolution.objects.create(item=item, aspect="us", label="a", note="x" * 2001, resolved_at=now)


def test_the_export_carries_the_resolution_on_every_row_of_the_item_and_aspect(disputed_campaign, people):
    campaign = disputed_campaign
    item = campaign.items.first()
    adjudication.resolve(item, "ts", "b", "=B is on topic", people[2])
    records = list(exports.judgement_records(campaign))
    resolved = [r for r in records if r["text_id"] == item.text_id and r["aspect"] == "ts"]
    assert len(resolved) == 2
    for record in resolved:
        assert (record["adjudicated"], record["adjudication_note"], record["adjudicated_by"]) == (
            "b",
            "=B is on topic",
            "boss",
        )
        assert record["adjudicated_at"]
    others = [r for r in records if r not in resolved]
    assert {r["adjudicated"] for r in others} == {None}
    csv_text = "".join(exports.csv_lines(campaign))
    assert "adjudicated,adjudication_note,adjudicated_by,adjudicated_at" in csv_text.splitlines()[0]
    assert "'=B is on topic" in csv_text
    frame = exports.judgement_frame(campaign)
    assert str(frame["adjudicated_at"].dtype).startswith("datetime64")


def outcomes(campaigns, aspect="ts"):
    battles = judgement_queries.human_battles(campaigns, aspect)
    return sorted(battles.outcome.tolist())


def test_ratings_use_the_resolution_only_when_the_campaign_asks_for_adjudicated_labels(disputed_campaign, people):
    campaign = disputed_campaign
    campaigns = Campaign.objects.filter(pk=campaign.pk)
    # Opposite sides merge into a tie: three tied battles.
    assert outcomes(campaigns) == [0.5, 0.5, 0.5]
    for item in campaign.items.all():
        adjudication.resolve(item, "ts", "a", "", people[2])
    assert outcomes(campaigns) == [0.5, 0.5, 0.5]
    before = human.judgement_version(campaign.dataset)
    adjudication.set_rating_labels(campaign, Campaign.RatingLabels.ADJUDICATED)
    assert human.judgement_version(campaign.dataset) != before
    assert outcomes(campaigns) == [1.0, 1.0, 1.0]
    side = human.human_side(campaign.dataset, rounds=10)
    assert set(side["labels"]["ts"].values()) == {"a"}
    # Aspects left unresolved keep the merged label.
    assert outcomes(campaigns, "us") == [1.0, 1.0, 1.0]


def test_a_resolution_changes_the_judgement_version(disputed_campaign, people):
    campaign = disputed_campaign
    before = human.judgement_version(campaign.dataset)
    adjudication.resolve(campaign.items.first(), "us", "a", "", people[2])
    assert human.judgement_version(campaign.dataset) != before
