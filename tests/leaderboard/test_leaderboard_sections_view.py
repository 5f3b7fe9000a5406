"""What the live refresh fetches: the sections a change affects, re-rendered, and the figures."""

import pytest
from django.urls import reverse

from tests.leaderboard.leaderboard_fixtures import get_built

pytestmark = pytest.mark.django_db


def sections(client, dataset, query):
    response = get_built(client, reverse("leaderboard:sections", args=[dataset.name]), query)
    assert response.status_code == 200
    return response.json()


def test_new_judgements_refresh_the_human_parts(admin_client, dataset):
    payload = sections(admin_client, dataset, {"change": "judgements"})
    assert sorted(payload["sections"]) == ["comparison", "human", "triple_checks", "verdict"]
    assert "60 judgements from 1 campaign" in payload["sections"]["human"]
    assert sorted(payload["plots"]) == [
        "aspects", "human_significance", "profile", "ratings", "replicates", "scatter", "significance", "win_rates",
    ]  # fmt: skip
    assert sorted(payload["plots"]["ratings"]) == ["bt", "elo"]


def test_new_scores_refresh_the_score_parts(admin_client, dataset):
    payload = sections(admin_client, dataset, {"change": "scores"})
    assert sorted(payload["sections"]) == ["comparison", "scores", "significance", "triple_checks", "verdict"]
    assert 'id="scores-table"' in payload["sections"]["scores"]


def test_sections_keep_the_page_margin_and_their_csv_links(admin_client, dataset):
    payload = sections(admin_client, dataset, {"change": ["judgements", "scores"], "margin": "0.5"})
    assert len(payload["sections"]) == 6
    comparison = payload["sections"]["comparison"]
    assert '<td class="num item-accuracy">0.67</td>' in comparison
    assert reverse("leaderboard:csv", args=[dataset.name, "correlations"]) + '?margin=0.5"' in comparison
