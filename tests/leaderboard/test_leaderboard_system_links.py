"""The leaderboard's rows link to the system pages for those who may read them (staff, researchers),
on the page and in the sections the live refresh fetches; for anyone else (a signed-in reader
without the "view output" permission, a visitor of a public leaderboard) the names stay plain text."""

import pytest
from django.urls import reverse

from tests.leaderboard.leaderboard_fixtures import build_all, get_built, scored_dataset

pytestmark = pytest.mark.django_db


@pytest.fixture
def dataset():
    dataset, _systems = scored_dataset()
    build_all()
    return dataset


def scores_section(client, dataset):
    page = get_built(client, reverse("leaderboard:dataset", args=[dataset.name])).content.decode()
    sections = get_built(client, reverse("leaderboard:sections", args=[dataset.name]), {"change": "scores"}).json()
    return page[page.index('id="scores-table"') :].split("</table>")[0], sections["sections"]["scores"]


def test_staff_follow_each_row_to_its_system_page(admin_client, dataset):
    page, section = scores_section(admin_client, dataset)
    for name in ("alpha", "beta", "gamma"):
        link = f'<a href="{reverse("scoring:system", args=[dataset.name, name])}">{name}</a>'
        assert link in page and link in section
    assert admin_client.get(reverse("scoring:system", args=[dataset.name, "alpha"])).status_code == 200


def test_readers_without_the_permission_and_public_visitors_get_plain_names(
    client, admin_user, dataset, settings, django_user_model
):
    client.force_login(admin_user)
    scores_section(client, dataset)  # staff's rendering, with links, is cached apart from theirs
    client.force_login(django_user_model.objects.create_user("reader"))
    page, section = scores_section(client, dataset)
    assert 'data-sort="alpha">alpha' in page and "/systems/" not in page + section
    client.logout()
    settings.GENRES_PUBLIC_LEADERBOARD = True
    page, section = scores_section(client, dataset)
    assert 'data-sort="alpha">alpha' in page and "/systems/" not in page + section
