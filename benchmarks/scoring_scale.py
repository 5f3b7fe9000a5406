"""A whole scoring run against the pure library on the same inputs, and how both scale.

For each size, a synthetic dataset (fixed seed) of N texts with gold triples (every tenth text
without: cs and P/R/F1 not applicable there) and four systems, so five systems with the Ground
truth, is imported into a throw-away var directory (SQLite database and LDA directory). Then,
each in a process of its own, so that its peak memory is its own:

- app: ``manage.py score_outputs --sync --metrics ts,us,cs,prf`` on that database, as a user
  runs it (Django start-up, LDA training, chunks of 50 texts, stored scores, system means);
- library: the same texts and triples given straight to ``scoring.genres`` (train the LDA model,
  ``Scorer.score`` on the same 50-text chunks of every system, ``aggregate``), no database;
- before (``--before PATH``, for the sizes of ``--before-sizes``): the same command run from
  another checkout, e.g. a ``git worktree`` of an earlier commit, on the same database.

Each line prints wall time and CPU time (user + system: steadier than wall time on a shared
machine), each also per text of the dataset (all five systems), and the peak resident memory of
that process (``wait4``'s ru_maxrss); the library line also the LDA
training time, and the app line its share of the run. The load average is printed before each
size. The app and the library train their own LDA model (each its own model directory) and
must agree on every system mean.

    python -m benchmarks.scoring_scale [--sizes 1000,10000,100000] [--library-sizes 1000,10000]
        [--before PATH] [--before-sizes 1000,10000]
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.scoring_pipeline import SEED, as_file, make_dataset

DATASET = "Scale"
METRICS = ["ts", "us", "cs", "prf"]
CHUNK_TEXTS = 50
NO_GOLD_EVERY = 10
CHECKOUT = Path(__file__).resolve().parent.parent


def scale_dataset(count):
    """Dataset records and {system: rows}: four systems, the Ground truth comes from the gold."""
    records, systems = make_dataset(random.Random(SEED), count)
    systems["Swapper"] = [{"id": row["id"], "triples": [[o, r, s] for s, r, o in row["triples"]]} for row in records]
    for number in range(0, count, NO_GOLD_EVERY):
        records[number]["triples"] = []
    return records, systems


def load_average():
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def django_setup(var_dir):
    os.environ["GENRES_VAR_DIR"] = str(var_dir)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "genres_site.settings")
    import django

    django.setup()


# The child processes --------------------------------------------------------------------


def prepare(count, var_dir):
    """Import the dataset and the systems' outputs into a new database in ``var_dir``."""
    django_setup(var_dir)
    from django.core.management import call_command

    from scoring.imports import import_dataset, import_outputs

    call_command("migrate", verbosity=0)
    records, systems = scale_dataset(count)
    import_dataset(as_file(records), file_name="scale.jsonl", name=DATASET)
    for name, rows in systems.items():
        import_outputs(as_file(rows), file_name=f"{name}.jsonl", dataset=DATASET, system_name=name)


def library(count, var_dir):
    """Score the same inputs with ``scoring.genres`` alone; prints the means and the LDA time as JSON."""
    from scoring.genres.embedders import get_embedder
    from scoring.genres.scorer import Scorer, ScoreSettings, TextRecord, aggregate
    from scoring.genres.topics import TopicModel, default_topic_count

    records, systems = scale_dataset(count)
    texts = [record["text"] for record in records]
    gold = [record["triples"] for record in records]
    outputs = {"Ground truth": [row["triples"] if row["triples"] else None for row in records]}
    outputs.update({name: [row["triples"] for row in rows] for name, rows in systems.items()})
    settings = ScoreSettings(lda_topics=default_topic_count(count))
    start = time.perf_counter()
    topic_model = TopicModel.for_texts(texts, Path(var_dir) / "lda-library", settings.topic_settings())
    lda_seconds = time.perf_counter() - start
    scorer = Scorer(settings, get_embedder(settings.embedder), None, topic_model)
    means = {}
    for name in sorted(outputs):
        scores = []
        for first in range(0, count, CHUNK_TEXTS):
            chunk = range(first, min(first + CHUNK_TEXTS, count))
            chunk_records = [
                TextRecord(index, texts[index], outputs[name][index], gold[index])
                for index in chunk
                if outputs[name][index] is not None
            ]
            scores.extend(scorer.score(chunk_records, METRICS))
        means[name] = aggregate(scores)
    print(json.dumps({"lda_seconds": lda_seconds, "means": means}))


# The parent ------------------------------------------------------------------------------


