"""The run form's Rules choice: the reference rules go into the run's settings; a post without it keeps the app's."""

import pytest
from django.urls import reverse

from scoring.models.runs import ScoringRun
from tests.scoring.run_fixtures import echo, tiny_dataset

pytestmark = pytest.mark.django_db


def start(client, dataset, **choices):
    data = {"systems": [echo().pk], "metrics": ["gs"], "embedder": "hashing", "judge": "heuristic", "chunk_texts": 50}
    response = client.post(reverse("scoring:run_new", args=[dataset.name]), {**data, **choices, "action": "start"})
    assert response.status_code == 302
    return ScoringRun.objects.latest("pk")


def test_the_form_offers_both_rule_sets(admin_client):
    dataset = tiny_dataset()
    page = admin_client.get(reverse("scoring:run_new", args=[dataset.name])).content.decode()
    assert '<option value="app" selected>app rules</option>' in page
    assert "reference rules (the GENRES authors&#x27; code)" in page


def test_the_chosen_rules_are_the_runs(admin_client, django_capture_on_commit_callbacks):
    dataset = tiny_dataset()
    with django_capture_on_commit_callbacks():
        assert start(admin_client, dataset, rules="reference").settings_object().rules == "reference"
        assert start(admin_client, dataset).settings_object().rules == "app"
