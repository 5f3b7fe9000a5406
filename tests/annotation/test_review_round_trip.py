"""An item reopened from the review list returns there after the save, to the same page and row;
the list tells the pairs of one text apart by queue number, pair and the choices as shown."""

import re

import pytest
from django.urls import reverse

from annotation.services.judgements import save_judgements
from tests.annotation.annotator_fixtures import FIRST_FOUR_LEFT, make_annotation_setup

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture
def setup(annotator):
    return make_annotation_setup([annotator], with_ground_truth=True)


def item_url(assignment):
    return reverse("annotation:annotate_item", args=[assignment.public_id])


def test_the_reopened_page_carries_the_way_back(signed_in, setup, annotator):
    first = setup.assignments(annotator)[0]
    body = signed_in.get(item_url(first) + "?from=review&page=2").content.decode()
    assert '<input type="hidden" name="return_to" value="review">' in body
    assert '<input type="hidden" name="review_page" value="2">' in body
    assert f'href="{reverse("annotation:annotate_review")}?page=2"' in body
    assert 'name="return_to"' not in signed_in.get(item_url(first)).content.decode()
    # A page that is not a number is dropped, not sent back to fail the save.
    body = signed_in.get(item_url(first) + "?from=review&page=x%22%3E").content.decode()
    assert 'name="return_to"' in body and 'name="review_page"' not in body


@pytest.mark.parametrize("json", [True, False])
def test_a_save_from_the_review_returns_to_its_row(signed_in, setup, annotator, json):
    first = setup.assignments(annotator)[0]
    data = {"version": 0, **FIRST_FOUR_LEFT, "return_to": "review", "review_page": 3}
    response = signed_in.post(item_url(first), data, **(JSON if json else {}))
    back = f"{reverse('annotation:annotate_review')}?page=3#item-{first.public_id}"
    assert (response.json()["next_url"] if json else response.url) == back


def test_an_unknown_way_back_is_refused(signed_in, setup, annotator):
    first = setup.assignments(annotator)[0]
    response = signed_in.post(
        item_url(first), {"version": 0, "ts": "left", "return_to": "https://elsewhere.example"}, **JSON
    )
    assert response.status_code == 400 and not response.json()["saved"]


def test_rows_name_queue_number_pair_and_the_choices_as_shown(signed_in, setup, annotator):
    _first, second, _third = setup.assignments(annotator)[:3]  # the three pairs of the first text
    save_judgements(second, {"ts": "left", "us": "tie"}, expected_version=0, seconds=2)
    body = signed_in.get(reverse("annotation:annotate_review")).content.decode()
    row = re.search(rf'<tr id="item-{second.public_id}">(.*?)</tr>', body, re.S).group(1)
    assert re.search(r"<strong>2</strong><span class=\"muted\"> of 9</span>", row)
    assert "pair 2 of 3" in row and "2 of 5" in row
    values = re.findall(r'<span class="given-value">([^<]*)</span>', row)
    assert values == ["A", "tie", "—", "—", "—"]
    assert "just now" in row
    assert f'{item_url(second)}?from=review"' in row
