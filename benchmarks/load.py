"""Load benchmark: annotators saving judgements and a researcher watching the leaderboard, over HTTP.

    python -m benchmarks.load [--annotators 20] [--duration 60] [--database sqlite|postgres://…]
                              [--redis-url redis://…] [--think 0 | --think 2-5] [--web-workers N]
                              [--cost-seconds 30] [--baseline REV]

Starts the app as a lab would (``python -m genres_site.serve --demo`` on a free port, in a
temporary GENRES_VAR_DIR; ``--web-workers`` when the server has it), then sets up a study
through the app's own services: the dataset "load-benchmark" (the demo's sentences, copied
``--copies`` times, with the demo systems' outputs) imported and scored by ``load_demo
--manifest``, and an open campaign over all its texts and system pairs, Ground truth
included, for ``--annotators`` accounts and one staff researcher.

Then, for ``--duration`` seconds, every annotator loops as a browser does (a bounded asyncio
client: one connection and one request in flight per annotator): the queue's next item (a
redirect), the item page, a save of the aspects it asks for (the form POSTed with ``Accept:
application/json``, as static/js/annotate.js sends it; the first four aspects, and
completeness in a second POST once the text's reference triples are shown), then on to the
page the answer names. The labels are random; the think time before each save is ``--think``
(0: a closed loop, every annotator starting at once; ``2-5``: drawn evenly between 2 and 5 s
before each save, paced annotators, who also arrive spread over the first 5 s, as people
opening their link do, not all within the same 0.2 s). The researcher polls leaderboard.json and the leaderboard page of that
dataset all along, and on after the end until every acknowledged judgement is counted there
(at most ``--visible-wait``).

Prints p50/p95/p99 per request kind, throughput, errors, the machine's load (os.getloadavg
before and after; the client runs on the same machine), the CPU time the web server used per
request and the leaderboard worker's (from /proc: steadier than latencies on a shared machine), and checks against the database:
every acknowledged judgement stored once with the label sent (0 lost, 0 duplicated), and how
long a saved judgement took to show in leaderboard.json's judgement count, and how long the
leaderboard builds took (from the worker's log). Then, for ``--cost-seconds``, one annotator
alone: the web server's CPU read before and after each request gives its CPU per request kind
(next item, item page, save), the stack's whole cost with nothing else served. Exits 1 when a
judgement was lost or duplicated.

``--baseline REV`` runs everything twice: first on an export of that git revision (its server,
its set-up commands; this file's client), then on the working tree, and ends with a table of
both runs' headline figures side by side.

With ``--database postgres://…/NAME`` the database NAME is dropped and created afresh (and
dropped at the end); with ``--redis-url`` that Redis database is flushed first (use a
database number of your own). Without them: SQLite and the embedded Redis, as ``make demo``.
"""

import argparse
import asyncio
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

REPOSITORY = Path(__file__).resolve().parent.parent
DATASET = "load-benchmark"
SOURCE_DATASET = "demo-sentences"
CAMPAIGN = "load benchmark"
RESEARCHER = "load-researcher"
SIDES = ("left", "tie", "right")
SERVER_READY_SECONDS = 600
REQUEST_TIMEOUT_SECONDS = 60
RESEARCHER_POLL_SECONDS = 0.5
STOP_SECONDS = 60
# Idle connections are reused for less than the server's keep-alive (gunicorn_conf: 5 s), as
# browsers do: a request sent on a connection the server is closing fails (RemoteProtocolError),
# which happened to an annotator left idle while the others signed in on a loaded machine.
KEEPALIVE_SECONDS = 4
# The report gives the latencies after this many seconds apart: the start's burst is in the first.
WARM_AFTER_SECONDS = 10

