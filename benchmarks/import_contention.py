"""A big dataset imported through the API while annotators save and token clients read, before and after batching.

    python -m benchmarks.import_contention [--texts 200000] [--annotators 5] [--think 1]
                                           [--pollers 2] [--before REF] [--database sqlite|postgres://…]

For each of two checkouts, the commit ``--before`` (default: the last commit that imported in one
transaction, its files extracted to a temporary directory) and this one, starts the app as ``make demo`` does
(``benchmarks.load.App``: SQLite or ``--database``, the embedded Redis, the workers), loads a small
study (the demo's sentences ``--copies`` times, an open campaign for ``--annotators`` accounts),
then POSTs a JSON Lines dataset of ``--texts`` texts (one gold triple each: 200,000 make some 19 MB)
to ``/api/datasets/`` with an admin's token. A worker imports it as a job. Meanwhile
``--pollers`` token clients each GET ``/api/uploads/<id>/`` and ``/api/datasets/`` every
``--poll-every`` seconds, and from the moment the upload's status says "storing" (reading the
file takes no lock; their queues would run out before) the annotators judge as a browser does
(``benchmarks.load.annotate``, ``--think`` seconds before each save), until the upload has ended. Prints, for both checkouts side by side: the
import's total time (the POST's answer, then the upload's status polled until it has ended), the
saves' p50/p95/max, the token API's requests and errors, every other request's errors, and the
machine's load average before and after each run.
"""

import argparse
import asyncio
import json
import os
import random
import re
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from benchmarks.load import REPOSITORY, App, Figures, Session, annotate, percentile, write_dataset

# The last commit whose imports wrote everything in one transaction.
BEFORE_BATCHING = "29ff752"
DATASET = "Import under load"
WORDS = ["river", "city", "museum", "treaty", "novel", "engine", "protein", "valley", "bridge", "council", "orbit"]
STATUS_POLL_SECONDS = 0.25
UPLOAD_TIMEOUT_SECONDS = 600
SAVES = ("save", "save completeness")


def dataset_file(count):
    """``count`` JSON Lines texts from a fixed seed, one gold triple each."""
    rng = random.Random(2026)
    lines = []
    for number in range(count):
        subject, thing = rng.sample(WORDS, 2)
        lines.append(
            json.dumps(
                {"text": f"T{number}: the {subject} is near the {thing}.", "triples": [[subject, "near", thing]]}
            )
        )
    return ("\n".join(lines) + "\n").encode()


async def poll_token_api(base_url, key, figures, upload, stop, every):
    """GET the upload's status and the dataset list with the token until stopped."""
    session = Session(base_url, figures)
    headers = {"Authorization": f"Token {key}"}
    while not stop.is_set():
        if upload:
            await session.request("token: GET /api/uploads/<id>/", "GET", upload["status_url"], (200,), headers=headers)
        await session.request("token: GET /api/datasets/", "GET", "/api/datasets/", (200,), headers=headers)
        try:
            await asyncio.wait_for(stop.wait(), every)
        except TimeoutError:
            pass
    await session.client.aclose()


async def import_while_busy(app, study, password, key, data, options):
    """POST the dataset, keep annotators and pollers busy until its upload has ended; figures and seconds."""
    figures, stop, upload = Figures(), asyncio.Event(), {}
    annotators = [Session(app.url, figures) for _ in study["annotators"]]
    for session, username in zip(annotators, study["annotators"], strict=True):
        await session.sign_in(username, password)
    continue_url = f"/annotate/campaigns/{study['campaign']}/next/"
    pollers = [
        asyncio.create_task(poll_token_api(app.url, key, figures, upload, stop, options.poll_every))
        for _ in range(options.pollers)
    ]
    saving = []
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=app.url, timeout=UPLOAD_TIMEOUT_SECONDS) as client:
        headers = {"Authorization": f"Token {key}"}
        reply = await client.post(
            "/api/datasets/", headers=headers, data={"name": DATASET}, files={"file": ("big.jsonl", data)}
        )
        if reply.status_code not in (201, 202):
            raise SystemExit(f"the upload was refused: HTTP {reply.status_code} {reply.text[:300]}")
        state = reply.json()
        upload.update(state)
        stages = {}  # stage -> seconds from the POST when first seen
        while state.get("active"):
            stages.setdefault(state["stage"], time.monotonic() - started)
            if state["stage"] == "storing" and not saving:  # the annotators' queues last the storing
                far = time.monotonic() + UPLOAD_TIMEOUT_SECONDS
                saving = [
                    asyncio.create_task(annotate(session, continue_url, far, options.think, random.Random(number)))
                    for number, session in enumerate(annotators)
                ]
            await asyncio.sleep(STATUS_POLL_SECONDS)
            state = (await client.get(upload["status_url"], headers=headers)).json()
    seconds = time.monotonic() - started
    state["stages"] = stages
    stop.set()
    for task in saving:
        task.cancel()
    await asyncio.gather(*saving, *pollers, return_exceptions=True)
    for session in annotators:
        await session.client.aclose()
    return figures, seconds, state


