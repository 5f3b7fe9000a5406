"""Server time of the dataset leaderboard page: 15 systems × 800 texts, 5 aspects, 10,000 judgements.

Builds the data from a fixed seed in a throw-away test database: stored per-text scores of a
finished scoring run (five aspects and P/R/F1 for every output) with their per-system
aggregates, and a campaign on 20 texts (every pair of the 15 systems: 2,100 items) judged on
all five aspects 10,000 times. Then times:

* the build (``leaderboard.jobs.build_snapshots``, what the RQ job runs), after one new
  judgement each time: wall time and CPU time of this process (the first build, which has no
  earlier one to reuse parts of, apart);
* the page, leaderboard.json and sections.json through Django's test client (the whole
  request in this process), first after a build (rendering from the snapshot) and then warm.

The cache is an in-process one of the benchmark's own (the app's default without REDIS_URL).

    python -m benchmarks.leaderboard_page [--cold 3] [--warm 30]
"""

import argparse
import os
import random
import statistics
import time

SEED = 2026
SYSTEMS = 15
TEXTS = 800
CAMPAIGN_TEXTS = 20
JUDGEMENTS = 10_000
METRICS = ("ts", "us", "fs", "gs", "cs")
PRF = ("precision", "recall", "f1", "relaxed_precision", "relaxed_recall", "relaxed_f1")