def measured(command, cwd, var_dir):
    """Run ``command``; its wall time, CPU time (user + system), peak RSS in MB and standard output."""
    environment = {**os.environ, "GENRES_VAR_DIR": str(var_dir), "PYTHONPATH": str(cwd)}
    environment.pop("DATABASE_URL", None)
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=environment, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    output = process.stdout.read()
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(map(str, command))} failed (exit status {os.waitstatus_to_exitcode(status)})")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, output.decode()


def score_command(checkout):
    return [
        sys.executable, str(checkout / "manage.py"), "score_outputs", "--dataset", DATASET, "--sync",
        "--metrics", ",".join(METRICS), "--chunk-texts", str(CHUNK_TEXTS), "--json",
    ]  # fmt: skip


def line(label, count, seconds, cpu, megabytes, extra=""):
    print(
        f"  {label:<8} {seconds:8.1f} s  {seconds / count * 1000:6.2f} ms/text  CPU {cpu:8.1f} s  "
        f"{cpu / count * 1000:6.2f} ms/text  peak {megabytes:6.0f} MB{extra}",
        flush=True,
    )


def compare(app_means, library_means):
    """The largest difference between the app's and the library's system means."""
    differences = [
        abs(value - library_means[system][key])
        for system, values in app_means.items()
        for key, value in values.items()
        if value is not None and library_means[system][key] is not None
    ]
    return max(differences, default=0.0)


def topic_model_ready(var_dir, start):
    """Seconds from ``start`` (a time.time()) until the app's topic model was saved, start-up included."""
    (model_dir,) = (var_dir / "lda").glob("lda-*")
    return model_dir.stat().st_mtime - start


def measure(count, before, with_library, with_before):
    print(f"{count:,} texts × 5 systems (Ground truth included), metrics {','.join(METRICS)}; "
          f"load average {load_average()}", flush=True)  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="genres-scale-") as scratch:
        var_dir = Path(scratch)
        module = [sys.executable, "-m", "benchmarks.scoring_scale"]
        seconds, *_ = measured([*module, "--child", "prepare", "--count", str(count)], CHECKOUT, var_dir)
        print(f"  import   {seconds:8.1f} s  (not part of the figures below)", flush=True)
        if with_library:
            library_seconds, library_cpu, megabytes, out = measured(
                [*module, "--child", "library", "--count", str(count)], CHECKOUT, var_dir
            )
            library_result = json.loads(out)
            lda = library_result["lda_seconds"]
            line("library", count, library_seconds, library_cpu, megabytes, f"  (LDA training {lda:.1f} s)")
        start = time.time()
        app_seconds, app_cpu, megabytes, out = measured(score_command(CHECKOUT), CHECKOUT, var_dir)
        ready = topic_model_ready(var_dir, start)
        comparison = f"  topic model ready after {ready:.1f} s ({ready / app_seconds:.0%}, start-up included)"
        if with_library:
            comparison += (
                f"; {app_seconds / library_seconds:.2f}× library ({app_cpu / library_cpu:.2f}× in CPU), "
                f"LDA training {lda / app_seconds:.0%} of it, means differ by "
                f"≤ {compare(json.loads(out)['systems'], library_result['means']):.1e}"
            )
        line("app", count, app_seconds, app_cpu, megabytes, comparison)
        if with_before:
            shutil.rmtree(var_dir / "lda", ignore_errors=True)  # the earlier code trains its own model too
            before_seconds, before_cpu, megabytes, _out = measured(score_command(before), before, var_dir)
            ratios = f"  {before_seconds / app_seconds:.1f}× app ({before_cpu / app_cpu:.1f}× in CPU)"
            line("before", count, before_seconds, before_cpu, megabytes, ratios)
        print(f"  load average after: {load_average()}", flush=True)


def sizes(value):
    return [int(size) for size in value.split(",") if size]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=sizes, default=[1000, 10000], help="Texts per dataset, comma-separated.")
    parser.add_argument("--library-sizes", type=sizes, help="The sizes the library runs on too (default: all).")
    parser.add_argument("--before", type=Path, help="Another checkout whose score_outputs runs too, for comparison.")
    parser.add_argument("--before-sizes", type=sizes, default=[1000, 10000], help="The sizes --before runs on.")
    parser.add_argument("--child", choices=["prepare", "library"], help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    if arguments.child == "prepare":
        prepare(arguments.count, os.environ["GENRES_VAR_DIR"])
    elif arguments.child == "library":
        library(arguments.count, os.environ["GENRES_VAR_DIR"])
    else:
        for count in arguments.sizes:
            with_library = arguments.library_sizes is None or count in arguments.library_sizes
            with_before = arguments.before is not None and count in arguments.before_sizes
            measure(count, arguments.before, with_library, with_before)


if __name__ == "__main__":
    main()