def run_checkout(label, checkout, data, options):
    """One run on ``checkout``: the figures of its import under load, as a dict of printable columns."""
    app = App(options, checkout)
    password = secrets.token_urlsafe(12)
    try:
        print(f"{label}: starting the app from {checkout} in {app.var_dir}", flush=True)
        app.start()
        app.manage("load_demo", "--manifest", str(write_dataset(app.var_dir, options.copies)), "--json")
        study = app.shell(f"from benchmarks.load import create_study; create_study({options.annotators}, {password!r})")
        key = app.shell(ISSUE_ADMIN_TOKEN)
        load_before = os.getloadavg()
        print(f"{label}: importing {options.texts:,} texts under load", flush=True)
        figures, seconds, state = asyncio.run(import_while_busy(app, study, password, key, data, options))
        load_after = os.getloadavg()
        batches = re.search(
            rf"Imported {DATASET} in (\d+) batches, the longest (\d+) ms",
            (app.var_dir / "serve.log").read_text(errors="replace"),
        )
    finally:
        app.stop()
    state["batches"] = f"{batches.group(1)}, longest {batches.group(2)} ms" if batches else "one transaction"
    return column(figures, seconds, state, load_before, load_after)


# Run in the app (manage.py shell; the checkout compared with lacks this module): a superuser's token.
ISSUE_ADMIN_TOKEN = (
    "import json, secrets; from django.contrib.auth import get_user_model; from scoring.models import ApiToken; "
    "admin = get_user_model().objects.create_superuser('import-admin', 'import-admin@example.org', secrets.token_urlsafe()); "
    "print(json.dumps(ApiToken.issue(admin)[1]))"
)


def column(figures, seconds, state, load_before, load_after):
    saves = [1000 * value for kind in SAVES for value in figures.latencies[kind]]

    def saves_at(share):
        return f"{percentile(saves, share):.0f} ms" if saves else "none answered"

    token_kinds = [kind for kind in figures.latencies if kind.startswith("token")]
    token_requests = sum(len(figures.latencies[kind]) for kind in token_kinds)
    token_errors = sum(count for (kind, _reason), count in figures.errors.items() if kind.startswith("token"))
    other_errors = sum(count for (kind, _reason), count in figures.errors.items() if not kind.startswith("token"))
    return {
        "import outcome": state["outcome"] if state["outcome"] != "failed" else f"failed: {state['message'][:200]}",
        "import total": f"{seconds:.1f} s",
        "import writes": state["batches"],
        "storing began at": f"{state['stages'].get('storing', float('nan')):.1f} s",
        "saves answered": f"{len(saves)}",
        "save p50": saves_at(0.5),
        "save p95": saves_at(0.95),
        "save max": saves_at(1.0),
        "token API requests": f"{token_requests + token_errors}",
        "token API errors": f"{token_errors}",
        "other errors": f"{other_errors}",
        "error kinds": "; ".join(f"{kind}: {reason} ×{count}" for (kind, reason), count in figures.errors.items())
        or "none",
        "load before": " ".join(f"{value:.2f}" for value in load_before),
        "load after": " ".join(f"{value:.2f}" for value in load_after),
    }


def source_tree_of(ref):
    """The files of commit ``ref`` in a temporary directory (``git archive``: the repository is left as it is)."""
    path = Path(tempfile.mkdtemp(prefix="genres-before-"))
    archive = subprocess.run(["git", "archive", ref], cwd=REPOSITORY, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(path)], input=archive, check=True)
    return path


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.import_contention", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--texts", type=int, default=200_000)
    parser.add_argument("--annotators", type=int, default=5)
    parser.add_argument("--think", type=float, default=1.0, help="seconds before each save (default 1)")
    parser.add_argument("--pollers", type=int, default=2, help="token clients polling the API (default 2)")
    parser.add_argument("--poll-every", type=float, default=1.0, help="seconds between a poller's rounds (default 1)")
    parser.add_argument("--copies", type=int, default=3, help="copies of the 40 demo sentences to annotate (default 3)")
    parser.add_argument("--before", default=BEFORE_BATCHING, help="the commit to compare with ('' to skip)")
    parser.add_argument("--skip-after", action="store_true", help="run the commit --before only")
    parser.add_argument("--database", default="sqlite", help="sqlite (default) or a postgres:// URL, recreated")
    parser.add_argument("--redis-url", default="", help="a Redis database to use and flush (default: embedded)")
    parser.add_argument("--web-workers", type=int, default=0, help="web worker processes (default: the server's)")
    return parser.parse_args(argv)


def main(argv=None):
    options = parse_arguments(argv)
    data = dataset_file(options.texts)
    database = "SQLite" if options.database == "sqlite" else "PostgreSQL"
    print(f"{options.texts:,} texts ({len(data) / 1e6:.1f} MB) through POST /api/datasets/; {options.annotators} "
          f"annotators (think {options.think:g} s), {options.pollers} token clients every {options.poll_every:g} s; "
          f"{database}; {os.cpu_count()} cores", flush=True)  # fmt: skip
    columns = {}
    if options.before:
        checkout = source_tree_of(options.before)
        try:
            columns[f"before ({options.before})"] = run_checkout("before", checkout, data, options)
        finally:
            shutil.rmtree(checkout, ignore_errors=True)
    if not options.skip_after:
        columns["after (batches)"] = run_checkout("after", REPOSITORY, data, options)
    print()
    print(f"{'':<22}" + "".join(f"{label:>28}" for label in columns))
    for row in next(iter(columns.values())):
        if row != "error kinds":
            print(f"{row:<22}" + "".join(f"{values[row]:>28}" for values in columns.values()))
    for label, values in columns.items():
        print(f"{label} errors: {values['error kinds']}")


if __name__ == "__main__":
    main()
