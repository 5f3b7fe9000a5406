"""Fault drills: a scoring run finishes on its own, every score once, after a fault in mid-run.

Each drill starts the app as a lab would (``python -m genres_site.serve``, one scoring worker,
a throw-away var directory, a free port), queues a run of synthetic outputs (offline embedder
and judge, ~40 chunks), injects one fault once a third of the chunks are done, then waits with
no manual step and prints: seconds from the fault to the run being done, scores expected vs
stored, chunk attempts, and the machine's load (os.getloadavg) at the fault and at the end.

    a  worker SIGKILL (with its work horse), embedded SQLite + Redis
    b  worker SIGKILL (with its work horse), PostgreSQL + Redis
    c  embedded Redis SIGKILL
    d  every database connection dropped (pg_terminate_backend), PostgreSQL + Redis
    e  a second worker SIGKILLed after taking a chunk's job and before starting it, embedded SQLite + Redis

Drills b and d use the PostgreSQL database genres_heal (dropped and created again) and Redis
database 2 (flushed) of the machine's servers; set DRILL_DATABASE_URL / DRILL_REDIS_URL for others.

    python -m benchmarks.fault_drills [--drills abcd] [--texts 600] [--chunk-texts 15]
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

BASE_DIR = Path(__file__).resolve().parent.parent
DATABASE_URL = os.environ.get("DRILL_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/genres_heal")
REDIS_URL = os.environ.get("DRILL_REDIS_URL", "redis://127.0.0.1:6379/2")
SYSTEMS = ("Copier", "Guesser", "Lister")
METRICS = ["us", "fs", "gs", "cs", "prf"]
FAULT_AT_SHARE = 1 / 3
GIVE_UP_SECONDS = 600
DRILLS = {
    "a": ("worker SIGKILL, embedded SQLite + Redis", False),
    "b": ("worker SIGKILL, PostgreSQL + Redis", True),
    "c": ("embedded Redis SIGKILL", False),
    "d": ("database connections dropped, PostgreSQL + Redis", True),
    "e": ("worker SIGKILL between taking and starting a job, embedded SQLite + Redis", False),
}
# Drill e's second worker: takes a job as rq's worker does (into the queue's intermediate list,
# its execution recorded), says which, and waits to be killed before forking a work horse.
TAKER = """
import os, time, django
django.setup()
from rq.worker import Worker
from scoring.jobs import queue
worker = Worker([queue()], connection=queue().connection, name=f"drill-taker-{os.getpid()}")
worker.register_birth()
job, _queue = worker.dequeue_job_and_maintain_ttl(timeout=5)
worker.prepare_execution(job)
print(job.id, flush=True)
time.sleep(600)
"""


def records(count):
    """Texts with gold triples, and three systems' outputs: copied, guessed and padded."""
    texts, outputs = [], {name: [] for name in SYSTEMS}
    for number in range(count):
        person, place = f"Person{number}", f"Town{number % 97}"
        gold = [[person, "born in", place], [person, "founded", f"Firm{number}"]]
        text = f"{person} was born in {place} and founded Firm{number} with two partners."
        texts.append({"id": f"d{number}", "text": text, "triples": gold})
        outputs["Copier"].append({"id": f"d{number}", "triples": gold})
        outputs["Guesser"].append({"id": f"d{number}", "triples": [[person, "lived in", f"Town{number % 13}"]]})
        outputs["Lister"].append({"id": f"d{number}", "triples": [*gold, [place, "has", f"Firm{number}"]]})
    return texts, outputs


def as_file(rows):
    from django.core.files.base import ContentFile

    return ContentFile("\n".join(json.dumps(row) for row in rows).encode(), name="rows.jsonl")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(condition, timeout, what, every=0.2):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no {what} within {timeout} s")
        time.sleep(every)


