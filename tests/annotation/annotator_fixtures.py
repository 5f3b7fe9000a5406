"""A small campaign for the annotator-page tests, with systems whose names are easy to spot.

The system names and ids must never reach an annotator; the outputs hold their own markers
(HTML that must stay escaped) but never a system name, so any leak found in a page is real.
"""

from dataclasses import dataclass

from django.contrib.auth import get_user_model

from annotation.models import Assignment
from annotation.services.campaigns import create_campaign
from scoring.models import System
from tests.factories import make_dataset

SYSTEM_NAMES = ("Zanzibar-Secret-LLM", "Quetzal-Hidden-GPT")
UNSAFE_SUBJECT = "<script>window.leaked=1</script>"

TEXTS = (
    (
        "Marie Curie was born in Warsaw and later moved to Paris, where she studied physics.",
        [["Marie Curie", "born in", "Warsaw"], ["Marie Curie", "moved to", "Paris"]],
        [
            [["Marie Curie", "born in", "Warsaw"], ["Marie Curie", "moved to", "Paris"]],
            [["Curie", "studied", "physics"]],
        ],
    ),
    (
        "The Danube flows through Vienna and Budapest before reaching the Black Sea.",
        [["Danube", "flows through", "Vienna"], ["Danube", "drains into", "Black Sea"]],
        [
            [["Danube", "flows through", "Vienna"]],
            [["Danube", "flows through", "Budapest"], ["Danube", "ends in", "Black Sea"]],
        ],
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


def make_annotation_setup(
    annotators,
    *,
    name="Pilot study",
    overlap_share=0.0,
    seed=11,
    with_ground_truth=False,
    texts=TEXTS,
    dataset_name="Science snippets",
):
    """Three texts (or ``texts``: content, gold, the two outputs), two systems, one item per text,
    every item queued for the given annotators.

    ``with_ground_truth`` adds the Ground-truth system: three pairs per text, one of them
    always the two named systems.
    """
    dataset, systems = make_dataset(
        dataset_name,
        [
            {"external_id": f"snippet-{position + 1}", "content": content, "gold": gold}
            for position, (content, gold, _outputs) in enumerate(texts)
        ],
        SYSTEM_NAMES,
        outputs=lambda position, system: texts[position][2][SYSTEM_NAMES.index(system.name)],
    )
    compared = [*systems, System.ground_truth()] if with_ground_truth else systems
    created = create_campaign(
        name=name,
        dataset=dataset,
        systems=compared,
        annotators=annotators,
        seed=seed,
        overlap_share=overlap_share,
        sample_size=len(texts),
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


LONG_TEXT = (
    "The Apollo 11 mission was launched by NASA from Kennedy Space Center on 16 July 1969, carried by a "
    "Saturn V rocket built by Boeing, North American Aviation and Douglas Aircraft. Its commander, Neil "
    "Armstrong, was born in Wapakoneta, Ohio, and had flown Gemini 8 before. Buzz Aldrin, the lunar module "
    "pilot, studied at the Massachusetts Institute of Technology, where he wrote a doctoral thesis on "
    "orbital rendezvous. Michael Collins, the command module pilot, stayed in lunar orbit aboard Columbia "
    "while the lunar module Eagle landed in the Sea of Tranquility on 20 July 1969. Armstrong stepped onto "
    "the Moon first, followed by Aldrin; together they spent about two and a quarter hours outside, "
    "collected 21.5 kilograms of lunar samples and deployed the Early Apollo Scientific Experiments Package, "
    "which included a passive seismometer and a laser ranging retroreflector. The mission control team in "
    "Houston, led by flight director Gene Kranz, guided the descent. Columbia splashed down in the Pacific "
    "Ocean on 24 July 1969 and the crew was recovered by the aircraft carrier USS Hornet, then spent three "
    "weeks in quarantine at the Lunar Receiving Laboratory. President Richard Nixon spoke to the astronauts "
    "by telephone from the White House while they stood on the Moon."
)
LONG_GOLD = [
    ["Apollo 11", "launched by", "NASA"],
    ["Apollo 11", "launched from", "Kennedy Space Center"],
    ["Apollo 11", "launch date", "16 July 1969"],
    ["Apollo 11", "carried by", "Saturn V rocket"],
    ["Saturn V rocket", "built by", "Boeing"],
    ["Saturn V rocket", "built by", "North American Aviation"],
    ["Saturn V rocket", "built by", "Douglas Aircraft"],
    ["Neil Armstrong", "commander of", "Apollo 11"],
    ["Neil Armstrong", "born in", "Wapakoneta, Ohio"],
    ["Neil Armstrong", "flew", "Gemini 8"],
    ["Buzz Aldrin", "lunar module pilot of", "Apollo 11"],
    ["Buzz Aldrin", "studied at", "Massachusetts Institute of Technology"],
    ["Buzz Aldrin", "doctoral thesis on", "orbital rendezvous"],
    ["Michael Collins", "command module pilot of", "Apollo 11"],
    ["Michael Collins", "stayed aboard", "Columbia"],
    ["Eagle", "landed in", "Sea of Tranquility"],
    ["Eagle", "landing date", "20 July 1969"],
    ["Neil Armstrong", "first to step onto", "the Moon"],
    ["Apollo 11 crew", "collected", "21.5 kilograms of lunar samples"],
    ["Early Apollo Scientific Experiments Package", "included", "passive seismometer"],
    ["Early Apollo Scientific Experiments Package", "included", "laser ranging retroreflector"],
    ["Gene Kranz", "flight director in", "Houston mission control"],
    ["Columbia", "splashed down in", "Pacific Ocean"],
    ["USS Hornet", "recovered", "Apollo 11 crew"],
    ["Richard Nixon", "spoke by telephone to", "the astronauts"],
]
# Extraction 1 rephrases most gold triples (near matches) and misses some; extraction 2 is
# coarser and repeats itself, so both sides have 25 triples that differ in kind.
LONG_FIRST = [
    [subject, relation, obj] if position % 4 else [subject, f"was {relation}", obj]
    for position, (subject, relation, obj) in enumerate(LONG_GOLD[:22])
] + [
    ["Apollo 11 astronauts", "spent three weeks in", "quarantine at the Lunar Receiving Laboratory"],
    ["Armstrong and Aldrin", "spent outside", "about two and a quarter hours"],
    ["Lunar Receiving Laboratory", "hosted", "the Apollo 11 crew"],
]
LONG_SECOND = [
    ["NASA", "launched", "Apollo 11 mission from Kennedy Space Center on 16 July 1969"],
    ["Saturn V", "manufacturer", "Boeing, North American Aviation and Douglas Aircraft"],
    ["Neil Armstrong", "commander of", "Apollo 11"],
    ["Neil Armstrong", "birthplace", "Wapakoneta"],
    ["Buzz Aldrin", "studied at", "Massachusetts Institute of Technology"],
    ["Buzz Aldrin", "wrote", "a doctoral thesis on orbital rendezvous"],
    ["Michael Collins", "command module pilot of", "Apollo 11"],
    ["Michael Collins", "stayed in", "lunar orbit"],
    ["lunar module Eagle", "landed in", "Sea of Tranquility"],
    ["Armstrong", "stepped onto", "Moon"],
    ["Aldrin", "followed", "Armstrong"],
    ["astronauts", "collected", "lunar samples"],
    ["astronauts", "collected", "lunar samples"],
    ["astronauts", "deployed", "Early Apollo Scientific Experiments Package"],
    ["experiments package", "included", "passive seismometer"],
    ["mission control team", "located in", "Houston"],
    ["Gene Kranz", "led", "mission control team"],
    ["Gene Kranz", "role", "flight director"],
    ["Columbia", "splashed down in", "Pacific Ocean"],
    ["Columbia", "splashdown date", "24 July 1969"],
    ["USS Hornet", "is a", "aircraft carrier"],
    ["USS Hornet", "recovered", "crew"],
    ["crew", "spent", "three weeks in quarantine"],
    ["Richard Nixon", "spoke from", "White House"],
    ["Richard Nixon", "was", "President"],
]


def make_long_item_setup(annotators):
    """Two systems, two texts, the first long with 25 triples on each side and 25 gold triples
    near both (the item page's layout at full length), first in every queue; the second short."""
    long_text = (LONG_TEXT, LONG_GOLD, (LONG_FIRST, LONG_SECOND))
    setup = make_annotation_setup(
        annotators, name="Apollo long items", seed=5, texts=(long_text, TEXTS[0]), dataset_name="Apollo reports"
    )
    for assignment in Assignment.objects.filter(item__campaign=setup.campaign).select_related("item__text"):
        assignment.queue_position = assignment.item.text.position
        assignment.save(update_fields=["queue_position"])
    return setup
