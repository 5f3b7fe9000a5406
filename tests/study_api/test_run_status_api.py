"""GET /api/runs/<id>/: a scoring run's status, for those who may read its page (staff and
researchers); 403 for an annotator's token."""

import pytest

from scoring.models.runs import ScoringRun
from tests.leaderboard.leaderboard_fixtures import scored_dataset
from tests.study_api.conftest import UNAUTHENTICATED, assert_unauthenticated


@pytest.fixture
def run(db):
    dataset, _ = scored_dataset(name="Amber")
    return ScoringRun.objects.get(dataset=dataset)


@pytest.mark.parametrize("role", UNAUTHENTICATED)
def test_no_valid_token_is_401(api, run, role):
    assert_unauthenticated(api(role, f"/api/runs/{run.pk}/"))


def test_an_annotator_gets_403(api, run):
    assert api("annotator", f"/api/runs/{run.pk}/").status_code == 403


@pytest.mark.parametrize("role", ["researcher", "staff"])
def test_readers_get_what_the_run_page_shows(api, run, role):
    reply = api(role, f"/api/runs/{run.pk}/").json()
    assert {key: reply[key] for key in run.progress_state()} == run.progress_state()
    assert reply["dataset"] == "Amber" and reply["status_url"] == f"/api/runs/{run.pk}/"


def test_an_unknown_run_is_a_json_404(api, run):
    response = api("staff", "/api/runs/9999/")
    assert response.status_code == 404 and response.json() == {"error": "No scoring run 9999."}
