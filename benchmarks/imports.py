"""Speed of the import pipeline: a 10,000-text dataset and 10,000 outputs, each in one transaction.

Synthetic sentences from a fixed seed, three gold triples each. Imports the dataset, then
one system's outputs as triples JSON, the same outputs again (unchanged, nothing written),
a second file that replaces every output (bulk update), and raw replies that go through
the post-processor. Prints the wall-clock time and file size of each step. Runs in a
throw-away test database, never in the app's own.

    python -m benchmarks.imports [--texts 10000]
"""

import argparse
import json
import os
import random
import time

SEED = 2026
WORDS = ["river", "city", "museum", "treaty", "novel", "engine", "protein", "valley", "bridge", "council", "orbit"]


def make_texts(rng, count):
    texts = {}
    for number in range(count):
        subject, place, thing = rng.sample(WORDS, 3)
        sentence = f"Document {number}: the {subject} near the {place} was described together with the {thing}."
        texts[sentence] = [[subject, "near", place], [subject, "described with", thing], [place, "has", thing]]
    return texts


def raw_reply(triples):
    listed = "\n".join(f"{number}. {json.dumps(triple)}" for number, triple in enumerate(triples, start=1))
    return f"[INST] Extract the relation triples. [/INST] Here they are:\n{listed}\n</s>"


def timed(label, data, function):
    start = time.perf_counter()
    summary = function(data)
    seconds = time.perf_counter() - start
    print(f"  {label:<46} {len(data) / 1e6:6.1f} MB {seconds:7.2f} s   {summary.message[:60]}", flush=True)


def run(count):
    from django.core.files.base import ContentFile

    from scoring.imports import import_dataset, import_outputs

    rng = random.Random(SEED)
    gold = make_texts(rng, count)
    outputs = {text: triples[:2] for text, triples in gold.items()}
    replacements = {text: triples[1:] for text, triples in gold.items()}
    raw = {text: raw_reply(triples) for text, triples in gold.items()}
    print(f"{count:,} texts, 3 gold triples each")

    def dataset(data):
        return import_dataset(ContentFile(data), file_name="gold.json", name="Benchmark")

    def system(data):
        return import_outputs(ContentFile(data), file_name="outputs.json", dataset="Benchmark", system_name="System A")

    def raw_system(data):
        return import_outputs(ContentFile(data), file_name="raw.json", dataset="Benchmark", system_name="System B")

    timed("dataset, triples JSON", json.dumps(gold).encode(), dataset)
    timed("outputs, triples JSON (new system)", json.dumps(outputs).encode(), system)
    timed("same outputs again (unchanged)", json.dumps(outputs).encode(), system)
    timed("outputs replacing every earlier output", json.dumps(replacements).encode(), system)
    timed("raw replies through the post-processor", json.dumps(raw).encode(), raw_system)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=10_000)
    arguments = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "genres_site.settings")
    import django
    from django.conf import settings
    from django.db import connection

    django.setup()
    # Large enough for the synthetic files; the benchmark measures speed, not the limit.
    settings.GENRES_MAX_UPLOAD_BYTES = max(settings.GENRES_MAX_UPLOAD_BYTES, 200 * 1024 * 1024)
    old_name = connection.creation.create_test_db(verbosity=0)
    try:
        run(arguments.texts)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