# The item page, read as annotate.js reads it: the form, its hidden fields and the aspects' radios.
FORM_ACTION = re.compile(r'<form method="post" action="([^"]+)" id="judgement-form"')
HIDDEN = re.compile(r'<input type="hidden" name="(csrfmiddlewaretoken|version|opened_at)" value="([^"]*)"')
# A locked (disabled) aspect is final: neither chosen nor sent, as the browser leaves it out of the form.
FIELDSET = re.compile(r'<fieldset class="aspect[^"]*" data-aspect="(\w+)"( disabled)?>(.*?)</fieldset>', re.S)
CHECKED = re.compile(r'value="(\w+)" checked')
PUBLIC_ID = re.compile(r"/annotate/([0-9a-f-]{36})/")


# --- Study set-up: run inside the app (manage.py shell), on the server's own database -------------


def create_study(annotators, password):
    """Accounts and the open campaign over the whole benchmark dataset; prints what the client needs."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from annotation.services.campaigns import create_campaign
    from scoring.models import Dataset, System

    user_model = get_user_model()
    hashed = make_password(password)  # once: hashing it per account would dominate the set-up
    names = [f"load-annotator-{number:03d}" for number in range(1, annotators + 1)]
    users = user_model.objects.bulk_create(user_model(username=name, password=hashed) for name in names)
    user_model.objects.create(username=RESEARCHER, password=hashed, is_staff=True)
    dataset = Dataset.objects.get(name=DATASET)
    created = create_campaign(
        name=CAMPAIGN,
        dataset=dataset,
        systems=System.objects.filter(outputs__text__dataset=dataset).distinct(),
        annotators=users,
        seed=2026,
        overlap_share=0.5,
        sample_size=dataset.texts.count(),
    )
    campaign = created.campaign
    print(json.dumps({"campaign": campaign.pk, "annotators": names, "items": campaign.items.count()}))


def print_stored_judgements(campaign_id):
    """Every stored judgement of the campaign as the annotator saw it: [public id, aspect, side shown]."""
    from annotation.models import Judgement

    rows = Judgement.objects.filter(assignment__item__campaign_id=campaign_id).select_related("assignment")
    print(json.dumps([[str(j.assignment.public_id), j.aspect, j.assignment.canonical_to_shown(j.label)] for j in rows]))


def write_dataset(directory, copies):
    """The demo's sentences ``copies`` times over, with each demo system's outputs; returns a manifest."""
    from scoring.genres.formats import read_dataset, read_outputs

    fixtures = REPOSITORY / "fixtures"
    demo = json.loads((fixtures / "manifest.json").read_text(encoding="utf-8"))
    entry = next(entry for entry in demo["datasets"] if entry["name"] == SOURCE_DATASET)
    records = read_dataset((fixtures / entry["file"]).read_bytes(), entry["format"]).records

    def copy_of(text, number):
        return text if number == 0 else f"{text} (Copy {number + 1}.)"

    lines = [
        json.dumps(
            {"id": f"{record.text_id}-{number + 1}", "text": copy_of(record.text, number), "triples": record.triples}
        )
        for number in range(copies)
        for record in records
    ]
    (directory / "dataset.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    manifest = {
        "datasets": [{**entry, "file": "dataset.jsonl", "name": DATASET, "description": "Load benchmark."}],
        "outputs": [],
        "scoring": [{**entry, "dataset": DATASET} for entry in demo["scoring"] if entry["dataset"] == SOURCE_DATASET],
    }
    for number, outputs in enumerate(entry for entry in demo["outputs"] if entry["dataset"] == SOURCE_DATASET):
        parsed = read_outputs((fixtures / outputs["file"]).read_bytes(), outputs["format"]).records
        copied = {copy_of(record.text, copy): record.triples for copy in range(copies) for record in parsed}
        name = f"outputs-{number}.json"
        (directory / name).write_text(json.dumps(copied), encoding="utf-8")
        manifest["outputs"].append({**outputs, "file": name, "dataset": DATASET, "format": "triples"})
    path = directory / "manifest.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return path


# --- The server ---------------------------------------------------------------------------------------


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def recreate_postgres_database(url, drop_only=False):
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(parts._replace(path="/postgres").geturl(), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            connection.execute(f'CREATE DATABASE "{name}"')


def serve_options(checkout):
    """What the checkout's serve command accepts (``--web-workers`` arrived with the multi-process server)."""
    return subprocess.run(
        [sys.executable, "-m", "genres_site.serve", "--help"], cwd=checkout, capture_output=True, text=True
    ).stdout


