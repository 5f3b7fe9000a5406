"""A worker runs the ``warm_up()`` of a job's module once, before forking the first work horse for
it, so that every work horse inherits what it loaded (a leaderboard build's scipy and plotly)."""

import sys
import types

import pytest

from leaderboard.jobs import build_leaderboards
from leaderboard.jobs import queue as leaderboard_queue
from scoring.workers import HealingWorker

MODULE = "tests.scoring.warm_up_jobs_module"


@pytest.fixture
def jobs_module():
    """A module of jobs whose warm_up() counts its calls."""
    module = types.ModuleType(MODULE)
    module.calls = []
    module.warm_up = lambda: module.calls.append("warm")
    module.job = lambda: None
    sys.modules[MODULE] = module
    yield module
    del sys.modules[MODULE]


def test_the_warm_up_runs_once_per_worker_whatever_the_jobs(jobs_module):
    queue = leaderboard_queue()
    worker = HealingWorker([queue], connection=queue.connection)
    first, second = queue.create_job(f"{MODULE}.job"), queue.create_job(f"{MODULE}.job")
    worker.warm_up_for(first)
    worker.warm_up_for(second)
    assert jobs_module.calls == ["warm"]
    # Another worker process starts cold.
    HealingWorker([queue], connection=queue.connection).warm_up_for(first)
    assert jobs_module.calls == ["warm", "warm"]


def test_a_failing_warm_up_does_not_fail_the_job(jobs_module):
    def broken():
        raise RuntimeError("no plotting library")

    jobs_module.warm_up = broken
    queue = leaderboard_queue()
    HealingWorker([queue], connection=queue.connection).warm_up_for(queue.create_job(f"{MODULE}.job"))


def test_leaderboard_builds_warm_up_their_libraries():
    queue = leaderboard_queue()
    worker = HealingWorker([queue], connection=queue.connection)
    worker.warm_up_for(queue.create_job(build_leaderboards, args=(1,)))
    assert {"scipy.stats", "plotly.graph_objects", "pandas"} <= set(sys.modules)
    assert worker.warmed_up == {"leaderboard.jobs"}
