"""The one builder of test datasets: a dataset, its texts, its systems and their outputs."""

from collections.abc import Callable, Sequence

from scoring.models import Dataset, Output, System, Text

ADA = ["Ada Lovelace", "worked with", "Charles Babbage"]


def numbered_texts(name: str, count: int, gold: bool = True) -> list[dict]:
    """``count`` short texts, each with an external id and (unless ``gold`` is false) one gold triple."""
    return [
        {
            "external_id": f"{name}-{position + 1}",
            "content": f"Text {position + 1} of {name}: Ada Lovelace worked with Charles Babbage.",
            "gold": [ADA] if gold else [],
        }
        for position in range(count)
    ]


def one_triple(position: int, system: System) -> list:
    """An output of one triple, different for every system and text."""
    return [[f"s{position}", system.name, "o"]]


def make_dataset(
    name: str = "toy",
    texts: int | Sequence[dict] = 6,
    systems: Sequence[str | System] = ("alpha", "beta", "gamma"),
    *,
    gold: bool = True,
    outputs: Callable[[int, System], list | None] = one_triple,
    **fields,
) -> tuple[Dataset, list[System]]:
    """A dataset whose every text has an output from every system; returns it and the systems.

    ``texts``: how many numbered texts (``numbered_texts``, ``gold`` saying whether they have a
    gold triple), or each text's fields. ``systems``: names (made when missing) or systems.
    ``outputs(position, system)``: the triples of a system's output on the text at ``position``;
    None leaves the text without one. ``fields``: more fields of the dataset.
    """
    dataset = Dataset.objects.create(name=name, **fields)
    made = [System.objects.get_or_create(name=system)[0] if isinstance(system, str) else system for system in systems]
    for position, text_fields in enumerate(numbered_texts(name, texts, gold) if isinstance(texts, int) else texts):
        text = Text.objects.create(dataset=dataset, position=position, **text_fields)
        for system in made:
            triples = outputs(position, system)
            if triples is not None:
                Output.objects.create(system=system, text=text, triples=triples)
    return dataset, made
