"""The "previous item" link and key: back through what the annotator saved, latest first."""

import pytest
from django.urls import reverse

from annotation.services.judgements import save_judgements
from tests.annotation.annotator_fixtures import FIRST_FOUR_LEFT, make_user

pytestmark = pytest.mark.django_db


def previous(client, assignment):
    return client.get(reverse("annotation:annotate_previous", args=[assignment.public_id]))


def item_url(assignment):
    return reverse("annotation:annotate_item", args=[assignment.public_id])


def test_previous_walks_back_through_saves_whatever_the_queue_order(signed_in, setup, annotator):
    first, second, third = setup.assignments(annotator)
    save_judgements(third, FIRST_FOUR_LEFT, expected_version=0, seconds=2)
    save_judgements(first, FIRST_FOUR_LEFT, expected_version=0, seconds=2)
    # From an item not saved yet: the latest save. From there, the one saved before it.
    assert previous(signed_in, second).url == item_url(first)
    assert previous(signed_in, first).url == item_url(third)
    response = previous(signed_in, third)
    assert response.url == item_url(third)
    assert "Nothing saved before this item" in signed_in.get(response.url).content.decode()


def test_previous_of_someone_elses_item_is_not_found(client, setup, annotator):
    client.force_login(make_user("stranger"))
    assert previous(client, setup.assignments(annotator)[0]).status_code == 404