class App:
    """The app under test, started as ``make demo`` starts it, plus manage.py commands on its database."""

    def __init__(self, options, checkout=REPOSITORY, checkout_name="working tree"):
        self.checkout, self.checkout_name = checkout, checkout_name
        self.var_dir = Path(tempfile.mkdtemp(prefix="genres-load-"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ, GENRES_VAR_DIR=str(self.var_dir), PYTHONUNBUFFERED="1")
        self.env.pop("DATABASE_URL", None)
        self.env.pop("REDIS_URL", None)
        self.database_url = options.database if options.database != "sqlite" else None
        if self.database_url:
            recreate_postgres_database(self.database_url)
            self.env["DATABASE_URL"] = self.database_url
        if options.redis_url:
            import redis

            redis.Redis.from_url(options.redis_url).flushdb()
            self.env["REDIS_URL"] = options.redis_url
        self.command = [sys.executable, "-m", "genres_site.serve", "--demo", "--port", str(self.port)]
        if options.web_workers and "--web-workers" in serve_options(checkout):
            self.command += ["--web-workers", str(options.web_workers)]
        self.server_name = "gunicorn + uvicorn" if "--web-workers" in serve_options(checkout) else "daphne"
        self.log = (self.var_dir / "serve.log").open("w")
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            self.command,
            cwd=self.checkout,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + SERVER_READY_SECONDS
        while "GENRES Arena is running at" not in (self.var_dir / "serve.log").read_text(errors="replace"):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start; its output is in {self.log.name}")
            time.sleep(0.5)
        # The children (set-up commands) reach the embedded Redis as the server's own children do.
        self.env.setdefault("REDIS_URL", f"unix://{self.var_dir / 'redis.sock'}")

    def manage(self, *args):
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=self.checkout, env=self.env, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SystemExit(f"manage.py {args[0]} failed:\n{done.stderr[-3000:]}")
        return done.stdout

    def shell(self, code):
        return json.loads(self.manage("shell", "-c", code).strip().splitlines()[-1])

    def logged_errors(self):
        """Distinct exception lines of the server's log (``Error: message``), with how often each came."""
        lines = (self.var_dir / "serve.log").read_text(errors="replace").splitlines()
        return Counter(line.split("] ", 1)[-1] for line in lines if re.match(r"^\[[\w-]+\] \w+(\.\w+)*Error: ", line))

    def cpu_seconds(self):
        """CPU seconds used so far by the app's web server and its leaderboard worker, from /proc.

        The processes of the server's session (``serve`` starts one), each with the children it
        reaped: the leaderboard worker's includes the builds it forked. Empty where there is no /proc.
        """
        used = Counter()
        for entry in Path("/proc").glob("[0-9]*"):
            try:
                stat = (entry / "stat").read_text()
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:  # gone meanwhile
                continue
            # After "(command name)": state, ppid, pgrp, session, …, utime, stime, cutime, cstime (11-14).
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[3]) != self.process.pid:
                continue
            role = "web" if "gunicorn" in command else "leaderboard" if "rqworker leaderboard" in command else None
            if role:
                used[role] += sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")
        return used

    def builds(self) -> list[tuple[float, float | None]]:
        """Each leaderboard build of the benchmark's dataset as its worker logged it: (seconds, CPU seconds).

        CPU is None where the worker does not log it (older versions).
        """
        built = re.compile(rf"Built \d+ leaderboards of {DATASET} in ([\d.]+) s(?: \(CPU ([\d.]+) s\))?")
        log = (self.var_dir / "serve.log").read_text(errors="replace")
        return [
            (float(match.group(1)), float(match.group(2)) if match.group(2) else None) for match in built.finditer(log)
        ]

    def snapshot_writes(self) -> list[tuple[float, float]]:
        """Each store of the benchmark dataset's snapshots as the worker logged it: (kB, milliseconds)."""
        stored = re.compile(rf"Stored \d+ leaderboards of {DATASET} \(([\d.]+) kB\) in ([\d.]+) ms")
        log = (self.var_dir / "serve.log").read_text(errors="replace")
        return [(float(match.group(1)), float(match.group(2))) for match in stored.finditer(log)]

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.log.close()
        if self.database_url:
            recreate_postgres_database(self.database_url, drop_only=True)
        shutil.rmtree(self.var_dir, ignore_errors=True)


