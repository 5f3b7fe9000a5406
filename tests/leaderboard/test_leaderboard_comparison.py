"""Correlation and item-level agreement on hand-made data, read through the JSON and the page.

Scores rank alpha > beta > gamma on every aspect (0.9, 0.5, 0.1 on every text). Humans agree on
every aspect except uniqueness, which they rank backwards; every item is judged once, no ties.
"""

import pytest
from django.urls import reverse

from tests.leaderboard.leaderboard_fixtures import build_all, get_built

pytestmark = pytest.mark.django_db


def leaderboard_json(client, dataset, **query):
    response = get_built(client, reverse("leaderboard:api_dataset", args=[dataset.name]), query)
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize("method", ["elo", "bt"])
def test_rank_correlations_per_aspect(admin_client, dataset, method):
    comparison = leaderboard_json(admin_client, dataset)["comparison"][method]
    for aspect in ("ts", "fs", "gs", "cs"):
        assert comparison[aspect]["by_score"]["kendall_tau"] == pytest.approx(1.0)
        assert comparison[aspect]["by_score"]["spearman_rho"] == pytest.approx(1.0)
        assert comparison[aspect]["by_battles"]["kendall_tau"] == pytest.approx(1.0)
    assert comparison["us"]["by_score"]["kendall_tau"] == pytest.approx(-1.0)
    assert comparison["us"]["by_battles"]["spearman_rho"] == pytest.approx(-1.0)
    assert comparison["us"]["by_score"]["systems"] == 3


def test_item_agreement_at_the_default_margin(admin_client, dataset):
    data = leaderboard_json(admin_client, dataset)
    assert data["margin"] == 0.2
    # 4 texts × 3 pairs; score gaps of 0.4 and 0.8 decide every metric battle.
    ts_items = data["comparison"]["elo"]["ts"]["items"]
    assert ts_items == {"accuracy": 1.0, "items": 12, "metric_labels": 12, "metric_ties": 0}
    assert data["comparison"]["elo"]["us"]["items"]["accuracy"] == 0.0


def test_margin_turns_small_gaps_into_ties(admin_client, dataset):
    data = leaderboard_json(admin_client, dataset, margin="0.5")
    assert data["margin"] == 0.5
    # alpha–beta and beta–gamma (gap 0.4) are ties now: half credit; alpha–gamma (0.8) still agrees.
    ts_items = data["comparison"]["elo"]["ts"]["items"]
    assert ts_items["metric_ties"] == 8
    assert ts_items["accuracy"] == pytest.approx((8 * 0.5 + 4 * 1.0) / 12)
    # Metric-battle ratings are rated from those same battles: beta now sits between with more ties.
    metric = data["metric_ratings"]["bt"]["ts"]
    assert metric["alpha"]["rating"] > metric["beta"]["rating"] > metric["gamma"]["rating"]


def test_margin_is_snapped_to_the_page_grid(admin_client, dataset):
    assert leaderboard_json(admin_client, dataset, margin="0.33")["margin"] == 0.35


@pytest.mark.parametrize("margin", ["-0.1", "1.5", "nan", "wide"])
def test_a_bad_margin_is_refused_with_a_reason(admin_client, dataset, margin):
    response = get_built(admin_client, reverse("leaderboard:api_dataset", args=[dataset.name]), {"margin": margin})
    assert response.status_code == 400
    assert "margin" in response.json()["error"]
    page = get_built(admin_client, reverse("leaderboard:dataset", args=[dataset.name]), {"margin": margin})
    assert page.status_code == 400
    assert b"margin must be" in page.content


def test_page_shows_the_figures(admin_client, dataset):
    page = get_built(admin_client, reverse("leaderboard:dataset", args=[dataset.name]), {"margin": "0.5"})
    html = page.content.decode()
    assert page.status_code == 200
    assert 'data-aspect="us"><th scope="row">Uniqueness</th><td class="num tau-score">-1.00</td>' in html
    assert 'data-aspect="ts"><th scope="row">Topical similarity</th><td class="num tau-score">1.00</td>' in html
    assert '<td class="num item-accuracy">0.67</td>' in html
    assert 'value="0.50"' in html


def test_verdict_on_the_index(admin_client, dataset):
    build_all()
    html = admin_client.get(reverse("leaderboard:index")).content.decode()
    # Mean τ over the five aspects: (4 − 1) / 5 = 0.6.
    assert "Human and GENRES rankings agree: Kendall τ 0.60 (mean over 5 aspects)." in html
