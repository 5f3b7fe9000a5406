"""The JSON API and the CSV downloads hold what the page shows, for the same setting and margin."""

import csv
import io

import pytest
from django.urls import reverse

from tests.leaderboard.leaderboard_fixtures import FINGERPRINT, PROVENANCE, get_built

pytestmark = pytest.mark.django_db


def download(client, dataset, table, **query):
    response = get_built(client, reverse("leaderboard:csv", args=[dataset.name, table]), query)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="toy-{table}.csv"'
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_json_holds_scores_with_provenance_ratings_correlations_and_agreement(admin_client, dataset):
    data = get_built(admin_client, reverse("leaderboard:api_dataset", args=[dataset.name])).json()
    assert set(data) == {
        "dataset", "aspects", "margin", "bootstrap_rounds", "settings", "setting", "scores", "human",
        "metric_ratings", "comparison", "significance", "verdict", "as_of", "replicates",
        "unscored", "triple_checks",
    }  # fmt: skip
    assert data["dataset"] == {"name": "toy", "level": "sentence", "domain": "general", "description": "", "texts": 4}
    assert data["triple_checks"] is None  # no triple-check campaign on this dataset
    assert data["setting"]["key"] == FINGERPRINT
    assert data["setting"]["provenance"] == PROVENANCE
    assert data["setting"]["heuristic_judge"] is True
    alpha = data["scores"][0]
    assert alpha["system"] == "alpha" and alpha["values"]["ts"] == pytest.approx(0.9)
    elo = data["human"]["ratings"]["elo"]["ts"]["alpha"]
    assert set(elo) == {"rating", "ci_low", "ci_high", "battles", "rank"}
    assert elo["ci_low"] <= elo["rating"] <= elo["ci_high"] and elo["battles"] == 8
    assert data["human"]["agreement"]["ts"] == {"accuracy": None, "kappa": None, "alpha": None, "items": 0, "pairs": 0}
    assert data["human"]["campaigns"] == [{"name": "study", "open": False, "imported": False, "judgements": 60}]
    assert data["comparison"]["bt"]["us"]["by_score"]["kendall_tau"] == pytest.approx(-1.0)
    assert data["verdict"]["tau"] == pytest.approx(0.6)


def test_scores_csv(admin_client, dataset):
    rows = download(admin_client, dataset, "scores")
    assert [row["system"] for row in rows] == ["alpha", "beta", "gamma"]
    assert rows[0]["ts"] == "0.9" and rows[0]["empty_share"] == "0.0" and rows[0]["texts"] == "4"


def test_human_ratings_csv(admin_client, dataset):
    rows = download(admin_client, dataset, "human-ratings")
    # Two methods and the single pass of Elo, five aspects, three systems.
    assert len(rows) == 3 * 5 * 3
    assert {row["method"] for row in rows} == {"elo", "bt", "elo_single_pass"}
    first = rows[0]
    assert (first["method"], first["aspect"]) == ("elo", "ts")
    assert float(first["ci_low"]) <= float(first["rating"]) <= float(first["ci_high"])


def test_correlations_csv_follows_the_margin(admin_client, dataset):
    rows = {
        (row["method"], row["aspect"]): row for row in download(admin_client, dataset, "correlations", margin="0.5")
    }
    assert float(rows["elo", "us"]["by_score_kendall_tau"]) == pytest.approx(-1.0)
    assert rows["elo", "ts"]["margin"] == "0.5"
    assert float(rows["elo", "ts"]["item_agreement"]) == pytest.approx(2 / 3, abs=1e-4)
    assert rows["elo", "ts"]["items"] == "12"


def test_comparison_and_win_rate_csvs(admin_client, dataset):
    comparison = download(admin_client, dataset, "comparison")
    us = [row for row in comparison if (row["method"], row["aspect"]) == ("elo", "us")]
    assert [row["system"] for row in us] == ["gamma", "beta", "alpha"]  # by human rating
    assert [row["score_rank"] for row in us] == ["3", "2", "1"]
    win_rates = download(admin_client, dataset, "win-rates")
    ts_alpha = {row["opponent"]: row for row in win_rates if (row["aspect"], row["system"]) == ("ts", "alpha")}
    assert ts_alpha["gamma"]["share_of_points"] == "1.0" and ts_alpha["gamma"]["battles"] == "4"


def test_agreement_csv(admin_client, dataset):
    rows = download(admin_client, dataset, "agreement")
    assert [row["aspect"] for row in rows] == ["ts", "us", "fs", "gs", "cs"]
    assert rows[0]["items"] == "0"


def test_an_unknown_table_is_not_found(admin_client, dataset):
    assert get_built(admin_client, reverse("leaderboard:csv", args=[dataset.name, "secrets"])).status_code == 404