def listening(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def fresh_backends():
    """An empty genres_heal database and Redis database, for the drills on the machine's servers."""
    import psycopg
    import redis

    name = urlsplit(DATABASE_URL).path.lstrip("/")
    admin_url = DATABASE_URL.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    redis.Redis.from_url(REDIS_URL).flushdb()


# Faults -------------------------------------------------------------------------------------


def descendants(serve, *words):
    """serve's child processes whose command line holds every word (a worker and its work horse)."""
    return [
        process
        for process in serve.children(recursive=True)
        if all(word in " ".join(process.cmdline()) for word in words)
    ]


def kill(processes):
    for process in processes:
        process.send_signal(signal.SIGKILL)
    return f"SIGKILL to pid {', '.join(str(process.pid) for process in processes)}"


def kill_worker(serve):
    # The work horse runs in a process group of its own: a machine that dies takes both.
    return kill(descendants(serve, "rqworker", "default"))


def kill_redis(serve):
    return kill(descendants(serve, "redis-server"))


def drop_connections(serve):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return f"{cursor.fetchone()[0]} connections terminated"


def kill_a_worker_that_took_a_job(serve):
    taker = subprocess.Popen([sys.executable, "-c", TAKER], cwd=BASE_DIR, stdout=subprocess.PIPE, text=True)
    job_id = taker.stdout.readline().strip()
    taker.send_signal(signal.SIGKILL)
    taker.wait()
    return f"SIGKILL to pid {taker.pid}, which had taken job {job_id}"


FAULTS = {
    "a": kill_worker,
    "b": kill_worker,
    "c": kill_redis,
    "d": drop_connections,
    "e": kill_a_worker_that_took_a_job,
}


# One drill, in a process of its own -----------------------------------------------------------


def run_drill(letter, texts, chunk_texts):
    import psutil

    title, on_postgres = DRILLS[letter]
    var_dir = Path(tempfile.mkdtemp(prefix=f"genres-drill-{letter}-"))
    os.environ.update(GENRES_VAR_DIR=str(var_dir), DJANGO_SETTINGS_MODULE="genres_site.settings")
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    if on_postgres:
        fresh_backends()
        os.environ.update(DATABASE_URL=DATABASE_URL, REDIS_URL=REDIS_URL)
    import django

    django.setup()
    from django.core.management import call_command

    from scoring.genres.scorer import ScoreSettings
    from scoring.imports import import_dataset, import_outputs
    from scoring.jobs import enqueue_run
    from scoring.models import Dataset, Output, System
    from scoring.models.runs import RunChunk, ScoringRun
    from scoring.models.scores import TextScore

    call_command("migrate", verbosity=0)
    dataset_rows, outputs = records(texts)
    import_dataset(as_file(dataset_rows), file_name="drill.jsonl", name="drill")
    for system, rows in outputs.items():
        import_outputs(as_file(rows), file_name=f"{system}.jsonl", dataset="drill", system_name=system)

    port = free_port()
    log = open(var_dir / "serve.log", "w")
    serve = subprocess.Popen(
        [sys.executable, "-m", "genres_site.serve", "--port", str(port), "--workers", "1", "--web-workers", "1"],
        cwd=BASE_DIR,
        stdout=log,
        stderr=subprocess.STDOUT,
        process_group=0,
    )
    try:
        wait_for(lambda: listening(port), 180, "web server")
        dataset = Dataset.objects.get(name="drill")
        systems = System.objects.filter(name__in=SYSTEMS)
        run = ScoringRun.create(dataset, systems, METRICS, ScoreSettings(), chunk_texts=chunk_texts)
        enqueue_run(run)
        started = time.monotonic()
        chunks = RunChunk.objects.filter(run=run)
        total = chunks.count()

        def time_for_the_fault():
            done = chunks.filter(status="done").count()
            if done == total:
                raise RuntimeError(f"the run ended before a chunk could be interrupted: give more --texts than {texts}")
            return done >= total * FAULT_AT_SHARE and chunks.filter(status="running").exists()

        # A chunk takes a fraction of a second: look often, so the fault lands while one runs.
        wait_for(time_for_the_fault, GIVE_UP_SECONDS, "third of the chunks done", every=0.02)
        done_at_fault = chunks.filter(status="done").count()
        load_at_fault = os.getloadavg()
        fault = FAULTS[letter](psutil.Process(serve.pid))
        faulted = time.monotonic()

        def over():
            run.refresh_from_db()
            return not run.is_active

        try:
            wait_for(over, GIVE_UP_SECONDS, "finished run")
        except TimeoutError:
            pass
        ended = time.monotonic()
        expected = Output.objects.filter(text__dataset=dataset, system__in=systems).count() * len(METRICS)
        scores = TextScore.objects.filter(run=run)
        return {
            "drill": f"{letter}: {title}",
            "fault": fault,
            "chunks": total,
            "done_at_fault": done_at_fault,
            "status": run.status,
            "error": run.error,
            "seconds_before_fault": round(faulted - started, 1),
            "seconds_fault_to_done": round(ended - faulted, 1) if run.status == "done" else None,
            "scores_expected": expected,
            "scores_stored": scores.count(),
            "scores_distinct": scores.values("output", "metric").distinct().count(),
            "chunk_attempts": dict(sorted(Counter(chunks.values_list("attempts", flat=True)).items())),
            "load_at_fault": [round(value, 2) for value in load_at_fault],
            "load_at_end": [round(value, 2) for value in os.getloadavg()],
            "manual_steps": 0,
        }
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        try:
            serve.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait()
        log.close()


def report(result):
    took = result["seconds_fault_to_done"]
    print(
        f"{result['drill']}\n"
        f"  fault after {result['seconds_before_fault']} s, {result['done_at_fault']}/{result['chunks']} chunks done: "
        f"{result['fault']}\n"
        f"  run {result['status']}" + (f" {took} s after the fault" if took is not None else "") + "\n"
        f"  scores expected {result['scores_expected']}, stored {result['scores_stored']} "
        f"({result['scores_distinct']} distinct output/metric pairs)\n"
        f"  chunk attempts {result['chunk_attempts']}; load at fault {result['load_at_fault']}, "
        f"at end {result['load_at_end']}; manual steps {result['manual_steps']}"
        + (f"\n  error: {result['error']}" if result["error"] else ""),
        flush=True,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drills", default="abcde", help="which drills, by letter (default abcde)")
    parser.add_argument("--texts", type=int, default=600, help="texts in the dataset (default 600)")
    parser.add_argument("--chunk-texts", type=int, default=15, help="texts a chunk (default 15)")
    parser.add_argument("--one", choices=list(DRILLS), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.one:
        print(json.dumps(run_drill(options.one, options.texts, options.chunk_texts)))
        return
    failed = []
    for letter in options.drills:
        # Each drill in a process of its own: its own settings, database and var directory.
        one = [sys.executable, "-m", "benchmarks.fault_drills", "--one", letter]
        sizes = ["--texts", str(options.texts), "--chunk-texts", str(options.chunk_texts)]
        finished = subprocess.run([*one, *sizes], cwd=BASE_DIR, capture_output=True, text=True)
        if finished.returncode != 0:
            print(f"{letter}: {DRILLS[letter][0]}: the drill itself failed\n{finished.stderr[-2000:]}", flush=True)
            failed.append(letter)
            continue
        result = json.loads(finished.stdout.strip().splitlines()[-1])
        report(result)
        if result["status"] != "done" or result["scores_stored"] != result["scores_expected"]:
            failed.append(letter)
    if failed:
        sys.exit(f"drills not recovered: {', '.join(failed)}")


if __name__ == "__main__":
    main()
