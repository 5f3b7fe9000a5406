"""The GENRES table: one row per system with Ground truth marked, values ×100, best values marked,
provenance one hover away, the heuristic judge flagged, and a selector between scoring settings."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse

from scoring.models import Output, System
from scoring.models.runs import ScoringRun
from tests.leaderboard.leaderboard_fixtures import PROVENANCE, get_built, scored_dataset, store_run

pytestmark = pytest.mark.django_db

LLM_PROVENANCE = {
    **PROVENANCE,
    "judge": "openai",
    "judge_model": "gpt-4o-mini",
    "prompt_version": "genres-v2",
    "heuristic_judge": False,
    "embedder": "openai",
    "embedder_model": "text-embedding-ada-002",
    "threshold": 0.95,
}
LLM_FINGERPRINT = "e" * 64


@pytest.fixture
def dataset():
    dataset, systems = scored_dataset()
    gold = System.ground_truth()
    for text in dataset.texts.all():
        Output.objects.create(system=gold, text=text, triples=text.gold)
    store_run(dataset, [*systems, gold], lambda system, position, aspect: 1.0 if system == "Ground truth" else 0.3)
    return dataset


def page(client, dataset, **query):
    response = get_built(client, reverse("leaderboard:dataset", args=[dataset.name]), query)
    assert response.status_code == 200
    return response.content.decode()


def scores_table(html):
    return html[html.index('id="scores-table"') : html.index("</table>", html.index('id="scores-table"'))]


def test_rows_values_and_ground_truth(admin_client, dataset):
    table = scores_table(page(admin_client, dataset))
    rows = re.findall(r'<th scope="row" class="system-col" data-sort="([^"]+)"', table)
    assert rows == ["Ground truth", "alpha", "beta", "gamma"]
    assert '<tr class="ground-truth">' in table and '<span class="badge gold">gold</span>' in table
    # The latest run scored every system 0.3 (Ground truth 1.0): shown ×100 with one decimal, the
    # overall score too; the three share ranks 1 to 3 by every score.
    assert table.count('data-sort="0.3" data-rank="1–3">30.0</td>') == 3 * 12
    assert '<td class="num" data-sort="1.0">100.0</td>' in table


def test_the_best_value_per_column_leaves_ground_truth_out(admin_client):
    dataset, _ = scored_dataset(name="spread")
    table = scores_table(page(admin_client, dataset))
    # alpha (0.9) is best on every score; the empty share (0 for all) is best everywhere.
    assert table.count('<td class="num best" data-sort="0.9" data-rank="1">90.0</td>') == 12
    assert table.count('class="num best" data-sort="0.0" data-rank="1–3">0.0</td>') == 3
    assert 'data-sort="0.5" data-rank="2">50.0</td>' in table and 'best" data-sort="0.5"' not in table


def test_provenance_is_one_hover_away(admin_client, dataset):
    table = scores_table(page(admin_client, dataset))
    assert 'title="Uniqueness ×100 · embedder hashing (hashing-512), φ 0.82, triple embedding: sum"' in table
    assert 'title="Factualness ×100 · judge heuristic (offline heuristic, no LLM)"' in table
    assert 'title="Topical similarity ×100 · LDA, 7 topics, seed 13"' in table
    assert 'title="Relaxed F1 ×100 · token Jaccard ≥ 0.5 per element"' in table


def test_the_heuristic_judge_is_flagged(admin_client, dataset):
    html = page(admin_client, dataset)
    badge = 'title="Factualness and granularity come from the offline heuristic judge, not an LLM"'
    assert f'<span class="badge warn" {badge}>offline heuristic judge</span>' in html
    assert html.count('<span class="judge-mark" aria-label="offline heuristic judge">*</span>') == 2


def add_llm_setting(dataset):
    systems = System.objects.filter(name__in=["alpha", "beta", "gamma"])
    run = store_run(dataset, systems, lambda system, position, aspect: 0.7, LLM_PROVENANCE, LLM_FINGERPRINT)
    ScoringRun.objects.filter(pk=run.pk).update(finished_at=run.finished_at + timedelta(hours=1))


def test_settings_are_never_mixed_and_a_selector_chooses(admin_client, dataset):
    add_llm_setting(dataset)
    html = page(admin_client, dataset)
    assert '<select name="setting">' in html
    assert f'<option value="{LLM_FINGERPRINT}" selected>openai φ 0.95 · judge openai · LDA 7 topics</option>' in html
    table = scores_table(html)
    # Newest setting first: the LLM judge's scores, without Ground truth (not scored with it).
    assert "offline heuristic judge" not in table and 'data-sort="0.7" data-rank="1–3">70.0</td>' in table
    assert "Ground truth" not in table
    assert 'title="Factualness ×100 · judge openai, model gpt-4o-mini, prompt version genres-v2"' in table

    older = scores_table(page(admin_client, dataset, setting="f" * 64))
    assert "Ground truth" in older and 'data-sort="0.7"' not in older


def test_an_unknown_setting_is_refused(admin_client, dataset):
    response = get_built(admin_client, reverse("leaderboard:api_dataset", args=[dataset.name]), {"setting": "abc"})
    assert response.status_code == 400
    assert response.json() == {"error": "No scoring results with the setting 'abc' on this dataset."}


def test_without_a_finished_run_the_page_says_so(admin_client):
    from tests.factories import make_dataset

    dataset, _ = make_dataset(name="unscored")
    html = page(admin_client, dataset)
    assert "No finished scoring run on this dataset yet." in html
    assert "No GENRES scores or human judgements yet." in html