def build(rng):
    """The dataset, its scores and judgements; returns the dataset and the assignments left unjudged."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotation.models import ASPECTS, Assignment, Judgement
    from annotation.services import create_campaign
    from scoring.models import Dataset, Output, System, Text, text_hash
    from scoring.models.runs import ScoringRun, TextScore

    dataset = Dataset.objects.create(name="Benchmark")
    contents = [f"Text {number}: the river runs past the mill." for number in range(TEXTS)]
    # bulk_create skips Text.save(), which fills in the content hash.
    texts = Text.objects.bulk_create(
        Text(
            dataset=dataset,
            position=number,
            content=content,
            content_sha256=text_hash(content),
            gold=[["river", "runs past", "mill"]],
        )
        for number, content in enumerate(contents)
    )
    systems = System.objects.bulk_create(System(name=f"System-{number:02d}") for number in range(SYSTEMS))
    outputs = Output.objects.bulk_create(
        Output(system=system, text=text, triples=[["river", "runs past", "mill"]])
        for system in systems
        for text in texts
    )
    # Each system has a strength; a text's score scatters around it, so rankings are not trivial.
    strength = {system.pk: rng.uniform(0.3, 0.8) for system in systems}
    run = ScoringRun.objects.create(
        dataset=dataset, metrics=[*METRICS, "prf"], score_settings={}, status=ScoringRun.Status.DONE,
        provenance={"embedder": "hashing", "embedder_model": "hashing-512", "threshold": 0.6, "embedding_mode": "sum",
                    "judge": "heuristic", "judge_model": None, "prompt_version": "rules-2", "heuristic_judge": True,
                    "lda_topics": 20, "lda_seed": 13, "relaxed_threshold": 0.5},
        fingerprint="b" * 64, finished_at=timezone.now(),
    )  # fmt: skip
    run.systems.set(systems)

    def score(output):
        return min(1.0, max(0.0, rng.gauss(strength[output.system_id], 0.2)))

    rows = []
    for output in outputs:
        common = dict(output=output, run=run, fingerprint=run.fingerprint, output_updated_at=output.updated_at)
        rows += [TextScore(metric=metric, values={metric: score(output)}, **common) for metric in METRICS]
        rows.append(TextScore(metric="prf", values=dict.fromkeys(PRF, score(output)), **common))
    TextScore.objects.bulk_create(rows, batch_size=5000)
    run.store_aggregates()

    annotators = [get_user_model().objects.create_user(f"annotator{number}") for number in range(2)]
    campaign = create_campaign(
        name="Benchmark study", dataset=dataset, systems=systems, annotators=annotators, seed=SEED,
        overlap_share=0.0, sample_size=CAMPAIGN_TEXTS,
    ).campaign  # fmt: skip
    assignments = list(Assignment.objects.filter(item__campaign=campaign).select_related("item").order_by("pk"))
    judged = assignments[: JUDGEMENTS // len(ASPECTS)]
    labels = []
    for assignment in judged:
        gap = strength[assignment.item.system_a_id] - strength[assignment.item.system_b_id]
        for aspect in ASPECTS:
            noisy = gap + rng.gauss(0, 0.2)
            labels.append(
                Judgement(
                    assignment=assignment, aspect=aspect, label="a" if noisy > 0.05 else "b" if noisy < -0.05 else "tie"
                )
            )
    Judgement.objects.bulk_create(labels, batch_size=5000)
    return dataset, assignments[len(judged) :]


def timed_requests(client, url, count, before_each=None):
    seconds = []
    for _ in range(count):
        if before_each:
            before_each()
        start = time.perf_counter()
        response = client.get(url)
        seconds.append(time.perf_counter() - start)
        assert response.status_code == 200, response.status_code
    return seconds


def report(label: str, seconds: list[float]) -> None:
    print(
        f"  {label:<34} median {statistics.median(seconds) * 1000:8.1f} ms"
        f"   (min {min(seconds) * 1000:.1f}, max {max(seconds) * 1000:.1f}, {len(seconds)} requests)",
        flush=True,
    )


def run(cold: int, warm: int) -> None:
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    from annotation.models import Judgement
    from leaderboard.jobs import build_snapshots

    rng = random.Random(SEED)
    start = time.perf_counter()
    dataset, unjudged = build(rng)
    print(
        f"{SYSTEMS} systems × {TEXTS} texts, {len(METRICS)} aspects; "
        f"{Judgement.objects.count():,} judgements (built in {time.perf_counter() - start:.1f} s)",
        flush=True,
    )
    client = Client(HTTP_HOST="localhost")  # a host ALLOWED_HOSTS accepts by default
    client.force_login(get_user_model().objects.create_superuser("researcher", "", "researcher-pass-123"))
    url = reverse("leaderboard:dataset", args=[dataset.name])

    pending = iter(unjudged)
    builds, cpu = [], []
    for number in range(cold + 1):
        # bulk_create: no rebuild scheduled, which needs a Redis this benchmark does not start.
        Judgement.objects.bulk_create([Judgement(assignment=next(pending), aspect="ts", label="tie")])
        start, cpu_start = time.perf_counter(), time.process_time()
        build_snapshots(dataset)
        if number == 0:
            report("first build", [time.perf_counter() - start])
            report("first build, CPU", [time.process_time() - cpu_start])
            continue
        builds.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu_start)
    report("build after a new judgement", builds)
    report("build after a new judgement, CPU", cpu)
    routes = {
        "page": url,
        "leaderboard.json": reverse("leaderboard:api_dataset", args=[dataset.name]),
        "sections.json": reverse("leaderboard:sections", args=[dataset.name]),
    }
    for name, address in routes.items():
        report(f"{name}, first after the build", timed_requests(client, address, 1))
        report(f"{name}, warm", timed_requests(client, address, warm))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", type=int, default=3, help="builds (each after a new judgement)")
    parser.add_argument("--warm", type=int, default=30, help="warm requests")
    arguments = parser.parse_args(argv)
    load_before = os.getloadavg()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "genres_site.settings")
    import django
    from django.db import connection
    from django.test.utils import override_settings

    django.setup()
    # A cache of its own, in this process: emptying it for the cold requests touches no real cache.
    own_cache = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "benchmark"}}
    old_name = connection.creation.create_test_db(verbosity=0)
    try:
        with override_settings(CACHES=own_cache):
            run(arguments.cold, arguments.warm)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    print(
        f"machine load (1/5/15 min): before {' '.join(f'{x:.2f}' for x in load_before)}, "
        f"after {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


if __name__ == "__main__":
    main()
