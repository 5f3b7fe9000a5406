"""GET /api/judgements/: the export's rows of the campaigns the token's user may read (staff: all,
user names; researchers: closed ones, pseudonymised; annotators: 403), filtered by campaign and
aspect, paged in judgement order; a bad filter is a 400 naming it."""

import pytest

from annotation.exports import judgement_records
from annotation.views.exports import NOT_A_READER, STILL_OPEN
from tests.study_api.conftest import UNAUTHENTICATED, assert_unauthenticated

URL = "/api/judgements/"


@pytest.mark.parametrize("role", UNAUTHENTICATED)
def test_no_valid_token_is_401(api, closed_disputed, role):
    assert_unauthenticated(api(role, URL))


def test_an_annotator_gets_403(api, closed_disputed):
    assert api("annotator", URL).json() == {"error": NOT_A_READER}


def test_staff_read_every_row_of_the_export_with_user_names(api, disputed):
    reply = api("staff", URL + "?page_size=200").json()
    rows = [{key: row[key] for key in row if key not in ("id", "campaign_id")} for row in reply["judgements"]]
    assert rows == list(judgement_records(disputed)) and reply["count"] == 24
    assert {row["campaign_id"] for row in reply["judgements"]} == {disputed.pk}


def test_researchers_read_closed_campaigns_only_and_pseudonymised(api, disputed):
    assert api("researcher", URL).json()["count"] == 0
    response = api("researcher", f"{URL}?campaign={disputed.pk}")
    assert response.status_code == 403 and response.json() == {"error": STILL_OPEN}
    disputed.is_open = False
    disputed.save(update_fields=["is_open"])
    rows = api("researcher", f"{URL}?campaign={disputed.pk}&page_size=200").json()["judgements"]
    assert {row["annotator"] for row in rows} == {"annotator-1", "annotator-2"}
    assert [row["id"] for row in rows] == sorted(row["id"] for row in rows)


def test_filters_by_aspect_and_pages_in_judgement_order(api, disputed):
    first = api("staff", f"{URL}?campaign={disputed.pk}&aspect=ts&page_size=4").json()
    assert first["count"] == 6 and {row["aspect"] for row in first["judgements"]} == {"ts"}
    second = api("staff", first["next"]).json()
    ids = [row["id"] for row in first["judgements"] + second["judgements"]]
    assert ids == sorted(ids) and len(set(ids)) == 6 and second["next"] is None


@pytest.mark.parametrize(
    ("query", "status", "named"),
    [("aspect=zz", 400, "aspect"), ("campaign=abc", 400, "campaign"), ("campaign=999", 404, "999")],
)
def test_a_bad_filter_is_a_json_error_naming_it(api, disputed, query, status, named):
    response = api("staff", f"{URL}?{query}")
    assert response.status_code == status and named in response.json()["error"]
