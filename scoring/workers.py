"""The RQ worker of every worker process: rq's forking worker that also heals scoring runs and imports.

    python manage.py rqworker default --worker-class scoring.workers.HealingWorker

Each job runs in a forked work horse, so a job that crashes or is killed cannot take the
worker with it. Before forking one for a scoring chunk, the worker builds (or reuses) the chunk's
run scorer, so the run's chunks share one build per worker. On start, and every HEAL_INTERVAL
while idle or between jobs, the worker runs ``scoring.healing.heal_runs``: chunks that no live job
holds are queued again, so a run finishes after a worker, Redis or a database connection dies,
with no extra process to deploy; and ``scoring.import_jobs.heal_imports``: what an import killed
mid-way wrote is deleted and the import started again. Workers run at a lower CPU priority than the web server
(JOB_NICENESS), but for the leaderboard's (QUEUE_NICENESS).
"""

import ctypes
import importlib
import os
import signal
import sys
import time
from typing import Any

from django.db import connections
from rq.job import Job
from rq.queue import Queue
from rq.worker import Worker

from scoring.healing import heal_runs
from scoring.import_jobs import heal_imports
from scoring.jobs import build_run_scorer_for

HEAL_INTERVAL_SECONDS = 15
HEAL_LOCK = "genres:heal-runs"
# Web requests are interactive, jobs are batch work: where both share a machine (make demo, a
# small lab's server), the kernel gives the web processes the CPU first.
JOB_NICENESS = 10
# The leaderboard builds sit between: a researcher waits for them while annotators save. Niced
# like scoring jobs, they got the CPU last and a new judgement showed 5-30 s late under load; not
# niced, the paced builds took half a core from the annotators' requests (docs/benchmarks.md).
LEADERBOARD_NICENESS = 5
QUEUE_NICENESS = {"leaderboard": LEADERBOARD_NICENESS}
PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def die_with(worker_pid: int) -> None:
    """Have the kernel kill this process (a work horse) when its worker dies; Linux only.

    rq puts the work horse in a process group of its own, so a worker killed with SIGKILL leaves
    it running: it would finish its chunk unwatched. That is safe (a chunk commits only for the
    job it is handed to, once), but it holds a CPU and a database connection for a job the heal
    pass has already queued again. Elsewhere the orphan runs on, safely as said.
    """
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != worker_pid:  # the worker died before the kernel was told
        os._exit(1)


class HealingWorker(Worker):
    """Heals in rq's maintenance step, which the worker takes before each dequeue.

    The dequeue timeout is cut to HEAL_INTERVAL_SECONDS so that an idle worker comes back to
    it in time. Of several workers, on one machine or many, one heals per interval (a Redis
    lock taken for the interval); two passes at once would cost work, never correctness.
    """

    healed_at: float | None = None  # time.monotonic() of this worker's last turn
    warmed_up: set[str]  # modules of the jobs whose warm_up() this worker has run (``warm_up_for``)
    worker_pid = 0  # of the worker process, which its work horses die with

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.warmed_up = set()

    @property
    def niceness(self) -> int:
        """The lowest niceness of the worker's queues: a worker serving both runs at the leaderboard's."""
        return min(QUEUE_NICENESS.get(name, JOB_NICENESS) for name in self.queue_names())

    def work(self, *args: Any, **kwargs: Any) -> bool:
        os.nice(self.niceness)  # here, not in __init__: pages listing workers build Worker objects too
        return super().work(*args, **kwargs)

    @property
    def dequeue_timeout(self) -> int:
        return min(super().dequeue_timeout, HEAL_INTERVAL_SECONDS)

    @property
    def heal_is_due(self) -> bool:
        return self.healed_at is None or time.monotonic() - self.healed_at >= HEAL_INTERVAL_SECONDS

    @property
    def should_run_maintenance_tasks(self) -> bool:
        return super().should_run_maintenance_tasks or self.heal_is_due

    def run_maintenance_tasks(self) -> None:
        if super().should_run_maintenance_tasks:
            super().run_maintenance_tasks()
        if self.heal_is_due:
            self.heal()
        # Both may use the database (rq's cleanup calls failure callbacks): a work horse forked
        # later must not share this process's connection.
        connections.close_all()

    def fork_work_horse(self, job: Job, queue: Queue) -> None:
        # A work horse ends with its job: what it builds is lost. The run's scorer is built here
        # instead, once, and every work horse forked for the run's chunks inherits it.
        build_run_scorer_for(job)
        self.warm_up_for(job)
        connections.close_all()  # a work horse must not share this process's connection
        self.worker_pid = os.getpid()
        super().fork_work_horse(job, queue)

    def warm_up_for(self, job: Job) -> None:
        """Run the ``warm_up()`` of the job's module, once per worker process, where it has one.

        What a job imports and sets up on first use (scipy, plotly and its figure classes for a
        leaderboard build: 2 s of CPU) would be paid again by every work horse, which ends with
        its job; done here, every work horse forked afterwards inherits it.
        """
        module_name = (job.func_name or "").rpartition(".")[0]
        if not module_name or module_name in self.warmed_up:
            return
        self.warmed_up.add(module_name)
        warm_up = getattr(importlib.import_module(module_name), "warm_up", None)
        if warm_up is None:
            return
        try:
            warm_up()
        except Exception:
            # Only the first job of each work horse pays for it then: never worth failing a job.
            self.log.exception("Worker %s: warming up for %s failed", self.name, module_name)

    def main_work_horse(self, job: Job, queue: Queue) -> None:
        die_with(self.worker_pid)
        super().main_work_horse(job, queue)

    def heal(self) -> None:
        self.healed_at = time.monotonic()
        if not self.connection.set(HEAL_LOCK, self.name, nx=True, ex=HEAL_INTERVAL_SECONDS):
            return  # another worker's turn
        try:
            requeued = heal_runs() + heal_imports()
        except Exception:
            # The database or Redis is away: the next turn tries again on fresh connections.
            self.log.exception("Worker %s: healing scoring runs and imports failed", self.name)
        else:
            if requeued:
                self.log.info("Worker %s: healed scoring runs and imports, %d job(s) queued again", self.name, requeued)
