"""The study API's tests: a request by API token as each role, and the campaign whose annotators
disagree (``tests.annotation.adjudication_fixtures``), closed or open."""

import pytest

from scoring.models import ApiToken
from tests.annotation.adjudication_fixtures import make_disputed_campaign, make_people
from tests.leaderboard.conftest import leaderboard_queue  # noqa: F401 (autouse: empties the leaderboard queue)
from tests.scoring.conftest import scratch  # noqa: F401 (autouse: empties the scoring queue)

# Who calls: no token, a key no one holds, a revoked key, and a token of each role.
UNAUTHENTICATED = ("anonymous", "wrong token", "revoked token")
ROLES = ("annotator", "researcher", "staff")


@pytest.fixture
def people(db):
    """(annotators, researcher, staff): ``adjudication_fixtures.make_people``."""
    return make_people()


@pytest.fixture
def disputed(people):
    """The open campaign whose two annotators disagree."""
    return make_disputed_campaign(people[0]).campaign


@pytest.fixture
def closed_disputed(disputed):
    disputed.is_open = False
    disputed.save(update_fields=["is_open"])
    return disputed


@pytest.fixture
def api(client, people):
    """``api(role, url, method="get", data=None)``: the response to a request by API token as ``role``
    (one of :data:`UNAUTHENTICATED` or :data:`ROLES`)."""
    annotators, researcher, staff = people
    users = {"annotator": annotators[0], "researcher": researcher, "staff": staff}

    def send(role, url, method="get", data=None):
        if role == "anonymous":
            headers = {}
        elif role == "wrong token":
            headers = {"HTTP_AUTHORIZATION": "Token no-such-key"}
        else:
            token, key = ApiToken.issue(users.get(role, staff))
            if role == "revoked token":
                token.delete()
            headers = {"HTTP_AUTHORIZATION": f"Token {key}"}
        return getattr(client, method)(url, data, **headers)

    return send


def assert_unauthenticated(response):
    assert response.status_code == 401, response.content
    assert response["WWW-Authenticate"].startswith("Token") and "error" in response.json()
