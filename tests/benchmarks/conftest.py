import pytest

from benchmarks import paper_rankings
from tests.benchmarks.toy_release import write_release


@pytest.fixture
def release(tmp_path, monkeypatch):
    """The toy release (tests/benchmarks/toy_release.py), its sample size and topic count registered."""
    monkeypatch.setitem(paper_rankings.SAMPLE_SIZES, "toy", 3)
    monkeypatch.setitem(paper_rankings.PAPER_TOPICS, "toy", 2)
    return write_release(tmp_path)
