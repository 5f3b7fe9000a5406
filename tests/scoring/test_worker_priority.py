"""Jobs run below the web server's CPU priority: a HealingWorker and its work horses are niced."""

import os

from scoring.jobs import queue
from scoring.workers import JOB_NICENESS
from tests.scoring.worker_fixtures import file_database, run_burst_worker, worker_environment

__all__ = ["file_database"]  # a fixture, used by name


def test_a_job_runs_niced_by_job_niceness(file_database):
    # os.nice(0) changes nothing and returns the niceness of the process that runs it.
    job = queue().enqueue(os.nice, 0)
    run_burst_worker(worker_environment(file_database), worker_class="scoring.workers.HealingWorker")
    job.refresh()
    assert job.return_value() == min(os.nice(0) + JOB_NICENESS, 19)
