"""Who reads leaderboards: signed-in users, everyone when public, never an annotator of an open
campaign on that dataset (the page would name the systems they judge blind). Systems shared with
other datasets: test_leaderboard_shared_system_access."""

import pytest
from django.urls import reverse

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
    return scored_dataset()


@pytest.fixture
def dataset(scored):
    build_all()
    return scored[0]


def urls(dataset):
    return {
        "index": reverse("leaderboard:index"),
        "page": reverse("leaderboard:dataset", args=[dataset.name]),
        "json": reverse("leaderboard:api_dataset", args=[dataset.name]),
        "csv": reverse("leaderboard:csv", args=[dataset.name, "scores"]),
        "sections": reverse("leaderboard:sections", args=[dataset.name]),
    }


def test_anonymous_visitors_sign_in_first_by_default(client, dataset):
    addresses = urls(dataset)
    for name in ("index", "page"):
        response = client.get(addresses[name])
        assert response.status_code == 302
        assert response.url.startswith(reverse("login"))
    for name in ("json", "csv", "sections"):
        response = client.get(addresses[name])
        assert response.status_code == 401
        assert response.json() == {"error": "Sign in to read leaderboards."}


def test_public_leaderboards_are_readable_by_anyone(client, dataset, settings):
    settings.GENRES_PUBLIC_LEADERBOARD = True
    for name, address in urls(dataset).items():
        assert client.get(address).status_code == 200, name
    assert client.post(urls(dataset)["page"]).status_code == 405


def test_any_signed_in_user_reads_them(client, dataset, django_user_model):
    client.force_login(django_user_model.objects.create_user("reader"))
    assert client.get(urls(dataset)["page"]).status_code == 200


@pytest.fixture
def annotator_of_open_campaign(scored):
    dataset, systems = scored
    campaign, (annotator,) = judged_campaign(dataset, systems, ranking_labels(HUMAN_ORDER), is_open=True)
    return campaign, annotator


def test_an_annotator_of_an_open_campaign_is_refused_with_a_reason(client, dataset, annotator_of_open_campaign):
    _campaign, annotator = annotator_of_open_campaign
    client.force_login(annotator)
    addresses = urls(dataset)
    page = client.get(addresses["page"])
    assert page.status_code == 403
    assert b"You annotate an open campaign whose systems the toy leaderboard names" in page.content
    assert b"alpha" not in page.content
    for name in ("json", "csv", "sections"):
        response = client.get(addresses[name])
        assert response.status_code == 403
        assert "open campaign" in response.json()["error"]


def test_the_index_hides_that_dataset_from_them(client, dataset, annotator_of_open_campaign):
    _campaign, annotator = annotator_of_open_campaign
    client.force_login(annotator)
    html = client.get(urls(dataset)["index"]).content.decode()
    assert reverse("leaderboard:dataset", args=[dataset.name]) not in html
    assert "1 dataset naming the systems of an open campaign you annotate is not listed" in html


def test_public_access_does_not_lift_the_rule(client, dataset, annotator_of_open_campaign, settings):
    settings.GENRES_PUBLIC_LEADERBOARD = True
    client.force_login(annotator_of_open_campaign[1])
    assert client.get(urls(dataset)["page"]).status_code == 403


def test_once_the_campaign_closes_they_see_it(client, dataset, annotator_of_open_campaign):
    campaign, annotator = annotator_of_open_campaign
    campaign.is_open = False
    campaign.save(update_fields=["is_open"])
    client.force_login(annotator)
    assert client.get(urls(dataset)["page"]).status_code == 200
    assert reverse("leaderboard:dataset", args=[dataset.name]) in client.get(urls(dataset)["index"]).content.decode()


def test_an_unknown_dataset_is_not_found(admin_client):
    assert admin_client.get(reverse("leaderboard:dataset", args=["nothing"])).status_code == 404
    assert admin_client.get(reverse("leaderboard:api_dataset", args=["nothing"])).status_code == 404
