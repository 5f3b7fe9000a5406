"""Server cost of the annotator's hot paths: CPU ms, wall ms and queries per request.

    python -m benchmarks.hot_paths [--rounds 60] [--baseline REV] [--repeats 2] [--profile FILE]

Builds, in a throw-away test database, a study shaped like the load benchmark's (``benchmarks.load``):
400 texts, 7 systems and Ground truth (28 pairs per text), 20 annotators, half the texts
judged twice. Then, for ``--rounds`` rounds, each annotator in turn does what the item page's
script does: the queue's next item (``next item``, a redirect), the item page (``item page``),
the JSON save of the aspects it asks for (``save``: the first four; ``save completeness``),
all through Django's test client, the whole request in this process. For each request it
records the process's CPU time, the wall time and the SQL queries sent.

The database is SQLite unless DATABASE_URL names a PostgreSQL server (a test database
``test_<name>`` is created there and dropped). The cache, and so the sessions, live in Redis as
in the served app: an embedded one this benchmark starts and stops (REDIS_URL is not used, so
the leaderboard rebuilds the saves schedule reach no one's queue).

``--baseline REV`` measures a git revision of this repository beside the working tree: the
revision is exported to a temporary directory and measured there by this same file, the two
alternating ``--repeats`` times, and the table gives each figure as baseline / now.
``--profile FILE`` writes a pyinstrument profile (text, wall time) of the working tree's
requests, from a run of its own that the figures leave out.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from functools import partial
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
SEED = 2026
TEXTS = 400
SYSTEMS = 7
ANNOTATORS = 20
OVERLAP = 0.5
KINDS = ("next item", "item page", "save", "save completeness")
SIDES = ("left", "tie", "right")


def build_study():
    """The dataset, its outputs and the campaign; returns the campaign and its annotators."""
    from django.contrib.auth import get_user_model

    from annotation.services.campaigns import create_campaign
    from scoring.models import Dataset, Output, System, Text, text_hash

    dataset = Dataset.objects.create(name="hot-paths")
    contents = [
        f"Text {number}: Marie Curie was born in Warsaw and later moved to Paris, where she studied physics."
        for number in range(TEXTS)
    ]
    gold = [["Marie Curie", "born in", "Warsaw"], ["Marie Curie", "moved to", "Paris"]]
    # bulk_create skips Text.save(), which fills in the content hash.
    texts = Text.objects.bulk_create(
        Text(dataset=dataset, position=number, content=content, content_sha256=text_hash(content), gold=gold)
        for number, content in enumerate(contents)
    )
    systems = System.objects.bulk_create(System(name=f"System-{number}") for number in range(SYSTEMS))
    Output.objects.bulk_create(
        Output(system=system, text=text, triples=[["Marie Curie", f"relation {rank}", "Paris"]] * (1 + rank % 4))
        for rank, system in enumerate(systems)
        for text in texts
    )
    user_model = get_user_model()
    annotators = user_model.objects.bulk_create(
        user_model(username=f"hot-annotator-{number:02d}") for number in range(ANNOTATORS)
    )
    campaign = create_campaign(
        name="hot paths", dataset=dataset, systems=[*systems, System.ground_truth()], annotators=annotators,
        seed=SEED, overlap_share=OVERLAP, sample_size=TEXTS,
    ).campaign  # fmt: skip
    return campaign, annotators


class QueryCounter:
    """Counts the SQL statements sent on a connection (an execute wrapper: no debug cursor)."""

    def __init__(self):
        self.count = 0

    def __call__(self, execute, sql, params, many, context):
        self.count += 1
        return execute(sql, params, many, context)


def measured(figures, counter, kind, call):
    counter.count = 0
    cpu, wall = time.process_time(), time.perf_counter()
    response = call()
    figures[kind].append((1000 * (time.process_time() - cpu), 1000 * (time.perf_counter() - wall), counter.count))
    return response


def page_aspects(html):
    """The aspects the item page asks for and its version, read as the load benchmark reads them."""
    from benchmarks.load import read_item_page

    _action, form, aspects = read_item_page(html)
    return [code for code, side in aspects.items() if side is None], form["version"]


def annotator_rounds(campaign, annotators, rounds, profiler=None):
    """Every annotator, in turn, ``rounds`` times: next item, item page, save. Returns kind -> [(cpu, wall, queries)]."""
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    clients = []
    for annotator in annotators:
        client = Client(HTTP_HOST="localhost")  # a host ALLOWED_HOSTS accepts by default
        client.force_login(annotator)
        clients.append(client)
    continue_url = reverse("annotation:annotate_continue", args=[campaign.pk])
    figures = defaultdict(list)
    counter = QueryCounter()
    warm_up = 3
    with connection.execute_wrapper(counter):
        for round_number in range(warm_up + rounds):
            if round_number == warm_up:
                figures.clear()
                if profiler:
                    profiler.start()
            for number, client in enumerate(clients):
                redirect = measured(figures, counter, "next item", partial(client.get, continue_url))
                assert redirect.status_code == 302, redirect.status_code
                page = measured(figures, counter, "item page", partial(client.get, redirect.url))
                assert page.status_code == 200, page.status_code
                to_judge, version = page_aspects(page.content.decode())
                labels = {code: SIDES[(number + round_number) % 3] for code in to_judge}
                kind = "save completeness" if "cs" in to_judge else "save"
                form = {"version": version, "seconds": "1", **labels}
                save = partial(client.post, redirect.url, form, HTTP_ACCEPT="application/json")
                saved = measured(figures, counter, kind, save)
                assert saved.status_code == 200 and saved.json()["saved"], saved.content
    if profiler:
        profiler.stop()
    return figures


def measure(rounds, profile_path):
    """Set up Django on a test database, run the rounds, print the figures as JSON (one line)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "genres_site.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_test_environment

    setup_test_environment(debug=False)
    old_name = connection.creation.create_test_db(verbosity=0)
    try:
        started = time.perf_counter()
        campaign, annotators = build_study()
        setup_seconds = time.perf_counter() - started
        profiler = None
        if profile_path:
            from pyinstrument import Profiler

            profiler = Profiler(interval=0.0005)
        figures = annotator_rounds(campaign, annotators, rounds, profiler)
        if profiler:
            Path(profile_path).write_text(profiler.output_text(unicode=True, color=False, show_all=False))
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    print(
        json.dumps(
            {
                "figures": figures,
                "setup_seconds": setup_seconds,
                "database": connection.vendor,
                "session_engine": settings.SESSION_ENGINE,
            }
        )
    )


