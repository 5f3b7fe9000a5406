"""What the intervals and paired tests add to a leaderboard build: 15 systems × 800 texts, 5 aspects.

The dataset of ``benchmarks.leaderboard_page`` (same seed): stored per-text scores of one
scoring setting and 10,000 judgements. Times, side by side and alternating so that the
machine's load falls on both alike:

* ``leaderboard.contents.significance_of_scores`` alone (bootstrap intervals of the 75 means, 1,000
  rounds; sign-flip tests of the 105 pairs per aspect, 10,000 patterns, Holm);
* the whole build (``leaderboard.jobs.build_snapshots``, what the RQ job runs) as after new
  scores (no snapshot to reuse: the metric battles are rated again too), with the tests and
  without them (``significance_of_scores`` replaced by one that returns None).

A build after new judgements alone reuses the tests of the last build: ``benchmarks.leaderboard_page``
times it.

    python -m benchmarks.leaderboard_significance [--rounds 3]
"""

import argparse
import os
import random
import statistics
import time

from benchmarks.leaderboard_page import SEED, build


def median_ms(seconds):
    return f"{statistics.median(seconds) * 1000:8.0f} ms (min {min(seconds) * 1000:.0f}, max {max(seconds) * 1000:.0f})"


def run(rounds):
    from leaderboard import contents, metrics
    from leaderboard.jobs import build_snapshots
    from leaderboard.models import Snapshot

    dataset, _ = build(random.Random(SEED))
    setting = metrics.scoring_settings(dataset)[0]["key"]
    scores = metrics.metric_scores(dataset, setting)
    print(f"{len(scores['rows'])} systems × {dataset.texts.count()} texts, load average {os.getloadavg()}", flush=True)

    alone = []
    for _ in range(rounds):
        start = time.perf_counter()
        contents.significance_of_scores(scores)
        alone.append(time.perf_counter() - start)

    real_tests = contents.significance_of_scores
    builds = {"with tests": [], "without tests": []}
    for _ in range(rounds):
        for label, tests in (("with tests", real_tests), ("without tests", lambda scores: None)):
            contents.significance_of_scores = tests
            Snapshot.objects.all().delete()  # nothing to reuse, as after new scores
            start = time.perf_counter()
            build_snapshots(dataset)
            builds[label].append(time.perf_counter() - start)
    contents.significance_of_scores = real_tests
    print(f"  intervals and tests alone      {median_ms(alone)}")
    for label, seconds in builds.items():
        print(f"  build as after new scores, {label:<14} {median_ms(seconds)}")
    share = statistics.median(alone) / statistics.median(builds["with tests"])
    ratio = statistics.median(builds["with tests"]) / statistics.median(builds["without tests"])
    print(f"  build with / without tests: {ratio:.2f}; the tests' share of a build: {share:.0%}")
    print(f"  load average at the end {os.getloadavg()}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="timings of each kind")
    arguments = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "genres_site.settings")
    import django
    from django.db import connection

    django.setup()
    old_name = connection.creation.create_test_db(verbosity=0)
    try:
        run(arguments.rounds)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
