"""Shared by the scoring-run tests: a tiny dataset whose scores can be worked out by hand and
``work()``, an in-process burst worker (the scratch var directory and queue are conftest's).

Three texts, the second without gold triples; the system "Echo" copies the first gold triple,
extracts nothing from the second text and repeats one triple on the third. With the offline
embedder and the heuristic judge, per text (ts aside):

    Echo       t1: us 1, fs 1, gs 1, cs 1,   P 1, R 1,   F1 1      (one triple, the gold one)
               t2: us 0, fs 0, gs 0, cs -,   P/R/F1 -              (no triple, no gold)
               t3: us 0, fs 1, gs 1, cs 1/2, P 1, R 1/2, F1 2/3    (the same triple twice)
    Ground truth on t1 and t3 (texts with gold): every score 1.
"""

import json

import django_rq
from django.core.files.base import ContentFile
from rq import SimpleWorker

from scoring.generation_jobs import parse_run
from scoring.genres.generation import GenerationSettings
from scoring.imports import import_dataset, import_outputs
from scoring.jobs import QUEUE
from scoring.models import Dataset, GenerationRun, Output, System

CURIE = "Marie Curie was born in Warsaw."
ASPIRIN = "Aspirin relieves headache."
PARIS = "Paris is the capital of France and hosts the Louvre."
RECORDS = [
    {"id": "t1", "text": CURIE, "triples": [["Marie Curie", "born in", "Warsaw"]]},
    {"id": "t2", "text": ASPIRIN, "triples": []},
    {"id": "t3", "text": PARIS, "triples": [["Paris", "capital of", "France"], ["Paris", "hosts", "Louvre"]]},
]
ECHO_OUTPUTS = [
    {"id": "t1", "triples": [["Marie Curie", "born in", "Warsaw"]]},
    {"id": "t2", "triples": []},
    {"id": "t3", "triples": [["Paris", "capital of", "France"], ["Paris", "capital of", "France"]]},
]
ECHO_EXPECTED = {
    "texts": 3,
    "triples_per_text": 1.0,
    "tokens_per_triple": 4.5,
    "us": 1 / 3,
    "fs": 2 / 3,
    "gs": 2 / 3,
    "cs": 0.75,
    "precision": 1.0,
    "recall": 0.75,
    "f1": 5 / 6,
    "empty_share": 1 / 3,
}
GROUND_TRUTH_EXPECTED = {
    "texts": 2,
    "triples_per_text": 1.5,
    "tokens_per_triple": 4.25,
    "us": 1.0,
    "fs": 1.0,
    "gs": 1.0,
    "cs": 1.0,
    "precision": 1.0,
    "recall": 1.0,
    "f1": 1.0,
    "empty_share": 0.0,
}


def jsonl(records):
    return ContentFile("\n".join(json.dumps(record) for record in records).encode(), name="records.jsonl")


def tiny_dataset(name="tiny", system="Echo", outputs=ECHO_OUTPUTS):
    """The dataset, its Ground truth outputs and the Echo system's outputs; returns the dataset."""
    import_dataset(jsonl(RECORDS), file_name=f"{name}.jsonl", name=name)
    import_outputs(jsonl(outputs), file_name=f"{system}.jsonl", dataset=name, system_name=system)
    return Dataset.objects.get(name=name)


def echo():
    return System.objects.get(name="Echo")


def generated_replicates(dataset, user=None):
    """A generation run of "llama3:8b" (at 10.1.2.3:8000, temperature 0.7) on ``dataset`` with its
    two systems, seeds 1 and 54, as its parse makes them; outputs stored by hand (no endpoint is
    asked): the Curie triple on every text, seed 1's on the first two texts only."""
    settings = GenerationSettings(base_url="http://10.1.2.3:8000/v1", model="llama3:8b", temperature=0.7)
    run = GenerationRun.create(dataset, settings, [1, 54], user=user)
    parse_run(run)  # no replies yet: the two systems, with their provenance
    texts = list(dataset.texts.order_by("position"))
    for system in run.systems.all():
        for text in texts[:2] if system.seed == "1" else texts:
            Output.objects.create(system=system, text=text, triples=[["Marie Curie", "born in", "Warsaw"]])
    return run


def work():
    """Work the queue here, each job in this process, until it is empty."""
    django_rq.get_worker(QUEUE, worker_class=SimpleWorker).work(burst=True)
