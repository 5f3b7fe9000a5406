"""Scale out, shown: the multi-machine layout of docs/deployment.md, run for real on this machine.

Four "machines", each a network namespace of its own joined to the host by a veth pair on an
address range of this test (10.231.170-173.0/24): two web servers (gunicorn with uvicorn
workers) and two RQ workers, all on the machine's PostgreSQL (database genres_scale_test,
made and dropped here) and Redis (database 5). Each machine has its own GENRES_VAR_DIR, as
separate machines would; they share only SECRET_KEY, the database and Redis.

PostgreSQL and Redis listen on 127.0.0.1 only, which no other namespace can reach. Rather
than reconfigure them, the test relays TCP: on each machine's host-side veth address it
listens on 5432 and 6379 and pipes every connection to 127.0.0.1 (asyncio, in this process).
The same relay, on 127.0.0.1 in the host namespace, is the proxy in front of the two web
servers, handing connections to them in turn; browsers' requests here open a connection
each, so one annotator's requests alternate between the two web servers.

Then: migrate once, load the demo data, both demo annotators judge their whole queue of the
open demo campaign through the proxy, and a scoring run of demo-documents in chunks of two
texts is queued. Asserted: saves reached both web servers, both workers scored chunks
(rq records which worker ran each job), and every result is stored exactly once: one
judgement per assignment and aspect, every one acknowledged; one score per output and metric.

Skipped, saying why, only where the namespaces cannot be made: not root, no ``ip`` command,
or PostgreSQL or Redis not answering on 127.0.0.1.
"""

import asyncio
import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from itertools import count

import pytest
from django.conf import settings

from benchmarks.load import Figures, Session, annotate
from tests.deploy.postgres_server import POSTGRES, answers

pytestmark = [pytest.mark.subprocess, pytest.mark.slow, pytest.mark.postgres_relevant]

REDIS = ("127.0.0.1", 6379)
DATABASE_NAME = "genres_scale_test"
REDIS_DB = 5
WEB_PORT = 8080
WORKER_QUEUES = ("default", "leaderboard")
WORKER_CLASS = "scoring.workers.HealingWorker"
DATASET = "demo-documents"
CAMPAIGN = "scale-out"
READY_SECONDS = 60
RUN_SECONDS = 120
PREFIX = f"gso{os.getpid() % 100000}"  # namespace and link names of this test run only


@dataclass(frozen=True)
class Machine:
    name: str
    number: int

    @property
    def namespace(self):
        return f"{PREFIX}-{self.name}"

    @property
    def host_link(self):
        return f"{PREFIX}h{self.number}"

    @property
    def host_address(self):
        return f"10.231.{170 + self.number}.1"

    @property
    def address(self):
        return f"10.231.{170 + self.number}.2"


MACHINES = [Machine("web1", 0), Machine("web2", 1), Machine("worker1", 2), Machine("worker2", 3)]
WEBS, WORKERS = MACHINES[:2], MACHINES[2:]


def ip(*args):
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=True)


def reason_to_skip():
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        return "the layout runs on PostgreSQL and Redis: it is part of `make test-postgres`"
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add); run as root to see the layout scale out"
    if shutil.which("ip") is None:
        return "the ip command (iproute2) is missing: network namespaces cannot be made"
    if not answers(POSTGRES):
        return "PostgreSQL is not answering on 127.0.0.1:5432"
    if not answers(REDIS):
        return "Redis is not answering on 127.0.0.1:6379"
    return None


def join(machine):
    """The namespace, its veth pair and addresses; loopback up, so its own servers answer locally."""
    inside = f"{PREFIX}n{machine.number}"
    ip("netns", "add", machine.namespace)
    ip("link", "add", machine.host_link, "type", "veth", "peer", "name", inside)
    ip("link", "set", inside, "netns", machine.namespace)
    ip("addr", "add", f"{machine.host_address}/24", "dev", machine.host_link)
    ip("link", "set", machine.host_link, "up")
    ip("-n", machine.namespace, "addr", "add", f"{machine.address}/24", "dev", inside)
    ip("-n", machine.namespace, "link", "set", inside, "up")
    ip("-n", machine.namespace, "link", "set", "lo", "up")


