"""Every leaderboard table downloads as Parquet beside its CSV: the same columns and rows, typed."""

import csv
import io

import pandas as pd
import pytest
from django.urls import reverse

from leaderboard.exports import CSV_TABLES
from tests.leaderboard.leaderboard_fixtures import get_built, ranked_dataset

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("table", list(CSV_TABLES))
def test_parquet_equals_the_csv(admin_client, table):
    dataset = ranked_dataset()
    response = get_built(admin_client, reverse("leaderboard:parquet", args=[dataset.name, table]), {"margin": "0.5"})
    assert response.status_code == 200
    assert response["Content-Type"] == "application/vnd.apache.parquet"
    assert response["Content-Disposition"] == f'attachment; filename="toy-{table}.parquet"'
    frame = pd.read_parquet(io.BytesIO(response.content), dtype_backend="numpy_nullable")
    text = get_built(admin_client, reverse("leaderboard:csv", args=[dataset.name, table]), {"margin": "0.5"})
    rows = list(csv.reader(io.StringIO(text.content.decode())))
    assert list(frame.columns) == rows[0]
    assert len(frame) == len(rows) - 1
    # The CSV's cells, read back as text, are the Parquet's values (empty cells are nulls).
    as_text = [
        ["" if pd.isna(value) else str(value) for value in row] for row in frame.astype(object).itertuples(index=False)
    ]
    assert as_text == rows[1:]


def test_numbers_are_typed_and_the_page_links_every_table(admin_client):
    dataset = ranked_dataset()
    response = get_built(admin_client, reverse("leaderboard:parquet", args=[dataset.name, "scores"]))
    frame = pd.read_parquet(io.BytesIO(response.content))
    assert frame["ts"].dtype == "float64" and frame["texts"].dtype == "int64"
    tests = pd.read_parquet(
        io.BytesIO(get_built(admin_client, reverse("leaderboard:parquet", args=[dataset.name, "significance"])).content)
    )
    assert tests["shared_texts"].dtype == "float64"  # pandas' default: integers with gaps (human rows) as float
    assert tests.loc[tests["source"] == "elo", "shared_texts"].isna().all()
    assert frame.loc[frame["system"] == "alpha", "ts"].item() == pytest.approx(0.9)
    page = get_built(
        admin_client, reverse("leaderboard:dataset", args=[dataset.name]), {"margin": "0.5"}
    ).content.decode()
    for table in CSV_TABLES:
        assert f'href="{reverse("leaderboard:parquet", args=[dataset.name, table])}?margin=0.5"' in page


def test_an_unknown_table_is_not_found(admin_client):
    dataset = ranked_dataset()
    assert get_built(admin_client, reverse("leaderboard:parquet", args=[dataset.name, "secrets"])).status_code == 404
