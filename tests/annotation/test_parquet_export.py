"""The Parquet download of a campaign's judgements: the CSV export's rows and columns, typed."""

import io

import pandas as pd
import pytest
from django.urls import reverse

from annotation.exports import COLUMNS
from tests.annotation.campaign_factories import FIRST_FOUR, finish_next, make_campaign

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


def test_parquet_holds_the_csv_rows_with_typed_columns(admin_client):
    campaign, people = make_campaign(texts=2, annotators=2, overlap_share=1.0, systems=("alpha", "beta"))
    for person in people:
        finish_next(person, campaign, first=FIRST_FOUR, completeness="right", seconds=(20, 5))
    response = admin_client.get(reverse("annotation:campaign_parquet", args=[campaign.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/vnd.apache.parquet"
    assert response["Content-Disposition"] == f'attachment; filename="campaign-{campaign.pk}-judgements.parquet"'
    frame = pd.read_parquet(io.BytesIO(b"".join(response.streaming_content)))
    assert tuple(frame.columns) == COLUMNS
    assert len(frame) == 2 * 5
    assert set(frame["annotator"]) == {person.username for person in people}
    assert frame["item_seconds_spent"].tolist() == [25.0] * 10
    assert isinstance(frame["judged_at"].dtype, pd.DatetimeTZDtype)
    assert frame["text_position"].dtype == "int64"
    # Canonical labels with the side each system was shown on, as in the CSV.
    assert set(frame["winner"]) <= {"a", "b", "tie"}
    assert set(frame["system_a_side"]) <= {"left", "right"}


def test_parquet_download_is_for_staff_only(client, django_user_model):
    campaign, people = make_campaign(texts=1, annotators=1, overlap_share=0.0, systems=("alpha", "beta"))
    client.force_login(people[0])
    response = client.get(reverse("annotation:campaign_parquet", args=[campaign.pk]))
    assert response.status_code in (302, 403)
