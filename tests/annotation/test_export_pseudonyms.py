"""Exports for anyone but staff name annotators "annotator-1", "annotator-2"… in the order of their
first judgement: the same in every format, never a user name, email or id; comments are kept."""

import csv
import io
import json

import pandas as pd
import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.exports import judgement_records, pseudonyms
from annotation.models import Resolution

pytestmark = pytest.mark.django_db


@pytest.fixture
def researcher_client(client, people, disputed_campaign):
    disputed_campaign.is_open = False
    disputed_campaign.save(update_fields=["is_open"])
    client.force_login(people[1])
    return client


def download(client, campaign, file_format):
    response = client.get(reverse(f"annotation:campaign_{file_format}", args=[campaign.pk]))
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def annotators_and_comments(client, campaign):
    """(annotator, comment) of every row, as each format reads it."""
    rows = {
        "csv": list(csv.DictReader(io.StringIO(download(client, campaign, "csv").decode()))),
        "jsonl": [json.loads(line) for line in download(client, campaign, "jsonl").decode().splitlines()],
        "parquet": pd.read_parquet(io.BytesIO(download(client, campaign, "parquet"))).to_dict("records"),
    }
    # No comment: an empty CSV cell, null in JSON, a missing value (NaN) in pandas.
    return {
        name: [
            (row["annotator"], row["comment"] if pd.notna(row["comment"]) and row["comment"] else None) for row in each
        ]
        for name, each in rows.items()
    }


def test_pseudonyms_follow_the_order_of_first_judgement(people, disputed_campaign):
    annotators = people[0]
    assert pseudonyms(disputed_campaign) == {annotators[0].pk: "annotator-1", annotators[1].pk: "annotator-2"}


def test_every_format_names_the_same_pseudonyms_and_keeps_comments(researcher_client, disputed_campaign):
    read = annotators_and_comments(researcher_client, disputed_campaign)
    assert read["csv"] == read["jsonl"] == read["parquet"]
    assert {annotator for annotator, _ in read["csv"]} == {"annotator-1", "annotator-2"}
    assert ("annotator-1", "<i>A is plainly on topic</i>") in read["csv"]


def test_no_user_name_email_or_id_is_left(researcher_client, people, disputed_campaign):
    annotators, _researcher, staff = people
    Resolution.objects.create(
        item=disputed_campaign.items.first(),
        aspect="ts",
        label="a",
        note="settled",
        resolved_by=staff,
        resolved_at=timezone.now(),
    )
    for person in (*annotators, staff):
        person.email = f"{person.username}@example.org"
        person.save(update_fields=["email"])
    for file_format in ("csv", "jsonl", "parquet"):
        body = download(researcher_client, disputed_campaign, file_format)
        for person in (*annotators, staff):
            assert person.username.encode() not in body and person.email.encode() not in body
    records = list(judgement_records(disputed_campaign, pseudonymise=True))
    assert {record["adjudicated_by"] for record in records} == {None, "staff"}
    assert not {record["annotator"] for record in records} & {str(person.pk) for person in annotators}
