"""A small campaign for the annotator-page tests, with systems whose names are easy to spot.

The system names and ids must never reach an annotator; the outputs hold their own markers
(HTML that must stay escaped) but never a system name, so any leak found in a page is real.
"""

from dataclasses import dataclass

from django.contrib.auth import get_user_model

from annotation.models import Assignment
from annotation.services import create_campaign
from scoring.models import Dataset, Output, System, Text

SYSTEM_NAMES = ("Zanzibar-Secret-LLM", "Quetzal-Hidden-GPT")
UNSAFE_SUBJECT = "<script>window.leaked=1</script>"

TEXTS = (
    (
        "Marie Curie was born in Warsaw and later moved to Paris, where she studied physics.",
        [["Marie Curie", "born in", "Warsaw"], ["Marie Curie", "moved to", "Paris"]],
        [[["Marie Curie", "born in", "Warsaw"], ["Marie Curie", "moved to", "Paris"]], [["Curie", "studied", "physics"]]],
    ),
    (
        "The Danube flows through Vienna and Budapest before reaching the Black Sea.",
        [["Danube", "flows through", "Vienna"], ["Danube", "flows into", "Black Sea"]],
        [[["Danube", "flows through", "Vienna"]], [["Danube", "flows through", "Budapest"], ["Danube", "ends in", "Black Sea"]]],
    ),
    (
        # Scraped text can carry markup too: the page must show it as text, never run it.
        f"Insulin, discovered in Toronto, regulates blood sugar. The scraped page also read {UNSAFE_SUBJECT} "
        "and <b>bold</b>.",
        [["Insulin", "regulates", "blood sugar"], ["Insulin", "discovered in", "Toronto"]],
        [[[UNSAFE_SUBJECT, "mentions", "<b>bold</b>"]], []],
    ),
)
FIRST_FOUR_LEFT = {"ts": "left", "us": "left", "fs": "left", "gs": "left"}


@dataclass
class AnnotationSetup:
    campaign: object
    systems: list
    annotators: list

    def assignments(self, annotator):
        return list(
            Assignment.objects.filter(annotator=annotator, item__campaign=self.campaign).order_by("queue_position")
        )


def make_annotation_setup(annotators, *, name="Pilot study", overlap_share=0.0, seed=11, with_ground_truth=False):
    """Three texts, two systems, one item per text, every item queued for the given annotators.

    ``with_ground_truth`` adds the Ground-truth system: three pairs per text, one of them
    always the two named systems.
    """
    dataset = Dataset.objects.create(name="Science snippets")
    systems = [System.objects.create(name=system_name) for system_name in SYSTEM_NAMES]
    compared = [*systems, System.ground_truth()] if with_ground_truth else systems
    for position, (content, gold, outputs) in enumerate(TEXTS):
        text = Text.objects.create(
            dataset=dataset, position=position, external_id=f"snippet-{position + 1}", content=content, gold=gold
        )
        for system, triples in zip(systems, outputs):
            Output.objects.create(system=system, text=text, triples=triples)
    created = create_campaign(
        name=name,
        dataset=dataset,
        systems=compared,
        annotators=annotators,
        seed=seed,
        overlap_share=overlap_share,
        sample_size=len(TEXTS),
    )
    # Sides are drawn from the seed and database ids; fix them so every test sees both orientations.
    for annotator in annotators:
        for position, assignment in enumerate(
            Assignment.objects.filter(annotator=annotator, item__campaign=created.campaign).order_by("queue_position")
        ):
            assignment.a_on_left = position % 2 == 0
            assignment.save(update_fields=["a_on_left"])
    return AnnotationSetup(campaign=created.campaign, systems=systems, annotators=list(annotators))


def make_user(username, **extra):
    return get_user_model().objects.create_user(username, password=f"{username}-pass-123", **extra)
