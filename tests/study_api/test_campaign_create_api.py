"""POST /api/campaigns/: staff create a campaign with the campaign form's fields and checks, the
dataset, systems and annotators named; an invalid field is a 400 naming it and the reason."""

import pytest

from annotation.models import Campaign
from tests.factories import make_dataset
from tests.study_api.conftest import UNAUTHENTICATED, assert_unauthenticated

URL = "/api/campaigns/"


@pytest.fixture
def form(people):
    make_dataset("Amber", texts=4, systems=("alpha", "beta"))
    return {
        "name": "Second round",
        "dataset": "Amber",
        "systems": ["alpha", "beta"],
        "sample_size": 2,
        "seed": 5,
        "annotators": ["ann-one", "ann-two"],
        "overlap_percent": 50,
    }


@pytest.mark.parametrize("role", UNAUTHENTICATED)
def test_no_valid_token_is_401(api, form, role):
    assert_unauthenticated(api(role, URL, "post", form))
    assert not Campaign.objects.exists()


@pytest.mark.parametrize("role", ["annotator", "researcher"])
def test_only_staff_create_campaigns(api, form, role):
    response = api(role, URL, "post", form)
    assert response.status_code == 403 and "Creating a campaign is for staff." in response.json()["error"]
    assert not Campaign.objects.exists()


def test_staff_create_a_campaign_and_read_it_back(api, form):
    response = api("staff", URL, "post", form)
    assert response.status_code == 201, response.content
    reply = response.json()
    campaign = Campaign.objects.get()
    assert reply["id"] == campaign.pk and reply["name"] == "Second round" and reply["texts"] == 2
    assert reply["systems"] == ["alpha", "beta"] and reply["texts_left_out"] == 0
    assert [row["annotator"] for row in reply["progress"]] == ["ann-one", "ann-two"]
    assert {key: value for key, value in reply.items() if key != "texts_left_out"} == api("staff", reply["url"]).json()


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"dataset": "Nothing"}, "dataset", "Select a valid choice"),
        ({"systems": ["alpha"]}, "systems", "Choose at least two systems"),
        ({"annotators": ["researcher"]}, "annotators", "cannot judge systems blind"),
        ({"sample_size": ""}, "sample_size", "Give a number of texts to sample"),
        ({"overlap_percent": 101}, "overlap_percent", "less than or equal to 100"),
        ({"sample_size": 9}, "__all__", "9"),
    ],
)
def test_an_invalid_field_is_a_400_naming_it_and_why(api, form, change, field, reason):
    response = api("staff", URL, "post", {**form, **change})
    assert response.status_code == 400, response.content
    reply = response.json()
    assert reason in " ".join(reply["fields"][field]) and reason in reply["error"]
    assert not Campaign.objects.exists()


def test_a_taken_name_is_refused_as_the_form_refuses_it(api, form):
    assert api("staff", URL, "post", form).status_code == 201
    reply = api("staff", URL, "post", form).json()
    assert reply["fields"] == {"name": ["A campaign with this name exists already."]}