# --- The client ---------------------------------------------------------------------------------------


@dataclass
class Figures:
    latencies: dict = field(default_factory=lambda: defaultdict(list))  # kind → seconds
    sent: dict = field(default_factory=lambda: defaultdict(list))  # kind → when each was sent (monotonic)
    errors: Counter = field(default_factory=Counter)  # (kind, reason) → count
    acknowledged: dict = field(default_factory=dict)  # (public id, aspect) → side saved
    acks: list = field(default_factory=list)  # (time, judgements acknowledged so far)
    polls: list = field(default_factory=list)  # (time answered, judgement count on the leaderboard)
    cpu: Counter = field(default_factory=Counter)  # role → CPU seconds the server used during the run
    costs: Counter = field(default_factory=Counter)  # kind → web server CPU seconds, read around each request
    costed: Counter = field(default_factory=Counter)  # kind → requests whose CPU was read


class Session:
    """One signed-in browser: its own cookies and one connection (a new one per request without keep-alive)."""

    def __init__(self, base_url, figures, keep_alive=True, web_cpu=None):
        # Given, the web server's CPU seconds so far: read before and after each request, which
        # is then the server's only one (``request_costs``).
        self.web_cpu = web_cpu
        self.client = httpx.AsyncClient(
            base_url=base_url,
            timeout=REQUEST_TIMEOUT_SECONDS,
            limits=httpx.Limits(
                max_connections=1,
                max_keepalive_connections=1 if keep_alive else 0,
                keepalive_expiry=KEEPALIVE_SECONDS,
            ),
            follow_redirects=False,
        )
        self.figures = figures

    async def sign_in(self, username, password):
        page = await self.client.get("/accounts/login/")
        form = dict(HIDDEN.findall(page.text))
        answer = await self.client.post("/accounts/login/", data={**form, "username": username, "password": password})
        if answer.status_code != 302:
            raise SystemExit(f"{username} could not sign in (HTTP {answer.status_code})")

    async def request(self, kind, method, url, expected, **arguments):
        """The response when its status is one of ``expected``; otherwise the error is counted and None returned."""
        cpu_before = self.web_cpu() if self.web_cpu else 0.0
        started = time.monotonic()
        try:
            response = await self.client.request(method, url, **arguments)
        except Exception as error:  # a timeout, a refused or reset connection: all errors to the user
            self.figures.errors[kind, type(error).__name__] += 1
            return None
        self.figures.latencies[kind].append(time.monotonic() - started)
        self.figures.sent[kind].append(started)
        if self.web_cpu:
            self.figures.costs[kind] += self.web_cpu() - cpu_before
            self.figures.costed[kind] += 1
        if response.status_code not in expected:
            self.figures.errors[kind, f"HTTP {response.status_code}"] += 1
            return None
        return response


def chosen_side(fieldset):
    checked = CHECKED.search(fieldset)
    return checked.group(1) if checked else None


def read_item_page(html):
    """The form's URL, its hidden fields, and the side already chosen (or None) for each aspect to send."""
    aspects = {code: chosen_side(body) for code, disabled, body in FIELDSET.findall(html) if not disabled}
    return FORM_ACTION.search(html).group(1), dict(HIDDEN.findall(html)), aspects


