import pytest

from leaderboard import jobs


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
