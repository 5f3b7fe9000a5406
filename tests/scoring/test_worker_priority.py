"""Jobs run below the web server's CPU priority: a HealingWorker and its work horses are niced,
the leaderboard's less than the others."""

import os

from leaderboard.jobs import queue as leaderboard_queue
from scoring.jobs import queue
from scoring.workers import JOB_NICENESS, LEADERBOARD_NICENESS, HealingWorker
from tests.scoring.worker_fixtures import (
    run_burst_worker,
    worker_environment,
)


def test_a_job_runs_niced_by_job_niceness(file_database):
    # os.nice(0) changes nothing and returns the niceness of the process that runs it.
    job = queue().enqueue(os.nice, 0)
    run_burst_worker(worker_environment(file_database), worker_class="scoring.workers.HealingWorker")
    job.refresh()
    assert job.return_value() == min(os.nice(0) + JOB_NICENESS, 19)


def test_a_leaderboard_worker_is_niced_less_than_the_others():
    # Its builds are short and a researcher waits for them while annotators save.
    leaderboard, default = leaderboard_queue(), queue()
    assert 0 < LEADERBOARD_NICENESS < JOB_NICENESS
    assert HealingWorker([leaderboard], connection=leaderboard.connection).niceness == LEADERBOARD_NICENESS
    assert HealingWorker([default], connection=default.connection).niceness == JOB_NICENESS
    assert HealingWorker([default, leaderboard], connection=default.connection).niceness == LEADERBOARD_NICENESS
