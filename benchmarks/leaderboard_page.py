"""Server time of the dataset leaderboard page: 15 systems × 800 texts, 5 aspects, 10,000 judgements.

Builds the data from a fixed seed in a throw-away test database: stored per-text scores of a
finished scoring run (five aspects and P/R/F1 for every output) with their per-system
aggregates, and a campaign on 20 texts (every pair of the 15 systems: 2,100 items) judged on
all five aspects 10,000 times. ``--shape load`` builds the load benchmark's study instead
(``benchmarks.load``): 7 systems and Ground truth × 400 texts, a campaign on all 400 texts
(28 pairs each) for 20 annotators, half the texts judged twice, 3,000 judgements. Then times:

* the build (``leaderboard.jobs.build_snapshots``, what the RQ job runs), after one new
  judgement each time, of one aspect or (``--new all``) of all five: wall time and CPU time of
  this process (the first build, which has no earlier one to reuse parts of, apart);
* the page, leaderboard.json and sections.json through Django's test client (the whole
  request in this process), first after a build (rendering from the snapshot) and then warm.

The cache is an in-process one of the benchmark's own (the app's default without REDIS_URL).

``--baseline REV`` measures only the builds, of the working tree and of a git revision (exported
to a temporary directory with this file copied in), each tree in processes of its own, alternating
``--repeats`` times, and gives the CPU of a build after a new judgement now, before and their ratio.

``--browser`` times the demo leaderboard's first and repeat views in headless Chromium instead, now
and at ``--baseline`` (default: before versioned static names and the partial plotly.js), side by
side: see ``benchmarks.first_view``.

    python -m benchmarks.leaderboard_page [--shape page|load] [--new one|all] [--cold 3] [--warm 30] [--baseline REV]
    python -m benchmarks.leaderboard_page --browser [--rounds 3] [--baseline REV]
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

SEED = 2026
METRICS = ("ts", "us", "fs", "gs", "cs")
PRF = ("precision", "recall", "f1", "relaxed_precision", "relaxed_recall", "relaxed_f1")


@dataclass(frozen=True)
class Shape:
    """What the benchmark builds: systems (besides Ground truth), texts, the campaign and its judgements."""

    systems: int
    texts: int
    campaign_texts: int
    judgements: int
    annotators: int = 2
    overlap: float = 0.0
    ground_truth: bool = False


SHAPES = {
    "page": Shape(systems=15, texts=800, campaign_texts=20, judgements=10_000),
    # benchmarks.load's study after a minute of 20 paced annotators (about 45 judgements/s).
    "load": Shape(
        systems=7, texts=400, campaign_texts=400, judgements=3_000, annotators=20, overlap=0.5, ground_truth=True
    ),
}

# The aspects each new judgement judges: one (a single change), or all five, as in the builds under
# the load benchmark, each of which takes in several saves (the first four aspects, completeness).
NEW_ASPECTS = {"one": METRICS[:1], "all": METRICS}


def build(rng, shape):
    """The dataset, its scores and judgements; returns the dataset and the assignments left unjudged."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotation.models import ASPECTS, Assignment, Judgement
    from annotation.services.campaigns import create_campaign
    from scoring.models import Dataset, Output, System, Text, text_hash
    from scoring.models.runs import ScoringRun
    from scoring.models.scores import SystemScore, TextScore

    dataset = Dataset.objects.create(name="Benchmark")
    contents = [f"Text {number}: the river runs past the mill." for number in range(shape.texts)]
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
    systems = System.objects.bulk_create(System(name=f"System-{number:02d}") for number in range(shape.systems))
    if shape.ground_truth:
        systems.insert(0, System.ground_truth())
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
    SystemScore.store_means(run)

    annotators = [get_user_model().objects.create_user(f"annotator{number}") for number in range(shape.annotators)]
    campaign = create_campaign(
        name="Benchmark study", dataset=dataset, systems=systems, annotators=annotators, seed=SEED,
        overlap_share=shape.overlap, sample_size=shape.campaign_texts,
    ).campaign  # fmt: skip
    assignments = list(Assignment.objects.filter(item__campaign=campaign).select_related("item").order_by("pk"))
    judged = assignments[: shape.judgements // len(ASPECTS)]
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


def run(shape: Shape, cold: int, warm: int, new_aspects: str, builds_only: bool = False) -> list[float]:
    """Build, time the builds and (unless ``builds_only``) the pages; returns the CPU seconds of each build
    after a new judgement."""
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    from annotation.models import Judgement

    rng = random.Random(SEED)
    start = time.perf_counter()
    dataset, unjudged = build(rng, shape)
    ground_truth = " and Ground truth" if shape.ground_truth else ""
    print(
        f"{shape.systems} systems{ground_truth} × {shape.texts} texts, {len(METRICS)} aspects; "
        f"{Judgement.objects.count():,} judgements (built in {time.perf_counter() - start:.1f} s)",
        flush=True,
    )
    cpu = timed_builds(dataset, iter(unjudged), cold, new_aspects)
    if builds_only:
        return cpu
    client = Client(HTTP_HOST="localhost")  # a host ALLOWED_HOSTS accepts by default
    client.force_login(get_user_model().objects.create_superuser("researcher", "", "researcher-pass-123"))
    routes = {
        "page": reverse("leaderboard:dataset", args=[dataset.name]),
        "leaderboard.json": reverse("leaderboard:api_dataset", args=[dataset.name]),
        "sections.json": reverse("leaderboard:sections", args=[dataset.name]),
    }
    for name, address in routes.items():
        report(f"{name}, first after the build", timed_requests(client, address, 1))
        report(f"{name}, warm", timed_requests(client, address, warm))
    return cpu


def timed_builds(dataset, pending, cold: int, new_aspects: str) -> list[float]:
    """A first build, then ``cold`` builds each after a new judgement of ``new_aspects`` (NEW_ASPECTS);
    returns the latter's CPU seconds."""
    from annotation.models import Judgement
    from leaderboard.jobs import build_snapshots

    builds, cpu = [], []
    for number in range(cold + 1):
        # bulk_create: no rebuild scheduled, which needs a Redis this benchmark does not start.
        assignment = next(pending)
        Judgement.objects.bulk_create(
            Judgement(assignment=assignment, aspect=aspect, label="tie") for aspect in NEW_ASPECTS[new_aspects]
        )
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
    return cpu


def measure(shape: str, cold: int, warm: int, new_aspects: str, builds_only: bool) -> list[float]:
    """Set up Django on a throw-away test database and ``run``."""
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
            return run(SHAPES[shape], cold, warm, new_aspects, builds_only)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def compare_builds(options) -> None:
    """The builds' CPU of the working tree and of ``options.baseline``, each in processes of its own, alternating."""
    from benchmarks.hot_paths import REPOSITORY, export_revision

    baseline_tree = export_revision(options.baseline, Path(__file__))
    command = [sys.executable, "-m", "benchmarks.leaderboard_page", "--shape", options.shape]
    command += ["--cold", str(options.cold), "--new", options.new, "--measure"]
    cpu: dict[str, list[float]] = {"now": [], "before": []}
    try:
        for _ in range(options.repeats):
            for name, tree in (("now", REPOSITORY), ("before", baseline_tree)):
                done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=True)
                cpu[name] += json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(baseline_tree, ignore_errors=True)
    now, before = statistics.median(cpu["now"]), statistics.median(cpu["before"])
    print(
        f"CPU of a build after a new judgement of {options.new} ({options.shape}, median of {len(cpu['now'])}): "
        f"now {now * 1000:.0f} ms, at {options.baseline} {before * 1000:.0f} ms (×{now / before:.2f})"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=SHAPES, default="page", help="the data built (default page)")
    parser.add_argument("--cold", type=int, default=3, help="builds (each after a new judgement)")
    parser.add_argument("--new", choices=NEW_ASPECTS, default="one", help="aspects of each new judgement (default one)")
    parser.add_argument("--warm", type=int, default=30, help="warm requests")
    parser.add_argument("--baseline", default="", help="a git revision whose builds to measure beside these")
    parser.add_argument("--repeats", type=int, default=2, help="alternations of the two trees (default 2)")
    parser.add_argument("--browser", action="store_true", help="first and repeat views in headless Chromium")
    parser.add_argument("--rounds", type=int, default=3, help="with --browser: views of each tree (default 3)")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # the child's part
    options = parser.parse_args(argv)
    load_before = os.getloadavg()
    if options.browser:
        from benchmarks import first_view

        first_view.main(options.baseline or first_view.BASELINE, options.rounds)
        return
    if options.measure:
        print(json.dumps(measure(options.shape, options.cold, options.warm, options.new, builds_only=True)))
        return
    if options.baseline:
        compare_builds(options)
    else:
        measure(options.shape, options.cold, options.warm, options.new, builds_only=False)
    print(
        f"machine load (1/5/15 min): before {' '.join(f'{x:.2f}' for x in load_before)}, "
        f"after {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


if __name__ == "__main__":
    main()
