"""Speed of a whole scoring run in-process: chunks, the database request cache, stored scores.

A synthetic dataset (fixed seed) with three systems and the Ground truth, all six metrics, the
offline embedder and judge, 50 texts a chunk: once with an empty request cache, once again
(the LDA model then loaded, not trained; the offline embedder's vectors stay in the process).
Then the fs stage with the OpenAI judge against the fake OpenAI-compatible server (50 ms a
request, 16 in flight): once sending every request, once answered from the cache with none sent.
Prints the wall-clock time of each run and what it counted. Runs in a throw-away test database
and LDA directory, never in the app's own.

    python -m benchmarks.scoring_pipeline [--texts 1000]
"""

import argparse
import os
import random
import tempfile
import time
from pathlib import Path

SEED = 2026
PLACES = ["Lisbon", "Oslo", "Quito", "Hanoi", "Accra", "Perth", "Riga", "Lima", "Cairo", "Dublin"]
TRADES = ["bakery", "shipyard", "library", "observatory", "vineyard", "foundry", "theatre", "clinic"]


def make_dataset(rng, count):
    records, systems = [], {"Copier": [], "Guesser": [], "Lister": []}
    for number in range(count):
        person, place, trade = f"Person{number}", rng.choice(PLACES), rng.choice(TRADES)
        text = f"{person} was born in {place} and later ran a {trade} there with two partners."
        gold = [[person, "born in", place], [person, "ran", f"a {trade}"]]
        records.append({"id": f"d{number}", "text": text, "triples": gold})
        systems["Copier"].append({"id": f"d{number}", "triples": gold})
        systems["Guesser"].append({"id": f"d{number}", "triples": [[person, "lived in", rng.choice(PLACES)]]})
        listed = [[person, "born in", place], [person, "ran", f"a {trade} and a shop"], [place, "has", trade]]
        systems["Lister"].append({"id": f"d{number}", "triples": listed})
    return records, systems


def as_file(rows):
    import json

    from django.core.files.base import ContentFile

    return ContentFile("\n".join(json.dumps(row) for row in rows).encode(), name="rows.jsonl")


def timed_run(label, dataset, metrics, **settings):
    from scoring.genres.scorer import ScoreSettings
    from scoring.jobs import run_in_process
    from scoring.models import System
    from scoring.models.runs import ScoringRun
    from scoring.models.scores import TextScore

    systems = System.objects.filter(outputs__text__dataset=dataset).distinct()
    start = time.perf_counter()
    run = run_in_process(ScoringRun.create(dataset, systems, metrics, ScoreSettings(**settings)))
    seconds = time.perf_counter() - start
    state = run.progress_state()
    outputs = TextScore.objects.filter(run=run).values("output").distinct().count()
    print(
        f"  {label:<44} {seconds:6.2f} s  {outputs / seconds:7.0f} outputs/s  {state['chunks_total']} chunks  "
        f"requests {state['requests']:>5}  cache hits {state['cache_hits']:>6}",
        flush=True,
    )


def run(count):
    from devtools.fake_openai import FakeOpenAIServer
    from scoring.imports import import_dataset, import_outputs
    from scoring.models import Dataset

    records, systems = make_dataset(random.Random(SEED), count)
    import_dataset(as_file(records), file_name="bench.jsonl", name="Benchmark")
    for name, rows in systems.items():
        import_outputs(as_file(rows), file_name=f"{name}.jsonl", dataset="Benchmark", system_name=name)
    dataset = Dataset.objects.get(name="Benchmark")
    print(f"{count:,} texts × 4 systems (Ground truth included)")
    all_metrics = ["ts", "us", "fs", "gs", "cs", "prf"]
    timed_run("all metrics, offline, empty cache", dataset, all_metrics)
    timed_run("all metrics, offline, again (LDA model saved)", dataset, all_metrics)
    with FakeOpenAIServer(latency=0.05) as server:
        os.environ.update(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="benchmark", GENRES_OPENAI_CONCURRENCY="16")
        timed_run("fs, OpenAI judge (fake server), empty cache", dataset, ["fs"], judge="openai")
        timed_run("fs, OpenAI judge (fake server), cached", dataset, ["fs"], judge="openai")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=1000)
    arguments = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "genres_site.settings")
    import django
    from django.conf import settings
    from django.db import connection

    django.setup()
    # Progress goes nowhere here: an in-memory channel layer needs no Redis.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    old_name = connection.creation.create_test_db(verbosity=0)
    with tempfile.TemporaryDirectory(prefix="genres-bench-") as scratch:
        settings.VAR_DIR = Path(scratch)
        try:
            run(arguments.texts)
        finally:
            connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
