"""GET /api/campaigns/<id>/agreement/: the quality page's figures (``quality.agreement_matrix``):
per aspect, and annotator × annotator; pseudonymised for researchers, who read closed campaigns."""

import pytest

from annotation import quality
from annotation.views.exports import NOT_A_READER, STILL_OPEN
from tests.study_api.conftest import UNAUTHENTICATED, assert_unauthenticated


def url(campaign):
    return f"/api/campaigns/{campaign.pk}/agreement/"


@pytest.mark.parametrize("role", UNAUTHENTICATED)
def test_no_valid_token_is_401(api, closed_disputed, role):
    assert_unauthenticated(api(role, url(closed_disputed)))


def test_an_annotator_gets_403(api, closed_disputed):
    assert api("annotator", url(closed_disputed)).json() == {"error": NOT_A_READER}


def test_a_researcher_gets_403_while_the_campaign_is_open(api, disputed):
    response = api("researcher", url(disputed))
    assert response.status_code == 403 and response.json() == {"error": STILL_OPEN}


def test_staff_read_the_quality_pages_figures(api, disputed):
    reply = api("staff", url(disputed)).json()
    page = quality.agreement_matrix(disputed)
    assert reply["annotators"] == page.names == ["ann-one", "ann-two"]
    assert reply["matrix"]["accuracy"] == [[cell[0] for cell in cells] for _, cells in page.rows]
    assert reply["matrix"]["pairs"] == [[0, 12], [12, 0]]
    for row in page.aspects:
        figures = reply["aspects"][row["aspect"].value]
        assert figures == {key: row[key] for key in ("accuracy", "kappa", "fleiss", "alpha", "items", "pairs")}
    # Opposite sides on topical similarity, the same on factualness.
    assert reply["aspects"]["ts"]["accuracy"] == 0.0 and reply["aspects"]["fs"]["accuracy"] == 1.0


def test_researchers_read_the_same_figures_pseudonymised(api, closed_disputed):
    staff, researcher = api("staff", url(closed_disputed)).json(), api("researcher", url(closed_disputed)).json()
    assert researcher["annotators"] == ["annotator-1", "annotator-2"]
    assert {**researcher, "annotators": staff["annotators"]} == staff


def test_an_unknown_campaign_is_a_json_404(api, disputed):
    assert api("staff", "/api/campaigns/999/agreement/").status_code == 404
