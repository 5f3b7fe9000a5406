"""The item page: what it shows before and after the gold reveal, guidelines, skipping."""

import html
import re

import pytest
from django.urls import reverse

from annotation.models import Assignment
from annotation.services.campaigns import create_campaign
from annotation.services.judgements import save_judgements
from scoring.models import Output, System
from tests.annotation.annotator_fixtures import FIRST_FOUR_LEFT, SYSTEM_NAMES, UNSAFE_SUBJECT, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


def assignment_for_text(setup, annotator, position):
    return next(a for a in setup.assignments(annotator) if a.item.text.position == position)


def page(client, assignment):
    response = client.get(reverse("annotation:annotate_item", args=[assignment.public_id]))
    assert response.status_code == 200
    return response.content.decode()


def section(body, start_marker, end_marker):
    start = body.index(start_marker)
    return body[start : body.index(end_marker, start)]


@pytest.mark.parametrize("position", [0, 1])
def test_left_and_right_follow_the_stored_side(signed_in, setup, annotator, position):
    # The fixture puts system A on the left of the first item and on the right of the second.
    assignment = assignment_for_text(setup, annotator, position)
    item = assignment.item
    body = page(signed_in, assignment)
    left = section(body, 'aria-label="Extraction A"', "</section>")
    right = section(body, 'aria-label="Extraction B"', "</section>")
    a_side, b_side = (left, right) if assignment.a_on_left else (right, left)
    assert html.escape(item.text.content) in body
    for side, system in ((a_side, item.system_a), (b_side, item.system_b)):
        triples = Output.objects.get(text=item.text, system=system).triples
        assert side.count('class="triple"') == len(triples)
        assert all(html.escape(element) in side for triple in triples for element in triple)


def test_the_ground_truth_system_shows_the_gold_triples_as_its_extraction(client, setup):
    ground_truth = System.ground_truth()
    # Someone new: the setup's annotator holds the text in its campaign, and reads a text in one campaign only.
    newcomer = make_user("newcomer")
    client.force_login(newcomer)
    created = create_campaign(
        name="Against gold",
        dataset=setup.campaign.dataset,
        systems=[setup.systems[0], ground_truth],
        annotators=[newcomer],
        seed=3,
        overlap_share=0.0,
        text_references=["snippet-2"],
    )
    assignment = created.campaign.items.get().assignments.get()
    body = page(client, assignment)
    gold_on_left = (assignment.item.system_a == ground_truth) == assignment.a_on_left
    gold_side = section(body, f'aria-label="Extraction {"A" if gold_on_left else "B"}"', "</section>")
    assert "drains into" in gold_side and "Black Sea" in gold_side
    assert "Reference triples" not in body


def test_only_the_first_four_aspects_before_they_are_saved(signed_in, setup, annotator):
    assignment = assignment_for_text(setup, annotator, 1)
    body = page(signed_in, assignment)
    for code in ("ts", "us", "fs", "gs"):
        assert f'name="{code}" value="left"' in body
    assert 'name="cs"' not in body
    assert "Reference triples" not in body
    # "drains into" occurs only in the gold triples of this text, not in either extraction.
    assert "drains into" not in body
    assert 'data-stage="first"' in body


def test_gold_and_completeness_appear_once_the_four_are_saved(signed_in, setup, annotator):
    assignment = assignment_for_text(setup, annotator, 1)
    save_judgements(assignment, {**FIRST_FOUR_LEFT, "us": "tie"}, expected_version=0, seconds=3)
    body = page(signed_in, assignment)
    assert 'name="cs" value="tie"' in body
    assert "Reference triples" in body and "drains into" in body
    assert 'name="ts" value="left" checked' in body and 'name="us" value="tie" checked' in body
    assert 'data-stage="completeness"' in body


def test_the_bar_counts_pairs_and_judgements_and_the_page_runs_no_inline_script(signed_in, setup, annotator):
    first, second, _ = setup.assignments(annotator)
    assert "<strong>0</strong> of 3 pairs, <strong>0</strong> of 15 judgements" in page(signed_in, second)
    save_judgements(first, FIRST_FOUR_LEFT, expected_version=0, seconds=1)
    save_judgements(first, {"cs": "left"}, expected_version=1, seconds=1)
    body = page(signed_in, second)
    assert "<strong>1</strong> of 3 pairs, <strong>5</strong> of 15 judgements" in body
    # A Content-Security-Policy without inline script: every script is a file, no handler an attribute.
    scripts = re.findall(r"<script\b[^>]*>", body)
    assert any("annotate.js" in script for script in scripts) and all(" src=" in script for script in scripts)
    assert not re.search(r"\son[a-z]+=", body)


def test_model_output_is_escaped(signed_in, setup, annotator):
    body = page(signed_in, assignment_for_text(setup, annotator, 2))
    assert UNSAFE_SUBJECT not in body and "<b>bold</b>" not in body
    assert html.escape(UNSAFE_SUBJECT) in body
    assert "No triples: this extraction is empty." in body


def test_each_aspect_carries_its_guideline_and_the_page_its_shortcuts(signed_in, setup, annotator):
    body = page(signed_in, assignment_for_text(setup, annotator, 0))
    assert body.count('<details class="guideline">') == 4
    assert html.escape("Which extraction repeats itself less?", quote=True) in body
    assert 'id="shortcuts"' in body and "Backspace" in body
    assert reverse("annotation:annotate_guidelines") in body


def test_guidelines_page_explains_every_aspect_with_an_example(signed_in, setup):
    body = signed_in.get(reverse("annotation:annotate_guidelines")).content.decode()
    for name in ("Topical similarity", "Uniqueness", "Factualness", "Granularity", "Completeness"):
        assert f"{name}" in body
    for code in ("ts", "us", "fs", "gs", "cs"):
        assert f'id="{code}"' in body
    assert body.count('class="example-verdict"') == 5
    assert not any(name in body for name in SYSTEM_NAMES)


def test_skipping_sends_the_item_to_the_end_of_the_queue(signed_in, setup, annotator):
    first, second, third = setup.assignments(annotator)
    response = signed_in.post(reverse("annotation:annotate_skip", args=[first.public_id]))
    second_url = reverse("annotation:annotate_item", args=[second.public_id])
    assert response.status_code == 302 and response.url == second_url
    assert signed_in.get(reverse("annotation:annotate_continue", args=[setup.campaign.pk])).url == second_url
    positions = dict(Assignment.objects.filter(annotator=annotator).values_list("pk", "queue_position"))
    assert positions[first.pk] > max(positions[second.pk], positions[third.pk])


def test_a_finished_item_cannot_be_skipped(signed_in, setup, annotator):
    assignment = setup.assignments(annotator)[0]
    save_judgements(assignment, FIRST_FOUR_LEFT, expected_version=0, seconds=1)
    save_judgements(assignment, {"cs": "left"}, expected_version=1, seconds=1)
    response = signed_in.post(reverse("annotation:annotate_skip", args=[assignment.public_id]), follow=True)
    assert "already finished" in response.content.decode()
    assert (
        'action="' + reverse("annotation:annotate_skip", args=[assignment.public_id]) not in response.content.decode()
    )
