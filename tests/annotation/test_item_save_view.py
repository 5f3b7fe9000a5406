"""Saving judgements from the item page: atomic, idempotent, version-checked, never silently lost."""

import time

import pytest
from django.urls import reverse

from annotation.models import Assignment, Judgement, Label
from tests.annotation.annotator_fixtures import FIRST_FOUR_LEFT, make_annotation_setup

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture
def assignment(annotator):
    return make_annotation_setup([annotator]).assignments(annotator)[0]


def item_url(assignment):
    return reverse("annotation:annotate_item", args=[assignment.public_id])


def post(client, assignment, labels, version=0, json=True, **extra):
    data = {"version": version, "seconds": "4.5", **labels, **extra}
    return client.post(item_url(assignment), data, **(JSON if json else {}))


def stored_labels(assignment):
    return dict(Judgement.objects.filter(assignment=assignment).values_list("aspect", "label"))


def left_label(assignment):
    return Label.A if assignment.a_on_left else Label.B


def test_plain_form_saves_the_first_four_in_canonical_order_and_reveals_completeness(signed_in, assignment):
    response = post(signed_in, assignment, {**FIRST_FOUR_LEFT, "fs": "tie"}, json=False)
    assert response.status_code == 302 and response.url == item_url(assignment)
    left = left_label(assignment)
    assert stored_labels(assignment) == {"ts": left, "us": left, "fs": Label.TIE, "gs": left}
    page = signed_in.get(item_url(assignment)).content.decode()
    assert 'name="cs"' in page and "Reference triples" in page


def test_json_save_reports_version_and_stage(signed_in, assignment):
    response = post(signed_in, assignment, {"ts": "right"})
    body = response.json()
    assert response.status_code == 200
    assert body["saved"] is True and body["version"] == 1
    assert body["first_aspects_done"] is False and body["is_done"] is False
    assert body["item_url"] == item_url(assignment)


def test_resent_form_keeps_one_judgement_per_aspect(signed_in, assignment):
    first = post(signed_in, assignment, FIRST_FOUR_LEFT)
    again = post(signed_in, assignment, FIRST_FOUR_LEFT)
    assert first.status_code == again.status_code == 200
    assert again.json()["version"] == 1
    assert Judgement.objects.filter(assignment=assignment).count() == 4


def test_stale_version_from_another_tab_is_refused_with_the_current_version(signed_in, assignment):
    post(signed_in, assignment, {"ts": "left"})
    response = post(signed_in, assignment, {"ts": "right"}, version=0)
    assert response.status_code == 409
    body = response.json()
    assert body["saved"] is False and body["version"] == 1
    assert "another window" in body["message"] and "save again" in body["message"]
    assert stored_labels(assignment) == {"ts": left_label(assignment)}
    overwrite = post(signed_in, assignment, {"ts": "right"}, version=body["version"])
    assert overwrite.status_code == 200
    assert stored_labels(assignment)["ts"] != left_label(assignment)


def test_plain_form_conflict_keeps_the_posted_choices_on_the_page(signed_in, assignment):
    post(signed_in, assignment, {"ts": "left"})
    response = post(signed_in, assignment, {"ts": "right", "us": "tie"}, version=0, json=False)
    page = response.content.decode()
    assert response.status_code == 409
    assert "another window" in page
    assert 'name="ts" value="right" checked' in page and 'name="us" value="tie" checked' in page
    assert 'name="version" value="1"' in page


def test_completeness_before_the_first_four_changes_nothing(signed_in, assignment):
    response = post(signed_in, assignment, {"ts": "left", "cs": "left"})
    assert response.status_code == 400
    assert "Completeness is judged last" in response.json()["message"]
    assert stored_labels(assignment) == {}
    assert Assignment.objects.get(pk=assignment.pk).version == 0


def test_unknown_choice_names_the_aspect_and_changes_nothing(signed_in, assignment):
    response = post(signed_in, assignment, {"ts": "left", "us": "sideways"})
    assert response.status_code == 400
    assert response.json()["message"].startswith("Uniqueness:")
    assert stored_labels(assignment) == {}


def test_saving_nothing_is_refused(signed_in, assignment):
    response = post(signed_in, assignment, {})
    assert response.status_code == 400
    assert "before saving" in response.json()["message"]


def test_seconds_spent_add_up_over_saves(signed_in, assignment):
    post(signed_in, assignment, {"ts": "left"}, seconds="7.5")
    post(signed_in, assignment, {"us": "left"}, version=1, seconds="2.5")
    assert Assignment.objects.get(pk=assignment.pk).seconds_spent == 10.0


def test_without_script_time_is_measured_from_when_the_page_was_rendered(signed_in, assignment):
    post(signed_in, assignment, {"ts": "left"}, json=False, seconds="", opened_at=f"{time.time() - 30:.3f}")
    assert 29 <= Assignment.objects.get(pk=assignment.pk).seconds_spent <= 60


def next_item_url(annotator):
    following = Assignment.objects.filter(annotator=annotator, status=Assignment.Status.PENDING).order_by(
        "queue_position"
    )[0]
    return item_url(following)


def test_completing_the_item_finishes_it_and_points_straight_to_the_next(signed_in, assignment, annotator):
    post(signed_in, assignment, FIRST_FOUR_LEFT)
    response = post(signed_in, assignment, {"cs": "tie"}, version=1)
    body = response.json()
    assert body["is_done"] is True
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.DONE
    assert body["next_url"] == next_item_url(annotator) != item_url(assignment)
    assert signed_in.get(body["next_url"]).status_code == 200


def test_plain_form_goes_to_the_next_item_once_done(signed_in, assignment, annotator):
    post(signed_in, assignment, FIRST_FOUR_LEFT)
    response = post(signed_in, assignment, {"cs": "left"}, version=1, json=False)
    assert response.status_code == 302
    assert response.url == next_item_url(annotator)


def test_the_last_item_points_to_the_queue_that_says_all_is_done(signed_in, assignment, annotator):
    for pending in Assignment.objects.filter(annotator=annotator).order_by("queue_position"):
        post(signed_in, pending, FIRST_FOUR_LEFT)
        body = post(signed_in, pending, {"cs": "left"}, version=1).json()
    assert body["next_url"] == reverse("annotation:annotate_continue", args=[pending.item.campaign_id])
    follow = signed_in.get(body["next_url"], follow=True)
    assert "Every item of Pilot study is judged" in follow.content.decode()


def test_a_finished_item_can_be_changed_later(signed_in, assignment):
    post(signed_in, assignment, FIRST_FOUR_LEFT)
    post(signed_in, assignment, {"cs": "left"}, version=1)
    response = post(signed_in, assignment, {"ts": "tie"}, version=2)
    assert response.status_code == 200
    refreshed = Assignment.objects.get(pk=assignment.pk)
    assert stored_labels(assignment)["ts"] == Label.TIE
    assert refreshed.status == Assignment.Status.DONE and refreshed.version == 3
