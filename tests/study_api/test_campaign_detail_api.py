"""GET /api/campaigns/<id>/: a campaign with each annotator's progress (pairs, pairs judged,
judgements) from ``queue_progress``; annotators named for staff, pseudonymised for researchers,
who read closed campaigns only; annotators get 403."""

import pytest

from annotation.views.exports import NOT_A_READER, STILL_OPEN
from tests.study_api.conftest import UNAUTHENTICATED, assert_unauthenticated


def url(campaign):
    return f"/api/campaigns/{campaign.pk}/"


@pytest.mark.parametrize("role", UNAUTHENTICATED)
def test_no_valid_token_is_401(api, closed_disputed, role):
    assert_unauthenticated(api(role, url(closed_disputed)))


def test_an_annotator_gets_403(api, closed_disputed):
    response = api("annotator", url(closed_disputed))
    assert response.status_code == 403 and response.json() == {"error": NOT_A_READER}


def test_a_researcher_gets_403_while_the_campaign_is_open(api, disputed):
    response = api("researcher", url(disputed))
    assert response.status_code == 403 and response.json() == {"error": STILL_OPEN}


def test_staff_read_each_annotators_progress_by_name(api, disputed):
    reply = api("staff", url(disputed)).json()
    assert reply["systems"] == sorted(disputed.systems.values_list("name", flat=True)) and reply["texts"] == 3
    assert reply["progress"] == [
        {
            "annotator": name,
            "active": True,
            "excluded": False,
            "pairs": 3,
            "pairs_judged": 3,
            "judgements": 12,
            "judgements_asked": 15,
        }
        for name in ("ann-one", "ann-two")
    ]
    assert reply["exports"]["csv"] == f"/api/campaigns/{disputed.pk}/judgements.csv"


def test_researchers_read_a_closed_campaign_pseudonymised(api, closed_disputed):
    reply = api("researcher", url(closed_disputed)).json()
    assert [row["annotator"] for row in reply["progress"]] == ["annotator-1", "annotator-2"]
    assert "ann-one" not in str(reply)


def test_an_unknown_campaign_is_a_json_404(api, disputed):
    response = api("staff", "/api/campaigns/999/")
    assert response.status_code == 404 and response.json() == {"error": "No campaign 999."}