def leave(machine):
    # Deleting the namespace deletes its veth end, and with it the pair; the link goes too if it was left.
    for args in (("netns", "del", machine.namespace), ("link", "del", machine.host_link)):
        subprocess.run(["ip", *args], capture_output=True)


class Relay:
    """TCP relays on an asyncio loop in a thread: each listening address pipes to its targets, in turn."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.servers = []
        self.first_lines = []  # (target, first line the client sent): the proxy's access log

    def listen(self, address, targets):
        """Relay connections to ``address`` to ``targets`` in turn; returns the port listened on."""
        turn = count()

        async def pipe(reader, writer, target=None):
            try:
                while data := await reader.read(65536):
                    if target is not None:
                        self.first_lines.append((target, data.split(b"\r\n", 1)[0].decode("latin-1")))
                        target = None
                    writer.write(data)
                    await writer.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                writer.close()

        async def relay(client_reader, client_writer):
            target = targets[next(turn) % len(targets)]
            try:
                server_reader, server_writer = await asyncio.open_connection(*target)
            except OSError:
                client_writer.close()
                return
            await asyncio.gather(pipe(client_reader, server_writer, target), pipe(server_reader, client_writer))

        async def start():
            server = await asyncio.start_server(relay, *address)
            self.servers.append(server)
            return server.sockets[0].getsockname()[1]

        return asyncio.run_coroutine_threadsafe(start(), self.loop).result()

    def close(self):
        async def shutdown():
            for server in self.servers:
                server.close()
            pending = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


def postgres_admin(statement):
    import psycopg

    with psycopg.connect(f"postgresql://postgres@{POSTGRES[0]}:{POSTGRES[1]}/postgres", autocommit=True) as db:
        db.execute(statement)


def redis_connection():
    import redis

    return redis.Redis(host=REDIS[0], port=REDIS[1], db=REDIS_DB)


@pytest.fixture
def layout(tmp_path):
    """The machines, the relays to PostgreSQL and Redis, the database; all removed afterwards."""
    reason = reason_to_skip()
    if reason:
        pytest.skip(reason)
    relay = Relay()
    made = []
    try:
        for machine in MACHINES:
            made.append(machine)
            try:
                join(machine)
            except subprocess.CalledProcessError as error:
                pytest.skip(f"network namespaces cannot be made here: {' '.join(error.cmd)}: {error.stderr.strip()}")
            relay.listen((machine.host_address, POSTGRES[1]), [POSTGRES])
            relay.listen((machine.host_address, REDIS[1]), [REDIS])
        postgres_admin(f'DROP DATABASE IF EXISTS "{DATABASE_NAME}" WITH (FORCE)')
        postgres_admin(f'CREATE DATABASE "{DATABASE_NAME}"')
        redis_connection().flushdb()
        yield Layout(tmp_path, relay)
    finally:
        for machine in made:
            leave(machine)
        relay.close()
        if made and not reason_to_skip():
            postgres_admin(f'DROP DATABASE IF EXISTS "{DATABASE_NAME}" WITH (FORCE)')
            redis_connection().flushdb()


class Layout:
    def __init__(self, tmp_path, relay):
        self.tmp_path = tmp_path
        self.relay = relay
        self.secret_key = secrets.token_urlsafe(40)
        self.processes = []

    def environment(self, machine):
        """What every machine is given: the same secret key, database and Redis; a var directory of its own."""
        var_dir = self.tmp_path / machine.name
        var_dir.mkdir(exist_ok=True)
        environment = {
            key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "REDIS_URL", "DEBUG")
        }
        return environment | {
            "DATABASE_URL": f"postgres://postgres@{machine.host_address}:{POSTGRES[1]}/{DATABASE_NAME}",
            "REDIS_URL": f"redis://{machine.host_address}:{REDIS[1]}/{REDIS_DB}",
            "SECRET_KEY": self.secret_key,
            "ALLOWED_HOSTS": "127.0.0.1",
            "GENRES_VAR_DIR": str(var_dir),
            "PYTHONUNBUFFERED": "1",
        }

    def command(self, machine, *args):
        return ["ip", "netns", "exec", machine.namespace, sys.executable, *args]

    def run_together(self, *commands):
        """manage.py commands, each ``(machine, args)``, run side by side to completion; their standard outputs."""
        processes = [
            (machine, args, subprocess.Popen(
                self.command(machine, "manage.py", *args), cwd=settings.BASE_DIR, env=self.environment(machine),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            ))
            for machine, args in commands
        ]  # fmt: skip
        outputs = []
        for machine, args, process in processes:
            stdout, stderr = process.communicate(timeout=RUN_SECONDS)
            assert process.returncode == 0, f"manage.py {args[0]} on {machine.name} failed:\n{stderr[-3000:]}"
            outputs.append(stdout)
        return outputs

    def run(self, machine, *args):
        return self.run_together((machine, args))[0]

    def shell(self, machine, code):
        """Python run by ``manage.py shell`` on ``machine``; the JSON it prints last."""
        return json.loads(self.run(machine, "shell", "-c", code).strip().splitlines()[-1])

    def start(self, machine, *args):
        log = (self.tmp_path / f"{machine.name}.log").open("w")
        process = subprocess.Popen(
            self.command(machine, *args),
            cwd=settings.BASE_DIR,
            env=self.environment(machine),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.processes.append((machine, process, log))
        return process

    def log(self, machine):
        return (self.tmp_path / f"{machine.name}.log").read_text(errors="replace")

    def wait_for(self, what, ready):
        deadline = time.monotonic() + READY_SECONDS
        while not ready():
            for machine, process, _log in self.processes:
                assert process.poll() is None, f"{machine.name} exited while waiting for {what}:\n{self.log(machine)}"
            assert time.monotonic() < deadline, f"no {what} after {READY_SECONDS} s"
            time.sleep(0.2)

    def stop(self):
        for _machine, process, _log in self.processes:
            process.terminate()
        for _machine, process, log in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.close()


# Counted in the database once the run is over, through the models: what "exactly once" means.
RESULTS = """
import json, time
from django.db.models import Count
from annotation.models import ASPECTS, Assignment, Judgement
from scoring.models import Output
from scoring.models.runs import ScoringRun
from scoring.models.scores import TextScore
run = ScoringRun.objects.get(pk={run})
deadline = time.monotonic() + {seconds}
while run.status not in (ScoringRun.Status.DONE, ScoringRun.Status.FAILED) and time.monotonic() < deadline:
    time.sleep(0.5)
    run.refresh_from_db()
