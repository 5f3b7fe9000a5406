"""GET /api/datasets/: every token's user lists the datasets, by name, a page at a time."""

import pytest

from tests.factories import make_dataset
from tests.study_api.conftest import ROLES, UNAUTHENTICATED, assert_unauthenticated

URL = "/api/datasets/"


@pytest.fixture
def datasets(db):
    return [make_dataset(name, texts=1, systems=("alpha",))[0] for name in ("Cobalt", "Amber", "Beryl")]


@pytest.mark.parametrize("role", UNAUTHENTICATED)
def test_no_valid_token_is_401(api, datasets, role):
    assert_unauthenticated(api(role, URL))


@pytest.mark.parametrize("role", ROLES)
def test_every_role_lists_every_dataset_by_name(api, datasets, role):
    reply = api(role, URL).json()
    assert [dataset["name"] for dataset in reply["datasets"]] == ["Amber", "Beryl", "Cobalt"]
    assert reply["count"] == 3 and reply["next"] is None and reply["previous"] is None


def test_pages_follow_one_another_by_next_links(api, datasets):
    first = api("annotator", URL + "?page_size=2").json()
    assert [dataset["name"] for dataset in first["datasets"]] == ["Amber", "Beryl"]
    assert first["pages"] == 2 and first["next"] == "http://testserver/api/datasets/?page_size=2&page=2"
    second = api("annotator", first["next"]).json()
    assert [dataset["name"] for dataset in second["datasets"]] == ["Cobalt"]
    assert second["next"] is None and second["previous"].endswith("page=1")


@pytest.mark.parametrize(
    ("query", "status", "named"),
    [("page=0", 400, "page"), ("page=x", 400, "page"), ("page_size=201", 400, "page_size"), ("page=9", 404, "9")],
)
def test_a_bad_page_is_a_json_error_naming_it(api, datasets, query, status, named):
    response = api("staff", f"{URL}?{query}")
    assert response.status_code == status and named in response.json()["error"]
