"""GET /api/datasets/<name>/ratings/: the ratings as the leaderboard built them, under the
leaderboards' rules: any token's user, but not an annotator who judges the dataset's systems
blind; signed out, 401 unless the leaderboards are public."""

import json

import pytest

from leaderboard.jobs import build_snapshots
from tests.study_api.conftest import ROLES, assert_unauthenticated


@pytest.fixture
def built(disputed):
    build_snapshots(disputed.dataset)
    return disputed.dataset


def url(dataset):
    return f"/api/datasets/{dataset.name}/ratings/"


@pytest.mark.parametrize("role", ["wrong token", "revoked token"])
def test_an_unknown_token_is_401(api, built, role):
    assert_unauthenticated(api(role, url(built)))


def test_signed_out_is_401_unless_leaderboards_are_public(api, built, settings):
    assert api("anonymous", url(built)).status_code == 401
    settings.GENRES_PUBLIC_LEADERBOARD = True
    assert api("anonymous", url(built)).status_code == 200


@pytest.mark.parametrize("role", ROLES)
def test_each_role_reads_the_leaderboards_ratings_once_the_campaign_is_closed(api, built, role):
    built.campaigns.update(is_open=False)
    reply = api(role, url(built)).json()
    board = api(role, f"/api/datasets/{built.name}/leaderboard.json").json()
    assert reply["human"] == board["human"]["ratings"] and reply["single_pass"] == board["human"]["single_pass"]
    assert reply["metric"] == board["metric_ratings"] and reply["judgements"] == board["human"]["judgements"] == 24
    assert json.dumps(reply)  # plain JSON all the way down


def test_an_annotator_of_the_open_campaign_gets_403(api, built):
    response = api("annotator", url(built))
    assert response.status_code == 403 and "blind" in response.json()["error"]


def test_an_unknown_dataset_is_a_404(api, built):
    assert api("staff", "/api/datasets/Nothing/ratings/").status_code == 404
