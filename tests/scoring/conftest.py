"""Shared by the scoring tests: a scratch var directory and queue, and the tiny dataset of run_fixtures."""

import pytest

from scoring.jobs import queue
from tests.scoring.run_fixtures import tiny_dataset


@pytest.fixture(autouse=True)
def scratch(settings, tmp_path):
    """Every scoring test keeps its LDA models and files in a var directory of its own, and finds
    the scoring queue empty (and leaves it so): jobs queued by one test never reach another."""
    settings.VAR_DIR = tmp_path
    queue().empty()
    yield
    queue().empty()


@pytest.fixture
def dataset():
    """The tiny dataset with Ground truth and Echo outputs (files may override it)."""
    return tiny_dataset()