outputs = Output.objects.filter(text__dataset=run.dataset, system__in=run.systems.all()).count()
scores = TextScore.objects.filter(run=run)
judgements = Judgement.objects.filter(assignment__item__campaign__name={campaign!r})
assignments = Assignment.objects.filter(item__campaign__name={campaign!r})
print(json.dumps({{
    "status": run.status,
    "expected_scores": outputs * len(run.metrics),
    "scores": scores.count(),
    "scores_repeated": scores.values("output", "metric").annotate(n=Count("pk")).filter(n__gt=1).count(),
    "assignments": assignments.count(),
    "assignments_done": assignments.filter(status=Assignment.Status.DONE).count(),
    "judgements": judgements.count(),
    "judgements_repeated": judgements.values("assignment", "aspect").annotate(n=Count("pk")).filter(n__gt=1).count(),
    "aspects": len(ASPECTS),
}}))
"""


def workers_registered(names):
    from rq import Worker

    return {worker.name for worker in Worker.all(connection=redis_connection())} >= set(names)


def chunk_workers(run_id):
    """Which worker ran each finished chunk job of the run, as rq recorded it."""
    from rq import Queue
    from rq.job import Job

    connection = redis_connection()
    job_ids = Queue("default", connection=connection).finished_job_registry.get_job_ids()
    prefix = f"genres-run-{run_id}-chunk-"
    return {
        job_id: Job.fetch(job_id, connection=connection).worker_name for job_id in job_ids if job_id.startswith(prefix)
    }


async def judge_whole_queues(base_url, accounts, campaign_id):
    """Both annotators judge every item of their queues, as the item page's script would."""
    figures = Figures()
    sessions = [Session(base_url, figures, keep_alive=False) for _ in accounts]
    for session, account in zip(sessions, accounts, strict=True):
        await session.sign_in(account["username"], account["password"])
    deadline = time.monotonic() + RUN_SECONDS  # an upper bound for a stuck server, not a speed check
    await asyncio.gather(
        *(annotate(session, f"/annotate/campaigns/{campaign_id}/next/", deadline, (0, 0), random.Random(n))
          for n, session in enumerate(sessions))
    )  # fmt: skip
    for session in sessions:
        await session.client.aclose()
    return figures


