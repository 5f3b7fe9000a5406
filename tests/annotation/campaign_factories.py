"""Small builders for the campaign tests: a dataset with outputs, annotators, a campaign."""

from django.contrib.auth import get_user_model

from annotation.services import create_campaign
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