# --- The parent: trees, alternation, report -----------------------------------------------------------


def export_revision(revision, benchmark=Path(__file__)):
    """The files of ``revision`` in a temporary directory, with the working tree's ``benchmark`` file copied in."""
    directory = Path(tempfile.mkdtemp(prefix="genres-hot-paths-"))
    archive = subprocess.run(["git", "archive", revision], cwd=REPOSITORY, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(directory)], input=archive, check=True)
    shutil.copy(benchmark, directory / "benchmarks" / benchmark.name)
    return directory


def run_tree(tree, rounds, env, profile_path=None):
    command = [sys.executable, "-m", "benchmarks.hot_paths", "--measure", "--rounds", str(rounds)]
    if profile_path:
        command += ["--profile", str(profile_path)]
    var_dir = tempfile.mkdtemp(prefix="genres-hot-paths-var-")
    tree_env = {**env, "GENRES_VAR_DIR": var_dir}
    try:
        # The pages name their static files from the manifest collectstatic writes, as served.
        collect = [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"]
        subprocess.run(collect, cwd=tree, env=tree_env, check=True)
        done = subprocess.run(command, cwd=tree, env=tree_env, capture_output=True, text=True, check=False)
    finally:
        shutil.rmtree(var_dir, ignore_errors=True)
    if done.returncode != 0:
        raise SystemExit(f"measuring {tree} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def merged(results):
    figures = defaultdict(list)
    for result in results:
        for kind, rows in result["figures"].items():
            figures[kind].extend(rows)
    return figures


def summary(rows):
    """Median CPU ms, median wall ms, p95 wall ms and median queries of one kind's requests."""
    cpu, wall, queries = zip(*rows, strict=True)
    ordered = sorted(wall)
    return (
        statistics.median(cpu),
        statistics.median(wall),
        ordered[int(0.95 * (len(ordered) - 1))],
        statistics.median(queries),
    )


def report(now, baseline, revision):
    print(f"{'request':<19}{'count':>6}{'CPU ms':>8}{'wall ms':>9}{'p95 ms':>8}{'queries':>9}", end="")
    print(f"   baseline {revision}: CPU ms, queries; CPU now/before" if baseline else "")
    for kind in KINDS:
        if not now.get(kind):
            continue
        cpu, wall, p95, queries = summary(now[kind])
        line = f"{kind:<19}{len(now[kind]):>6}{cpu:>8.2f}{wall:>9.2f}{p95:>8.2f}{queries:>9.0f}"
        if baseline and baseline.get(kind):
            before_cpu, _wall, _p95, before_queries = summary(baseline[kind])
            line += f"   {before_cpu:>8.2f} {before_queries:>4.0f}   ×{cpu / before_cpu:.2f}"
        print(line)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.hot_paths", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=60, help="rounds of the 20 annotators (default 60)")
    parser.add_argument("--baseline", default="", help="a git revision to measure beside the working tree")
    parser.add_argument("--repeats", type=int, default=2, help="alternations of the two trees (default 2)")
    parser.add_argument("--profile", default="", help="write a pyinstrument profile of the working tree here")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # the child's part
    options = parser.parse_args(argv)
    if options.measure:
        measure(options.rounds, options.profile)
        return

    from genres_site import embedded_redis

    redis_dir = Path(tempfile.mkdtemp(prefix="genres-hot-paths-redis-"))
    redis_process = embedded_redis.start(redis_dir / "redis.sock")
    env = dict(os.environ, PYTHONUNBUFFERED="1", REDIS_URL=embedded_redis.socket_url(redis_dir / "redis.sock"))
    baseline_tree = export_revision(options.baseline) if options.baseline else None
    try:
        load_before = os.getloadavg()
        results, baseline_results = [], []
        if options.profile:  # a run of its own: the profiler slows the requests it watches
            run_tree(REPOSITORY, options.rounds, env, options.profile)
        for _ in range(options.repeats if baseline_tree else 1):
            results.append(run_tree(REPOSITORY, options.rounds, env))
            if baseline_tree:
                baseline_results.append(run_tree(baseline_tree, options.rounds, env))
        load_after = os.getloadavg()
    finally:
        if baseline_tree:
            shutil.rmtree(baseline_tree, ignore_errors=True)
        redis_process.terminate()
        redis_process.wait()
        shutil.rmtree(redis_dir, ignore_errors=True)
    first = results[0]
    print(
        f"{ANNOTATORS} annotators × {options.rounds} rounds; {TEXTS} texts, {SYSTEMS} systems and Ground truth; "
        f"{first['database']}, sessions {first['session_engine'].rsplit('.', 1)[-1]} (Redis); "
        f"set-up {first['setup_seconds']:.0f} s"
    )
    report(merged(results), merged(baseline_results) if baseline_results else None, options.baseline)
    print(
        f"machine load (1/5/15 min): before {' '.join(f'{x:.2f}' for x in load_before)}, "
        f"after {' '.join(f'{x:.2f}' for x in load_after)}"
    )
    if options.profile:
        print(f"profile of the working tree's requests: {options.profile}")


if __name__ == "__main__":
    main()
