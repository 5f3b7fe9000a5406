import pytest

from scoring.jobs import queue


@pytest.fixture(autouse=True)
def scratch(settings, tmp_path):
    """Every scoring test keeps its LDA models and files in a var directory of its own, and finds
    the scoring queue empty (and leaves it so): jobs queued by one test never reach another."""
    settings.VAR_DIR = tmp_path
    queue().empty()
    yield
    queue().empty()
