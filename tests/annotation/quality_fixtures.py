"""Practice items and judging helpers shared by the quality-control tests (model, view, browser)."""

import json

from annotation.models import FIRST_ASPECTS
from annotation.practice import PracticeRecord
from annotation.services.quality_control import replace_practice_items
from annotation.services.queues import next_assignment
from tests.annotation.annotator_fixtures import make_annotation_setup
from tests.annotation.campaign_factories import judge

PRACTICE_RECORDS = [
    PracticeRecord(
        text="Alan Turing was born in London in 1912.",
        triples_a=[["Alan Turing", "born in", "London"], ["Alan Turing", "born in", "1912"]],
        triples_b=[["Alan Turing", "born in", "Paris"]],
        reference={"fs": "a", "ts": "a"},
        reason="B says Paris, which the text does not state: A is more factual, and on topic twice.",
    ),
    PracticeRecord(
        text="Grace Hopper wrote the first compiler.",
        triples_a=[["Grace Hopper", "wrote", "first compiler"]],
        triples_b=[["Grace Hopper", "wrote", "first compiler"], ["Grace Hopper", "wrote", "first compiler"]],
        reference={"us": "a"},
        reason="B repeats its only triple: A is more unique.",
    ),
]


def make_practice_setup(annotator):
    """The pilot campaign (``make_annotation_setup``) with a practice round of two pairs (three
    reference answers) and a 60 % pass mark."""
    setup = make_annotation_setup([annotator])
    setup.campaign.practice_pass_mark = 0.6
    setup.campaign.save(update_fields=["practice_pass_mark"])
    replace_practice_items(setup.campaign, PRACTICE_RECORDS)
    return setup


def three_triples(position, system):
    """Three triples, none of whose subject or object any text mentions: an output from which
    both kinds of attention check can be made (``make_dataset``'s ``outputs``)."""
    return [[f"{system.name}-{position}-{k}", "relates to", f"thing-{system.name}-{position}-{k}"] for k in range(3)]


def practice_file(records=PRACTICE_RECORDS, jsonl=True):
    """A practice file's bytes (docs/formats.md) holding ``records``."""
    objects = [
        {"text": r.text, "a": r.triples_a, "b": r.triples_b, "reference": r.reference, "reason": r.reason}
        for r in records
    ]
    if jsonl:
        return "\n".join(json.dumps(value) for value in objects).encode()
    return json.dumps(objects).encode()


def judge_everything(person, campaign, side, seconds=20.0):
    """Judge the person's whole queue, every aspect on the same shown ``side``, ``seconds`` per save."""
    while (assignment := next_assignment(person, campaign)) is not None:
        if assignment.judgements.filter(aspect__in=FIRST_ASPECTS).count() < len(FIRST_ASPECTS):
            judge(assignment, dict.fromkeys(FIRST_ASPECTS, side), seconds=seconds)
        else:
            judge(assignment, {"cs": side}, seconds=seconds)
