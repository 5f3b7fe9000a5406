"""Stored scores on the dataset and text pages: one settings fingerprint at a time, current ones only."""

import pytest
from django.urls import reverse

from scoring.genres.scorer import ScoreSettings
from scoring.imports import import_outputs
from scoring.jobs import run_in_process
from scoring.models import System
from scoring.models.runs import ScoringRun
from tests.scoring.run_fixtures import ASPIRIN, CURIE, PARIS, jsonl, tiny_dataset

pytestmark = pytest.mark.django_db
LIAR_OUTPUTS = [
    {"id": "t1", "triples": [["Napoleon", "born in", "Corsica"]]},
    {"id": "t2", "triples": [["<script>alert(1)</script>", "treats", "headache"]]},
    {"id": "t3", "triples": [["Paris", "hosts", "the Louvre and the Orsay"]]},
]


@pytest.fixture
def dataset():
    dataset = tiny_dataset()
    import_outputs(jsonl(LIAR_OUTPUTS), file_name="liar.jsonl", dataset="tiny", system_name="Liar")
    return dataset


def score(dataset, metrics=("us", "fs", "gs"), **settings):
    systems = System.objects.filter(name__in=["Echo", "Liar"])
    return run_in_process(ScoringRun.create(dataset, systems, metrics, ScoreSettings(**settings)))


def text_page(admin_client, dataset, text, **query):
    pk = dataset.texts.get(content=text).pk
    return admin_client.get(reverse("scoring:text", args=[dataset.name, pk]), query).content.decode()


def test_before_any_run_the_dataset_page_says_so(admin_client, dataset):
    content = admin_client.get(reverse("scoring:dataset", args=[dataset.name])).content.decode()
    assert "No finished scoring run on this dataset yet." in content
    assert reverse("scoring:run_new", args=[dataset.name]) in content  # staff may start one


def test_the_dataset_page_shows_each_systems_scores_with_the_heuristic_judge_labelled(admin_client, dataset):
    run = score(dataset)
    content = admin_client.get(reverse("scoring:dataset", args=[dataset.name])).content.decode()
    assert "heuristic judge (no LLM)" in content and "FS and GS come from the heuristic judge" in content
    assert f'href="{run.get_absolute_url()}"' in content
    echo_row = content[content.index('<td class="nowrap">Echo') :].split("</tr>")[0]
    assert "33.3" in echo_row and "66.7" in echo_row  # ×100: us 1/3; fs = gs = 2/3
    assert "outdated" not in content


def test_settings_are_shown_one_at_a_time_latest_first(admin_client, dataset):
    older = score(dataset, metrics=["us"])
    newer = score(dataset, metrics=["us"], threshold=0.9)
    url = reverse("scoring:dataset", args=[dataset.name])
    latest = admin_client.get(url).content.decode()
    assert f'<option value="{newer.fingerprint}" selected>hashing φ 0.9 ' in latest
    assert f'<option value="{older.fingerprint}">hashing φ 0.604 ' in latest
    assert latest.count('<table class="data scores">') == 1
    chosen = admin_client.get(url, {"settings": older.fingerprint}).content.decode()
    assert f'<option value="{older.fingerprint}" selected>' in chosen
    # An unknown fingerprint falls back to the latest settings.
    unknown = admin_client.get(url, {"settings": "0" * 64}).content.decode()
    assert f'<option value="{newer.fingerprint}" selected>' in unknown


def test_the_text_page_shows_scores_and_each_triples_verdict_escaped(admin_client, dataset):
    score(dataset)
    curie = text_page(admin_client, dataset, CURIE)
    liar = curie[curie.index("<h3>Liar") :]
    assert "unsupported" in liar.split("</section>")[0]
    paris = text_page(admin_client, dataset, PARIS)
    liar = paris[paris.index("<h3>Liar") :].split("</section>")[0]
    assert "splits into 2" in liar
    assert "[Paris, hosts, the Louvre]" in liar and "[Paris, hosts, the Orsay]" in liar
    aspirin = text_page(admin_client, dataset, ASPIRIN)
    assert "<script>alert(1)</script>" not in aspirin
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in aspirin


def test_outputs_uploaded_again_lose_their_scores_until_scored_again(admin_client, dataset):
    score(dataset)
    again = [{"id": "t1", "triples": [["Marie Curie", "born in", "Poland"]]}]
    import_outputs(jsonl(again), file_name="liar-2.jsonl", dataset="tiny", system_name="Liar")
    content = admin_client.get(reverse("scoring:dataset", args=[dataset.name])).content.decode()
    liar_row = content[content.index('<td class="nowrap">Liar') :].split("</tr>")[0]
    assert "outdated" in liar_row
    echo_row = content[content.index('<td class="nowrap">Echo') :].split("</tr>")[0]
    assert "outdated" not in echo_row
    curie = text_page(admin_client, dataset, CURIE)
    assert "No current scores with these settings" in curie[curie.index("<h3>Liar") :]
