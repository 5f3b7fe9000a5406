"""Small builders for the campaign tests: annotators, a campaign, judging in queue order."""

import io
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.models import Assignment
from annotation.services.campaigns import create_campaign
from annotation.services.judgements import save_judgements
from annotation.services.queues import next_assignment
from tests.factories import make_dataset

JUDGEMENTS_HEADER = "text,system_a,system_b,aspect,annotator,winner\n"


def import_judgement_rows(directory: Path, rows: str, name: str = "study", dataset: str = "toy") -> str:
    """Import ``rows`` (CSV lines under the import_judgements header) as campaign ``name``; the command's report."""
    path = directory / f"{name}.csv"
    path.write_text(JUDGEMENTS_HEADER + rows, encoding="utf-8")
    out = io.StringIO()
    call_command("import_judgements", str(path), "--dataset", dataset, stdout=out)
    return out.getvalue()


def make_annotators(count, prefix="annotator"):
    user_model = get_user_model()
    # No password: hashing one is slow, and the tests sign people in with force_login.
    return [user_model.objects.create_user(f"{prefix}{index}") for index in range(count)]


def make_campaign(name="study", texts=6, annotators=2, overlap_share=0.5, seed=7, systems=("alpha", "beta", "gamma")):
    dataset, made_systems = make_dataset(texts=texts, systems=systems)
    people = make_annotators(annotators)
    created = create_campaign(
        name=name,
        dataset=dataset,
        systems=made_systems,
        annotators=people,
        seed=seed,
        overlap_share=overlap_share,
        sample_size=texts,
    )
    return created.campaign, people


FIRST_FOUR = {"ts": "left", "us": "right", "fs": "tie", "gs": "left"}


def judge(assignment, labels, seconds=1.0):
    """Save as the item page does: on the assignment as it stands, with its current version."""
    current = Assignment.objects.select_related("item__campaign").get(pk=assignment.pk)
    return save_judgements(current, labels, expected_version=current.version, seconds=seconds)


def finish_next(person, campaign, *, first=FIRST_FOUR, completeness="left", seconds=(1.0, 1.0)):
    """Judge in queue order until one more assignment is done; return it.

    The queue gives the first four aspects of every pair of a text before any completeness,
    so finishing the first pair of a text also gives the others their first four.
    """
    while (assignment := next_assignment(person, campaign)) is not None:
        if assignment.judgements.filter(aspect__in=first).count() < len(first):
            judge(assignment, first, seconds=seconds[0])
        else:
            return judge(assignment, {"cs": completeness}, seconds=seconds[1]).assignment
    raise AssertionError(f"{person} has nothing left to finish in {campaign}.")
