"""Speed of the import pipeline: a 10,000-text dataset and 10,000 outputs, each in one transaction.

Synthetic sentences from a fixed seed, three gold triples each. Imports the dataset, then
one system's outputs as triples JSON, the same outputs again (unchanged, nothing written),
a second file that replaces every output (bulk update), and raw replies that go through
the post-processor; then the same dataset and outputs as JSON Lines, which are read line by
line. Prints the wall-clock time and file size of each step, the process's peak memory so far
(resident set), and the machine's load average. Runs in a throw-away test database, never in the app's own.

    python -m benchmarks.imports [--texts 10000]    (--texts 100000: the benchmark of issue 9)
"""

import argparse
import json
import os
import random
import resource
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


def jsonl(records):
    return "\n".join(json.dumps(record) for record in records).encode()


def timed(label, data, function):
    start = time.perf_counter()
    summary = function(data)
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux
    print(
        f"  {label:<46} {len(data) / 1e6:6.1f} MB {seconds:7.2f} s  peak {peak_mb:6.0f} MB   {summary.message[:50]}",
        flush=True,
    )


def run(count):
    from django.core.files.base import ContentFile

    from scoring.imports import import_dataset, import_outputs

    rng = random.Random(SEED)
    gold = make_texts(rng, count)
    outputs = {text: triples[:2] for text, triples in gold.items()}
    replacements = {text: triples[1:] for text, triples in gold.items()}
    raw = {text: raw_reply(triples) for text, triples in gold.items()}
    print(f"{count:,} texts, 3 gold triples each; load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")

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

    def jsonl_dataset(data):
        return import_dataset(ContentFile(data), file_name="gold.jsonl", name="Benchmark JSONL")

    def jsonl_system(data):
        return import_outputs(ContentFile(data), file_name="c.jsonl", dataset="Benchmark JSONL", system_name="System C")

    ids = {text: f"d{number}" for number, text in enumerate(gold)}
    timed(
        "dataset, JSON Lines",
        jsonl({"id": ids[text], "text": text, "triples": triples} for text, triples in gold.items()),
        jsonl_dataset,
    )
    timed(
        "raw replies, JSON Lines (by id)",
        jsonl({"id": ids[text], "raw": reply} for text, reply in raw.items()),
        jsonl_system,
    )
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


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
