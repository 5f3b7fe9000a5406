"""Shared by the leaderboard tests: an empty leaderboard queue, and the hand-made ranked dataset."""

import pytest

from leaderboard import jobs
from tests.leaderboard.leaderboard_fixtures import ranked_dataset


@pytest.fixture(autouse=True)
def leaderboard_queue():
    """The leaderboard queue and its Redis keys hold only this test's jobs, pending marks and variants."""

    def clear():
        jobs.queue().empty()
        connection = jobs.queue().connection
        for key in connection.scan_iter("leaderboard:*"):
            connection.delete(key)

    clear()
    yield jobs.queue()
    clear()


@pytest.fixture
def dataset():
    """A scored dataset whose closed campaign ranks the systems in HUMAN_ORDER (files may override it)."""
    return ranked_dataset()
