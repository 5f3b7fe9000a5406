"""CSV and JSON Lines downloads: one row per item, aspect and annotator, canonical names and sides."""

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.exports import COLUMNS
from annotation.models import Assignment, Campaign, Judgement
from tests.annotation.campaign_factories import FIRST_FOUR, finish_next, make_campaign

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


@pytest.fixture
def judged():
    # Two systems: one pair per text, so each annotator's first item is finished on its own.
    campaign, people = make_campaign(texts=2, annotators=2, overlap_share=1.0, systems=("alpha", "beta"))
    judged = [
        finish_next(person, campaign, first=FIRST_FOUR, completeness="right", seconds=(20, 5)) for person in people
    ]
    return campaign, people, judged


def download_csv(client, campaign):
    response = client.get(reverse("annotation:campaign_csv", args=[campaign.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def download_jsonl(client, campaign):
    response = client.get(reverse("annotation:campaign_jsonl", args=[campaign.pk]))
    assert response.status_code == 200
    return [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]


def test_csv_has_one_row_per_item_aspect_and_annotator(admin_client, judged):
    campaign, people, _assignments = judged
    rows = download_csv(admin_client, campaign)
    assert tuple(rows[0]) == COLUMNS
    assert len(rows) == 2 * 5 == Judgement.objects.count()
    assert {(row["annotator"], row["aspect"]) for row in rows} == {
        (person.username, aspect) for person in people for aspect in ("ts", "us", "fs", "gs", "cs")
    }


def test_rows_carry_canonical_names_sides_and_time(admin_client, judged):
    campaign, _people, assignments = judged
    rows = download_csv(admin_client, campaign)
    for assignment in assignments:
        item = assignment.item
        mine = {row["aspect"]: row for row in rows if row["annotator"] == assignment.annotator.username}
        left, right = ("system_a", "system_b") if assignment.a_on_left else ("system_b", "system_a")
        for row in mine.values():
            assert (row["system_a"], row["system_b"]) == (item.system_a.name, item.system_b.name)
            assert row[f"{left}_side"] == "left" and row[f"{right}_side"] == "right"
            assert row["text"] == item.text.external_id and row["text_position"] == str(item.text.position + 1)
            assert float(row["item_seconds_spent"]) == 25.0
            assert row["item_status"] == "done" and row["item_completed_at"] and row["judged_at"]
        # The annotator clicked "left" for ts: the winner is whichever system was on the left.
        assert mine["ts"]["winning_system"] == mine["ts"][left]
        assert mine["ts"]["winner"] == ("a" if assignment.a_on_left else "b")
        assert mine["fs"]["winner"] == "tie" and mine["fs"]["winning_system"] == "tie"


def test_jsonl_matches_csv(admin_client, judged):
    campaign, _, _ = judged
    csv_rows = download_csv(admin_client, campaign)
    json_rows = download_jsonl(admin_client, campaign)
    assert len(json_rows) == len(csv_rows)
    assert [tuple(row) for row in json_rows] == [COLUMNS] * len(json_rows)
    assert [(row["annotator"], row["aspect"], row["winner"]) for row in json_rows] == [
        (row["annotator"], row["aspect"], row["winner"]) for row in csv_rows
    ]
    assert isinstance(json_rows[0]["text_id"], int) and isinstance(json_rows[0]["item_seconds_spent"], float)


def test_cells_that_spreadsheets_would_run_are_neutralised(admin_client, judged):
    campaign, people, _ = judged
    people[0].username = "=HYPERLINK(1)"
    people[0].save()
    rows = download_csv(admin_client, campaign)
    assert {row["annotator"] for row in rows} == {"'=HYPERLINK(1)", people[1].username}


def test_an_export_imports_back_as_the_same_judgements(admin_client, judged, tmp_path):
    campaign, _, _ = judged
    response = admin_client.get(reverse("annotation:campaign_csv", args=[campaign.pk]))
    path = tmp_path / "roundtrip.csv"
    path.write_bytes(b"".join(response.streaming_content))
    call_command("import_judgements", str(path), "--dataset", campaign.dataset.name, stdout=io.StringIO())

    imported = Campaign.objects.get(name="roundtrip")
    original = list(
        Judgement.objects.filter(assignment__item__campaign=campaign)
        .order_by("pk")
        .values_list("assignment__item__text", "assignment__item__system_a", "aspect", "assignment__annotator", "label")
    )
    copied = list(
        Judgement.objects.filter(assignment__item__campaign=imported)
        .order_by("pk")
        .values_list("assignment__item__text", "assignment__item__system_a", "aspect", "assignment__annotator", "label")
    )
    assert copied == original
    assert Assignment.objects.filter(item__campaign=imported, status="done").count() == 2


def test_imported_campaigns_leave_the_sides_blank(admin_client, judged, tmp_path):
    campaign, _, _ = judged
    response = admin_client.get(reverse("annotation:campaign_csv", args=[campaign.pk]))
    path = tmp_path / "elsewhere.csv"
    path.write_bytes(b"".join(response.streaming_content))
    call_command("import_judgements", str(path), "--dataset", campaign.dataset.name, stdout=io.StringIO())
    rows = download_csv(admin_client, Campaign.objects.get(name="elsewhere"))
    assert {(row["system_a_side"], row["system_b_side"]) for row in rows} == {("", "")}