async def annotate(session, continue_url, deadline, think, rng):
    """Judge items until the deadline or the end of the queue, going where the item page's script goes."""
    figures = session.figures
    url = continue_url
    await asyncio.sleep(rng.uniform(0, think[1]))  # paced annotators arrive one by one; a closed loop at once
    while time.monotonic() < deadline:
        if not PUBLIC_ID.search(url):  # the queue's own URL: a redirect to the next item, or home at the end
            redirect = await session.request("next item", "GET", url, (302,))
            if redirect is None:
                await asyncio.sleep(1)
                continue
            url = redirect.headers["location"]
            if not PUBLIC_ID.search(url):
                return
        page = await session.request("item page", "GET", url, (200,))
        if page is None:
            url = continue_url
            continue
        action, form, aspects = read_item_page(page.text)
        to_judge = [code for code, side in aspects.items() if side is None]
        url = continue_url
        if not to_judge:
            continue
        waited = rng.uniform(*think)
        await asyncio.sleep(waited)
        labels = {code: side or rng.choice(SIDES) for code, side in aspects.items()}
        answer = await session.request(
            "save completeness" if "cs" in to_judge else "save", "POST", action, (200,),
            data={**form, **labels, "seconds": f"{waited:.1f}"},
            headers={"Accept": "application/json"},
        )  # fmt: skip
        if answer is None:
            continue
        public_id = PUBLIC_ID.search(action).group(1)
        for code in to_judge:
            figures.acknowledged[public_id, code] = labels[code]
        figures.acks.append((time.monotonic(), len(figures.acknowledged)))
        # A finished stage of the pair names what comes next: the next item, or the queue at its end.
        url = answer.json()["next_url"] or continue_url


def judgement_count(payload):
    """Judgements the leaderboard counts; none while its first build is under way (HTTP 202)."""
    return payload["human"]["judgements"] if "human" in payload else 0


async def watch_leaderboard(session, dataset, stop, wait_for_all, visible_wait):
    """Poll leaderboard.json and the page until stopped, then the JSON until it counts every acknowledged judgement."""
    figures = session.figures
    json_url, page_url = f"/api/datasets/{dataset}/leaderboard.json", f"/leaderboard/{dataset}/"
    caught_up_by = None
    while True:
        answer = await session.request("leaderboard.json", "GET", json_url, (200, 202))
        if answer is not None:
            figures.polls.append((time.monotonic(), judgement_count(answer.json())))
        if stop.is_set():
            caught_up_by = caught_up_by or time.monotonic() + visible_wait
            if (figures.polls and figures.polls[-1][1] >= wait_for_all()) or time.monotonic() > caught_up_by:
                return
        else:
            await session.request("leaderboard page", "GET", page_url, (200,))
        await asyncio.sleep(RESEARCHER_POLL_SECONDS)


async def run_load(base_url, study, password, options, cpu_seconds):
    figures = Figures()
    annotators = [Session(base_url, figures) for _ in study["annotators"]]
    researcher = Session(base_url, figures)
    for session, username in zip(annotators, study["annotators"], strict=True):
        await session.sign_in(username, password)
    await researcher.sign_in(RESEARCHER, password)

    continue_url = f"/annotate/campaigns/{study['campaign']}/next/"
    load_before, cpu_before = os.getloadavg(), cpu_seconds()
    started = time.monotonic()
    deadline = started + options.duration
    stop = asyncio.Event()
    watcher = asyncio.create_task(
        watch_leaderboard(researcher, DATASET, stop, lambda: len(figures.acknowledged), options.visible_wait)
    )
    await asyncio.gather(
        *(annotate(session, continue_url, deadline, options.think, random.Random(number))
          for number, session in enumerate(annotators))
    )  # fmt: skip
    elapsed = time.monotonic() - started
    load_after = os.getloadavg()
    figures.cpu = cpu_seconds() - cpu_before
    stop.set()
    await watcher
    for session in [*annotators, researcher]:
        await session.client.aclose()
    if options.cost_seconds:
        await request_costs(base_url, study, password, options, cpu_seconds, figures)
    return figures, elapsed, load_before, load_after


