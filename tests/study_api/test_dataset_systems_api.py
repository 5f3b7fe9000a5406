"""GET /api/datasets/<name>/systems/: the systems with outputs on a dataset, for the users who may
read outputs (staff, researchers); an annotator's token gets 403, as the dataset page does."""

import pytest

from annotation.models import CampaignAnnotator
from tests.factories import make_dataset
from tests.study_api.conftest import UNAUTHENTICATED, assert_unauthenticated

URL = "/api/datasets/Amber/systems/"


@pytest.fixture
def dataset(db):
    return make_dataset("Amber", texts=3, systems=("beta", "alpha"))[0]


@pytest.mark.parametrize("role", UNAUTHENTICATED)
def test_no_valid_token_is_401(api, dataset, role):
    assert_unauthenticated(api(role, URL))


def test_an_annotator_gets_403(api, dataset):
    response = api("annotator", URL)
    assert response.status_code == 403 and "researchers" in response.json()["error"]


@pytest.mark.parametrize("role", ["researcher", "staff"])
def test_readers_get_the_systems_by_name_with_their_outputs(api, dataset, role):
    reply = api(role, URL).json()
    assert [system["name"] for system in reply["systems"]] == ["alpha", "beta"]
    assert all(system["outputs"] == 3 and system["ground_truth"] is False for system in reply["systems"])
    assert reply["count"] == 2


def test_a_member_of_an_open_campaign_naming_them_gets_403(api, people, disputed):
    # A researcher made a member by hand (the forms refuse it) judges those systems blind.
    CampaignAnnotator.objects.create(campaign=disputed, annotator=people[1])
    response = api("researcher", f"/api/datasets/{disputed.dataset.name}/systems/")
    assert response.status_code == 403 and "blind" in response.json()["error"]


def test_an_unknown_dataset_is_a_json_404(api, dataset):
    assert api("staff", "/api/datasets/Nothing/systems/").status_code == 404
