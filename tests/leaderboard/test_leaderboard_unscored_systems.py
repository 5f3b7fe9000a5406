"""Nothing vanishes silently: a system uploaded after the scoring run is listed under the GENRES
table and in leaderboard.json as "not scored yet", with a link to start a run for staff only."""

import pytest
from django.test import Client
from django.urls import reverse

from scoring.models import Output, System
from tests.leaderboard.leaderboard_fixtures import build_all, get_built, scored_dataset

pytestmark = pytest.mark.django_db


@pytest.fixture
def dataset():
    dataset, _ = scored_dataset()
    build_all()
    late = System.objects.create(name="delta")
    for text in dataset.texts.all():
        Output.objects.create(system=late, text=text, triples=text.gold)
    build_all()
    return dataset


@pytest.fixture
def researcher(django_user_model):
    """A signed-in user who is not staff, on a client of their own (``admin_client`` is ``client``)."""
    client = Client()
    client.force_login(django_user_model.objects.create_user("researcher", password="researcher-pass-123"))
    return client


def unscored_note(client, dataset):
    response = get_built(client, reverse("leaderboard:dataset", args=[dataset.name]))
    assert response.status_code == 200
    html = response.content.decode()
    start = html.index('id="unscored-systems"')
    return html[start : html.index("</div>", start)]


def test_a_system_uploaded_after_scoring_is_listed_as_not_scored_yet(admin_client, dataset):
    note = unscored_note(admin_client, dataset)
    assert '<span class="system">delta</span> <span class="badge warn">not scored yet</span>' in note
    assert "alpha" not in note
    response = get_built(admin_client, reverse("leaderboard:api_dataset", args=[dataset.name]))
    assert response.json()["unscored"] == [{"system": "delta", "ground_truth": False, "status": "not scored yet"}]


def test_only_staff_get_the_link_to_score_it(admin_client, researcher, dataset):
    run_form = f'href="{reverse("scoring:run_new", args=[dataset.name])}"'
    assert run_form in unscored_note(admin_client, dataset)
    note = unscored_note(researcher, dataset)
    assert "delta" in note and run_form not in note