async def request_costs(base_url, study, password, options, cpu_seconds, figures):
    """The web server's CPU per request kind: one annotator alone, no think time, for
    ``--cost-seconds``, the server's CPU read from /proc before and after each request.

    /proc counts in clock ticks (10 ms): each reading is off by less than one, evenly either way,
    so the mean over a few hundred requests is within a fraction of a millisecond.
    """
    alone = Figures()
    session = Session(base_url, alone, web_cpu=lambda: cpu_seconds()["web"])
    await session.sign_in(study["annotators"][0], password)
    continue_url = f"/annotate/campaigns/{study['campaign']}/next/"
    await annotate(session, continue_url, time.monotonic() + options.cost_seconds, (0, 0), random.Random(0))
    await session.client.aclose()
    figures.costs, figures.costed = alone.costs, alone.costed
    # Checked against the database with the others; not in the leaderboard's delays (no one watched).
    figures.acknowledged.update(alone.acknowledged)


# --- Report -------------------------------------------------------------------------------------------


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def visibility_delays(acks, polls):
    """For each acknowledged save: seconds until a leaderboard.json answer counted it; None if none did."""
    delays, poll = [], 0
    for acked_at, count in acks:
        while poll < len(polls) and (polls[poll][0] < acked_at or polls[poll][1] < count):
            poll += 1
        delays.append(polls[poll][0] - acked_at if poll < len(polls) else None)
    return delays


