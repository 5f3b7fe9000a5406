"""Shared by the import tests: files in memory, and a snapshot of everything an import may change."""

import json

from django.core.files.base import ContentFile

from scoring.imports import import_dataset
from scoring.models import Dataset, Output, System, Text, Upload

# A dataset with ids, so outputs can name texts by id (JSONL, CSV) as well as by content.
DATASET_JSONL = "\n".join(
    json.dumps(line)
    for line in [
        {"id": "t1", "text": "Alan Turing was born in London.", "triples": [["Alan Turing", "born in", "London"]]},
        {"id": "t2", "text": "Grace Hopper wrote the first compiler.", "triples": []},
        {
            "id": "t3",
            "text": "Ada Lovelace worked with Charles Babbage.",
            "triples": [["Ada Lovelace", "worked with", "Charles Babbage"]],
        },
    ]
).encode()
TURING, HOPPER, LOVELACE = (json.loads(line)["text"] for line in DATASET_JSONL.splitlines())


def as_file(data, name="upload.json"):
    return ContentFile(data, name=name)


def snapshot():
    """Everything an import may change; failed uploads are left out, since refusals are recorded."""
    return {
        "datasets": list(Dataset.objects.values_list("name", "level", "domain", "description")),
        "texts": list(Text.objects.values_list("dataset__name", "position", "external_id", "content", "gold")),
        "systems": list(System.objects.values_list("name", "family")),
        "outputs": list(
            Output.objects.order_by("pk").values_list(
                "system__name", "text__content", "triples", "raw", "parse_warnings", "upload", "updated_at"
            )
        ),
        "uploads": list(
            Upload.objects.exclude(outcome=Upload.Outcome.FAILED).order_by("pk").values_list("pk", "outcome")
        ),
    }


def last_failure():
    return Upload.objects.filter(outcome=Upload.Outcome.FAILED).latest("pk")


def make_people_dataset():
    import_dataset(as_file(DATASET_JSONL, "people.jsonl"), file_name="people.jsonl", name="People")
    return Dataset.objects.get(name="People")