def demo_manifest(directory):
    """The demo's documents, their systems' outputs and a small open campaign: a manifest for load_demo."""
    fixtures = settings.BASE_DIR / "fixtures"
    demo = json.loads((fixtures / "manifest.json").read_text(encoding="utf-8"))

    def from_fixtures(entry):
        return entry | {"file": str(fixtures / entry["file"])}

    manifest = {
        "datasets": [from_fixtures(entry) for entry in demo["datasets"] if entry["name"] == DATASET],
        "outputs": [from_fixtures(entry) for entry in demo["outputs"] if entry["dataset"] == DATASET],
        "campaigns": [{
            "name": CAMPAIGN, "dataset": DATASET, "systems": ["Ground truth", "ClosedIE-T5", "GPT-Fabulist-3.5"],
            "annotators": ["annotator1", "annotator2"], "texts": 4, "overlap": 0.5, "seed": 7,
        }],
    }  # fmt: skip
    path = directory / "manifest.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return path


def test_two_web_servers_and_two_workers_on_separate_machines_keep_every_result_once(layout, tmp_path):
    web1 = WEBS[0]
    try:
        # Static files on each web machine, the migrations once (from any one machine), side by side.
        layout.run_together(
            (web1, ["migrate", "--noinput"]),
            *((machine, ["collectstatic", "--noinput", "--verbosity", "0"]) for machine in WEBS),
        )
        for machine in WEBS:
            layout.start(
                machine, "-m", "gunicorn", "-c", "genres_site/gunicorn_conf.py", "genres_site.asgi:application",
                "--bind", f"{machine.address}:{WEB_PORT}", "--workers", "1",
            )  # fmt: skip
        for machine in WORKERS:
            layout.start(
                machine, "manage.py", "rqworker", *WORKER_QUEUES, "--worker-class", WORKER_CLASS, "--name", machine.name
            )
        manifest = demo_manifest(tmp_path)
        demo = json.loads(layout.run(web1, "load_demo", "--manifest", str(manifest), "--json", "--no-scores"))
        campaign_id = layout.shell(
            web1, f"from annotation.models import Campaign; print(Campaign.objects.get(name={CAMPAIGN!r}).pk)"
        )
        layout.wait_for("web servers", lambda: all(answers((machine.address, WEB_PORT)) for machine in WEBS))
        layout.wait_for("workers", lambda: workers_registered(machine.name for machine in WORKERS))

        # The proxy: connections to 127.0.0.1 handed to the two web servers in turn.
        proxy_port = layout.relay.listen(("127.0.0.1", 0), [(machine.address, WEB_PORT) for machine in WEBS])
        annotators = [account for account in demo["accounts"] if account["role"] == "annotator"]
        figures = asyncio.run(judge_whole_queues(f"http://127.0.0.1:{proxy_port}", annotators, campaign_id))

        queued = json.loads(layout.run(web1, "score_outputs", "--dataset", DATASET, "--chunk-texts", "2", "--json"))
        results = layout.shell(web1, RESULTS.format(run=queued["run"], seconds=RUN_SECONDS, campaign=CAMPAIGN))
        chunks = chunk_workers(queued["run"])
    finally:
        layout.stop()

    assert not figures.errors, f"requests failed: {dict(figures.errors)}"
    saves_by_web = {target for target, line in layout.relay.first_lines if line.startswith("POST /annotate/")}
    assert saves_by_web == {(machine.address, WEB_PORT) for machine in WEBS}, "saves did not reach both web servers"
    assert results["assignments"] > 0 and results["assignments_done"] == results["assignments"]
    assert results["judgements"] == results["assignments"] * results["aspects"] == len(figures.acknowledged)
    assert results["judgements_repeated"] == 0

    assert results["status"] == "done", f"the scoring run ended {results['status']}:\n" + "\n".join(
        layout.log(machine)[-2000:] for machine in WORKERS
    )
    assert results["scores"] == results["expected_scores"] and results["scores_repeated"] == 0
    assert set(chunks.values()) == {machine.name for machine in WORKERS}, f"chunks per worker: {chunks}"
