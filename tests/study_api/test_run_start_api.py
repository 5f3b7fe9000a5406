"""POST /api/datasets/<name>/runs/: staff start a scoring run with the run form's fields and checks
(left-out fields take the page's defaults); everyone else is refused."""

import pytest

from scoring.models.runs import ScoringRun
from tests.factories import make_dataset
from tests.study_api.conftest import UNAUTHENTICATED, assert_unauthenticated

URL = "/api/datasets/Amber/runs/"


@pytest.fixture
def dataset(db):
    return make_dataset("Amber", texts=3, systems=("alpha", "beta"))[0]


@pytest.mark.parametrize("role", UNAUTHENTICATED)
def test_no_valid_token_is_401(api, dataset, role):
    assert_unauthenticated(api(role, URL, "post"))
    assert not ScoringRun.objects.exists()


@pytest.mark.parametrize("role", ["annotator", "researcher"])
def test_only_staff_start_runs(api, dataset, role):
    response = api(role, URL, "post")
    assert response.status_code == 403 and response.json() == {"error": "Only staff users may start scoring runs."}
    assert not ScoringRun.objects.exists()


def test_staff_start_a_run_of_the_page_defaults_and_get_its_status(api, dataset):
    response = api("staff", URL, "post")
    assert response.status_code == 202, response.content
    reply = response.json()
    run = ScoringRun.objects.get()
    assert reply["run"] == run.pk and reply["dataset"] == "Amber" and reply["status_url"] == f"/api/runs/{run.pk}/"
    assert sorted(run.systems.values_list("name", flat=True)) == ["alpha", "beta"]
    assert run.score_settings["judge"] == "heuristic" and run.created_by.get_username() == "boss"


def test_systems_are_named_and_the_chunk_size_taken(api, dataset):
    response = api("staff", URL, "post", {"systems": ["beta"], "metrics": ["us"], "chunk_texts": 1})
    assert response.status_code == 202, response.content
    run = ScoringRun.objects.get()
    assert list(run.systems.values_list("name", flat=True)) == ["beta"] and run.chunks.count() == 3


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"systems": ["nobody"]}, "systems"),
        ({"chunk_texts": 0}, "chunk_texts"),
        ({"judge": "recorded"}, "judge"),
        ({"fs_prompt": "Is {triple} in {text}?"}, "fs_prompt"),
    ],
)
def test_an_invalid_field_is_a_400_naming_it(api, dataset, data, field):
    response = api("staff", URL, "post", data)
    assert response.status_code == 400
    reply = response.json()
    assert field in reply["fields"] and reply["fields"][field][0] in reply["error"]
    assert not ScoringRun.objects.exists()


def test_an_unknown_dataset_is_a_json_404(api, dataset):
    assert api("staff", "/api/datasets/Nothing/runs/", "post").status_code == 404


def test_reading_is_not_a_method_here(api, dataset):
    response = api("staff", URL)
    assert response.status_code == 405 and response["Allow"] == "POST"
