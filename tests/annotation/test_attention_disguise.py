"""Attention checks look like real pairs: what an annotator can see of a check — the triple
count of each side, where it sits in the queue, its number among its text's pairs and their
total, the page's structure, size and work (its database queries) — is what a real pair of the
same text shows. On the demo campaign and on a campaign of 40-triple outputs."""

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, Campaign
from annotation.services.campaigns import create_campaign
from tests.annotation.campaign_factories import make_annotators
from tests.factories import make_dataset

pytestmark = pytest.mark.django_db

SIDE_COUNT = re.compile(r"Extraction ([AB]) <span class=\"count\">(\d+) triples?</span>")
TAG = re.compile(r"<([a-z][a-z0-9]*)\b([^>]*)>")
ATTRIBUTE = re.compile(r'([a-z-]+)(?:="([^"]*)")?')
PAIR_NUMBER = re.compile(r"pair (\d+) of (\d+) of this text")


def forty_triples(position, system):
    return [[f"{system.name} subject {position}.{k}", "relates to", f"object {k}"] for k in range(40)]


def structure(body):
    """The page without its words and values: each tag with its attribute names and classes."""
    return [
        (tag, tuple((name, value if name == "class" else "") for name, value in ATTRIBUTE.findall(attributes)))
        for tag, attributes in TAG.findall(body)
    ]


def seen(client, assignment):
    """What the annotator sees of an assignment's item page, opened before anything is judged."""
    with CaptureQueriesContext(connection) as queries:
        body = client.get(reverse("annotation:annotate_item", args=[assignment.public_id])).content.decode()
    numbering = PAIR_NUMBER.search(body)
    return {
        "counts": tuple(int(count) for _, count in SIDE_COUNT.findall(body)),
        "structure": structure(body),
        "size": len(body.encode()),
        "numbering": (int(numbering[1]), int(numbering[2])) if numbering else (1, 1),
        "queries": len(queries),
    }


def assert_checks_look_like_real_pairs(campaign):
    """Every check of ``campaign``, in every queue, against the real pairs of its text in that queue."""
    campaign.memberships.update(practice_passed_at=timezone.now())  # the practice round is another page
    checks = 0
    check_places = []
    for membership in campaign.memberships.select_related("annotator"):
        client = Client()
        client.force_login(membership.annotator)
        queue = list(
            Assignment.objects.filter(annotator=membership.annotator, item__campaign=campaign)
            .select_related("item")
            .order_by("queue_position")
        )
        pages = {assignment.pk: seen(client, assignment) for assignment in queue}
        real_pages = [pages[assignment.pk] for assignment in queue if not assignment.item.is_attention_check]
        sizes = [page["size"] for page in real_pages]
        texts = {assignment.item.text_id: [] for assignment in queue}
        for assignment in queue:
            texts[assignment.item.text_id].append(assignment)
        # Every text numbers its pairs 1 to its total, a check among them; a text with a check
        # counts as many pairs as one without (a check takes a real pair's place).
        totals = {len(pairs) for pairs in texts.values()}
        assert len(totals) == 1, f"texts of {membership.annotator} count {totals} pairs"
        for pairs in texts.values():
            assert [pages[assignment.pk]["numbering"] for assignment in pairs] == [
                (number, len(pairs)) for number in range(1, len(pairs) + 1)
            ]
        for index, check in enumerate(queue):
            if not check.item.is_attention_check:
                continue
            checks += 1
            text = texts[check.item.text_id]
            # Where it sits: among the pairs of its text, which follow one another in the queue.
            positions = [queue.index(assignment) for assignment in text]
            assert positions == list(range(positions[0], positions[0] + len(text))) and index in positions
            shown = pages[check.pk]
            real = [pages[assignment.pk] for assignment in text if not assignment.item.is_attention_check]
            # A real pair of the same text shows the same two triple counts and the very same page
            # structure (tags, attributes, classes, number of triple rows) ...
            twins = [page for page in real if sorted(page["counts"]) == sorted(shown["counts"])]
            assert twins, f"no real pair of its text shows {shown['counts']} triples"
            assert any(page["structure"] == shown["structure"] for page in twins)
            # ... its page weighs what real pages of the queue weigh, and costs the server the same
            # work (queries), so its timing does not stand out either.
            assert min(sizes) * 0.9 <= shown["size"] <= max(sizes) * 1.1
            assert shown["queries"] in {page["queries"] for page in real_pages}
            check_places.append((shown["numbering"][0], len(text)))
    assert checks, "the campaign has no attention check to compare"
    return check_places


def test_on_the_demo_campaign(unscored_demo):
    places = assert_checks_look_like_real_pairs(Campaign.objects.get(name="demo-sentences trial"))
    # A check's place among its text's pairs is drawn, not always the first or the last.
    assert len(places) >= 3 and len({number for number, _ in places}) > 1


def test_on_a_campaign_of_forty_triple_outputs():
    dataset, systems = make_dataset(texts=5, systems=("alpha", "beta", "gamma", "delta"), outputs=forty_triples)
    created = create_campaign(
        name="long outputs",
        dataset=dataset,
        systems=systems,
        annotators=make_annotators(2, prefix="long-reader"),
        seed=5,
        overlap_share=0.4,
        sample_size=5,
        attention_share=0.2,
    )
    assert_checks_look_like_real_pairs(created.campaign)


def test_when_every_check_falls_on_the_one_text_with_twins():
    """Several checks on one text, whose two twin pairs ((1, 1) and (4, 4)) each have no other:
    a later check never shows counts whose twin an earlier one took the place of."""
    counts = {"alpha": 1, "beta": 4, "gamma": 4, "delta": 1}

    def outputs(position, system):
        count = counts[system.name] if position == 0 else 1 + list(counts).index(system.name) * 2
        return [[f"{system.name} subject {k}", "relates to", f"object {k}"] for k in range(count)]

    dataset, systems = make_dataset(texts=3, systems=tuple(counts), outputs=outputs)
    for seed in range(6):
        created = create_campaign(
            name=f"twins {seed}",
            dataset=dataset,
            systems=systems,
            annotators=make_annotators(2, prefix=f"twin-reader{seed}-"),  # a text is read in one campaign
            seed=seed,
            overlap_share=1.0,
            sample_size=3,
            attention_share=0.2,
        )
        assert_checks_look_like_real_pairs(created.campaign)
