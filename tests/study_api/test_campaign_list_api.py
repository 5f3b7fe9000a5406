"""GET /api/campaigns/: staff list every campaign, researchers the closed ones (as they read their
exports), annotators none (403); each with its progress counts, oldest first, paged."""

import pytest

from annotation.views.exports import NOT_A_READER
from tests.study_api.conftest import UNAUTHENTICATED, assert_unauthenticated

URL = "/api/campaigns/"


@pytest.mark.parametrize("role", UNAUTHENTICATED)
def test_no_valid_token_is_401(api, disputed, role):
    assert_unauthenticated(api(role, URL))


def test_an_annotator_gets_403(api, disputed):
    response = api("annotator", URL)
    assert response.status_code == 403 and NOT_A_READER in response.json()["error"]


def test_staff_list_an_open_campaign_with_its_progress(api, disputed):
    reply = api("staff", URL).json()
    assert reply["count"] == 1
    (campaign,) = reply["campaigns"]
    assert campaign["id"] == disputed.pk and campaign["open"] is True
    # Three items, both annotators hold each, four aspects judged of each.
    assert (campaign["items"], campaign["assignments"], campaign["judgements"], campaign["annotators"]) == (3, 6, 24, 2)
    assert campaign["url"] == f"/api/campaigns/{disputed.pk}/"


def test_researchers_list_closed_campaigns_only(api, disputed):
    assert api("researcher", URL).json()["campaigns"] == []
    disputed.is_open = False
    disputed.save(update_fields=["is_open"])
    assert [campaign["id"] for campaign in api("researcher", URL).json()["campaigns"]] == [disputed.pk]


def test_a_bad_page_size_is_a_400(api, disputed):
    response = api("staff", URL + "?page_size=0")
    assert response.status_code == 400 and "page_size" in response.json()["error"]
