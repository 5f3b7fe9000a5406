"""Small builders for the campaign tests: a dataset with outputs, annotators, a campaign, judging in queue order."""

from django.contrib.auth import get_user_model

from annotation.models import Assignment
from annotation.services import create_campaign, next_assignment, save_judgements
from scoring.models import Dataset, Output, System, Text


def make_dataset(name="toy", texts=6, systems=("alpha", "beta", "gamma"), gold=True):
    """A dataset whose every text has an output from every named system (one triple each)."""
    dataset = Dataset.objects.create(name=name)
    made_systems = [System.objects.get_or_create(name=system_name)[0] for system_name in systems]
    for position in range(texts):
        text = Text.objects.create(
            dataset=dataset,
            position=position,
            external_id=f"{name}-{position + 1}",
            content=f"Text {position + 1} of {name}: Ada Lovelace worked with Charles Babbage.",
            gold=[["Ada Lovelace", "worked with", "Charles Babbage"]] if gold else [],
        )
        for system in made_systems:
            Output.objects.create(system=system, text=text, triples=[[f"s{position}", system.name, "o"]])
    return dataset, made_systems


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