def report(figures, elapsed, load_before, load_after, stored, options, app):
    database = "SQLite" if options.database == "sqlite" else "PostgreSQL"
    redis = "external" if options.redis_url else "embedded"
    least, most = options.think
    think = f"{least:g}" if least == most else f"{least:g}-{most:g}"
    print(f"\n{app.checkout_name}: {options.annotators} annotators × {options.duration:.0f} s, think {think} s; "
          f"{database}, Redis {redis}, {app.server_name}; {os.cpu_count()} cores")  # fmt: skip
    print(f"{'request':<20}{'count':>8}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}{'errors':>8}")
    errors_by_kind = Counter()
    for (kind, _reason), count in figures.errors.items():
        errors_by_kind[kind] += count
    for kind in sorted(set(figures.latencies) | set(errors_by_kind)):
        values = [1000 * value for value in figures.latencies[kind]] or [float("nan")]
        quantiles = "".join(f"{percentile(values, share):>9.0f}" for share in (0.5, 0.95, 0.99))
        print(f"{kind:<20}{len(figures.latencies[kind]):>8}{quantiles}{max(values):>9.0f}{errors_by_kind[kind]:>8}")
    # The first seconds hold the start's burst (every annotator's first page at once, each web
    # process's first queries): their share of the tail, apart.
    first = min((min(times) for times in figures.sent.values() if times), default=0.0) + WARM_AFTER_SECONDS
    warm = {
        kind: [
            1000 * latency
            for latency, sent in zip(figures.latencies[kind], figures.sent[kind], strict=True)
            if sent >= first
        ]
        for kind in ("item page", "save")
    }
    print(f"after the first {WARM_AFTER_SECONDS} s, p50 / p95 ms: "
          + ", ".join(f"{kind} {percentile(values, 0.5):.0f} / {percentile(values, 0.95):.0f} ({len(values)})"
                      for kind, values in warm.items() if values))  # fmt: skip
    requests = sum(len(values) for values in figures.latencies.values())
    saves = len(figures.latencies["save"]) + len(figures.latencies["save completeness"])
    print(f"throughput: {requests / elapsed:.1f} requests/s, {saves / elapsed:.1f} saves/s, "
          f"{len(figures.acknowledged) / elapsed:.1f} judgements/s over {elapsed:.0f} s")  # fmt: skip
    if figures.cpu:
        print(f"server CPU during the run: web {figures.cpu['web']:.1f} s, "
              f"{1000 * figures.cpu['web'] / requests:.1f} ms per request; "
              f"leaderboard worker {figures.cpu['leaderboard']:.1f} s")  # fmt: skip
    costs = {kind: 1000 * figures.costs[kind] / count for kind, count in figures.costed.items() if count}
    if costs:
        print("web server CPU per request, one annotator alone: "
              + ", ".join(f"{kind} {ms:.1f} ms ({figures.costed[kind]})" for kind, ms in sorted(costs.items()))
              + f"; load {os.getloadavg()[0]:.2f}")  # fmt: skip
    for (kind, reason), count in sorted(figures.errors.items()):
        print(f"  error: {kind}: {reason} × {count}")
    for line, count in app.logged_errors().most_common(5):
        print(f"  in the server's log: {line[:200]} × {count}")
    print(f"machine load (1/5/15 min): before {' '.join(f'{x:.2f}' for x in load_before)}, "
          f"after {' '.join(f'{x:.2f}' for x in load_after)}")  # fmt: skip

    keys = Counter((public_id, aspect) for public_id, aspect, _side in stored)
    stored_sides = {(public_id, aspect): side for public_id, aspect, side in stored}
    lost = [key for key in figures.acknowledged if key not in stored_sides]
    changed = [key for key, side in figures.acknowledged.items() if key in stored_sides and stored_sides[key] != side]
    duplicated = sum(count - 1 for count in keys.values())
    unacknowledged = len(set(keys) - set(figures.acknowledged))
    print(f"judgements: {len(figures.acknowledged)} acknowledged, {len(stored)} stored; lost {len(lost)}, "
          f"duplicated {duplicated}, stored with another label {len(changed)}, "
          f"stored without an acknowledgement {unacknowledged} (a save whose answer did not arrive)")  # fmt: skip

    delays = visibility_delays(figures.acks, figures.polls)
    seen = [delay for delay in delays if delay is not None]
    summary = {
        "load": f"{load_before[0]:.1f} → {load_after[0]:.1f}",
        **{f"{kind} p50 / p95 ms": quantiles_ms(figures.latencies[kind]) for kind in ("item page", "save")},
        **{f"{kind}: web CPU ms": f"{ms:.1f}" for kind, ms in sorted(costs.items())},
        "web CPU ms per request in the run": f"{1000 * figures.cpu['web'] / requests:.1f}" if figures.cpu else "",
        "new judgement on leaderboard.json p50 / p95 s": (
            f"{percentile(seen, 0.5):.1f} / {percentile(seen, 0.95):.1f}" if seen else "never"
        ),
        "errors, lost": f"{sum(figures.errors.values())}, {len([k for k in figures.acknowledged if k not in stored_sides])}",
    }
    if seen:
        print(f"new judgement on leaderboard.json after: p50 {percentile(seen, .5):.1f} s, "
              f"p95 {percentile(seen, .95):.1f} s, max {max(seen):.1f} s; "
              f"{len(delays) - len(seen)} of {len(delays)} saves never shown "
              f"within {options.visible_wait:.0f} s after the end")  # fmt: skip
    else:
        print(f"no acknowledged save was ever counted on leaderboard.json ({len(delays)} saves)")
    builds = app.builds()
    if builds:
        seconds = [wall for wall, _cpu in builds]
        cpu = [cpu for _wall, cpu in builds if cpu is not None]
        cpu_text = f"; CPU {percentile(cpu, 0.5):.2f} s each (p50), {sum(cpu):.1f} s in all" if cpu else ""
        print(f"leaderboard builds: {len(builds)}, each {percentile(seconds, .5):.1f} s (p50), "
              f"{max(seconds):.1f} s at most{cpu_text}")  # fmt: skip
    writes = app.snapshot_writes()
    if writes:
        milliseconds = [ms for _kb, ms in writes]
        print(f"snapshot writes (one transaction; on SQLite it holds the write lock): {percentile(milliseconds, 0.5):.0f} ms "
              f"(p50), {max(milliseconds):.0f} ms at most, {max(kb for kb, _ms in writes):.0f} kB at most")  # fmt: skip
    return not (lost or duplicated or changed), summary


