"""Leaderboard JSON and tables by API token: a script reads what its user reads in the pages, under the same rules."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts.roles import Role, set_role
from scoring.models import ApiToken
from tests.leaderboard.leaderboard_fixtures import (
    HUMAN_ORDER,
    build_all,
    judged_campaign,
    ranking_labels,
    scored_dataset,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def scored():
    dataset, systems = scored_dataset()
    build_all()
    return dataset, systems


def token_of(username, role):
    user = get_user_model().objects.create_user(username)
    set_role(user, role)
    return ApiToken.issue(user)[1]


def addresses(dataset):
    return [
        reverse("leaderboard:api_dataset", args=[dataset.name]),
        reverse("leaderboard:csv", args=[dataset.name, "scores"]),
    ]


@pytest.mark.parametrize("role", Role.values)
def test_every_role_reads_by_token(client, scored, role):
    key = token_of("scripted", role)
    for url in addresses(scored[0]):
        response = client.get(url, HTTP_AUTHORIZATION=f"Token {key}")
        assert response.status_code == 200 and b"alpha" in response.content, url


def test_a_bad_token_is_401_even_when_leaderboards_are_public(client, scored, settings):
    settings.GENRES_PUBLIC_LEADERBOARD = True
    response = client.get(addresses(scored[0])[0], HTTP_AUTHORIZATION="Token nonsense")
    assert response.status_code == 401 and "Unknown API token" in response.json()["error"]


def test_an_annotator_of_an_open_campaign_is_refused_by_token_too(client, scored):
    dataset, systems = scored
    _, (annotator,) = judged_campaign(dataset, systems, ranking_labels(HUMAN_ORDER), is_open=True)
    _, key = ApiToken.issue(annotator)
    response = client.get(addresses(dataset)[0], HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 403 and "open campaign" in response.json()["error"]
