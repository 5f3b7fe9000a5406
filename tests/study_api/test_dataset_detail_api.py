"""GET /api/datasets/<name>/: one dataset's counts, for every token's user, as in the list."""

import pytest

from tests.factories import make_dataset
from tests.study_api.conftest import ROLES, UNAUTHENTICATED, assert_unauthenticated


@pytest.fixture
def dataset(db):
    return make_dataset("Amber", texts=3, systems=("alpha", "beta"))[0]


@pytest.mark.parametrize("role", UNAUTHENTICATED)
def test_no_valid_token_is_401(api, dataset, role):
    assert_unauthenticated(api(role, "/api/datasets/Amber/"))


@pytest.mark.parametrize("role", ROLES)
def test_every_role_reads_the_dataset_as_the_list_shows_it(api, dataset, role):
    reply = api(role, "/api/datasets/Amber/").json()
    assert reply == api(role, "/api/datasets/").json()["datasets"][0]
    assert reply["texts"] == 3 and reply["systems"] == 2


def test_an_unknown_dataset_is_a_json_404(api, dataset):
    response = api("staff", "/api/datasets/Nothing/")
    assert response.status_code == 404 and response.json() == {"error": "No dataset named 'Nothing'."}