def quantiles_ms(values):
    if not values:
        return "-"
    return f"{1000 * percentile(values, 0.5):.0f} / {1000 * percentile(values, 0.95):.0f}"


def think_range(text):
    """``2`` or ``2-5``: the seconds an annotator thinks before a save, as (least, most)."""
    least, _, most = text.partition("-")
    return float(least), float(most or least)


def parse_arguments(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--duration", type=float, default=60, help="seconds of annotating (default 60)")
    parser.add_argument(
        "--think",
        type=think_range,
        default=(0.0, 0.0),
        help="seconds before each save, or a range drawn from evenly, e.g. 2-5 (default 0: closed loop)",
    )
    parser.add_argument(
        "--cost-seconds",
        type=float,
        default=30,
        help="after the run, seconds of one annotator alone to read the server's CPU per request kind (0: none)",
    )
    parser.add_argument(
        "--baseline",
        metavar="REV",
        help="measure this git revision first, then the working tree, and print both side by side",
    )
    parser.add_argument("--database", default="sqlite", help="sqlite (default) or a postgres:// URL, recreated")
    parser.add_argument("--redis-url", default="", help="a Redis database to use and flush (default: embedded)")
    parser.add_argument("--web-workers", type=int, default=0, help="web worker processes (default: the server's)")
    parser.add_argument("--copies", type=int, default=10, help="copies of the 40 demo sentences (default 10)")
    parser.add_argument(
        "--visible-wait", type=float, default=30, help="seconds to wait after the end for the leaderboard (default 30)"
    )
    return parser.parse_args(argv)


def measure(options, checkout, name):
    """Serve ``checkout``, run the study against it and report; (judgements intact, summary)."""
    app = App(options, checkout, name)
    password = secrets.token_urlsafe(12)
    try:
        print(f"{name}: starting the app ({' '.join(app.command[1:])}) in {app.var_dir}", flush=True)
        app.start()
        setup_started = time.monotonic()
        app.manage("load_demo", "--manifest", str(write_dataset(app.var_dir, options.copies)), "--json")
        study = app.shell(f"from benchmarks.load import create_study; create_study({options.annotators}, {password!r})")
        print(f"study ready in {time.monotonic() - setup_started:.0f} s: {study['items']} items "
              f"for {options.annotators} annotators; running for {options.duration:.0f} s", flush=True)  # fmt: skip
        figures, elapsed, load_before, load_after = asyncio.run(
            run_load(app.url, study, password, options, app.cpu_seconds)
        )
        stored = app.shell(
            f"from benchmarks.load import print_stored_judgements; print_stored_judgements({study['campaign']})"
        )
        return report(figures, elapsed, load_before, load_after, stored, options, app)
    finally:
        app.stop()


def side_by_side(summaries):
    """The runs' headline figures in one table, a column a run."""
    names = list(summaries)
    rows = list(dict.fromkeys(row for summary in summaries.values() for row in summary))
    width = max(len(row) for row in rows) + 2
    print(f"\n{'':<{width}}" + "".join(f"{name:>18}" for name in names))
    for row in rows:
        print(f"{row:<{width}}" + "".join(f"{summaries[name].get(row, '-'):>18}" for name in names))


def main(argv=None):
    options = parse_arguments(argv)
    checkouts = {"working tree": REPOSITORY}
    if options.baseline:
        from benchmarks.hot_paths import export_revision

        checkouts = {options.baseline: export_revision(options.baseline, Path(__file__)), **checkouts}
    summaries, intact = {}, True
    try:
        for name, checkout in checkouts.items():
            run_intact, summaries[name] = measure(options, checkout, name)
            intact = intact and run_intact
    finally:
        for checkout in checkouts.values():
            if checkout != REPOSITORY:
                shutil.rmtree(checkout, ignore_errors=True)
    if len(summaries) > 1:
        side_by_side(summaries)
    if not intact:
        sys.exit("judgements were lost, duplicated or changed")


if __name__ == "__main__":
    main()
