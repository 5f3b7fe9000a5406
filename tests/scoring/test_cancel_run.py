"""Cancelling a run: waiting chunks are skipped, a running chunk stops at its next system boundary."""

import django_rq
import pytest
from rq import SimpleWorker

from scoring.genres.scorer import Scorer, ScoreSettings
from scoring.jobs import QUEUE, RunScorer, enqueue_run, queue, run_chunk
from scoring.models import System
from scoring.models.runs import RunChunk, ScoringRun
from scoring.models.scores import TextScore
from tests.scoring.run_fixtures import echo, tiny_dataset

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


@pytest.fixture
def run():
    dataset = tiny_dataset()
    return ScoringRun.create(dataset, [System.ground_truth(), echo()], ["us"], ScoreSettings(), chunk_texts=2)


def test_cancelling_skips_every_waiting_chunk(run):
    run.chunks.first().hand_to("job-1")
    assert run.cancel() is True
    assert run.status == "cancelled" and run.finished_at
    assert set(run.chunks.values_list("status", flat=True)) == {"cancelled"}
    assert RunChunk.claim(run.chunks.first().pk, "job-1") is None
    assert run.cancel() is False  # once


def test_a_running_chunk_stops_at_the_next_system_and_stores_nothing(run, monkeypatch):
    run.start()
    scorer = RunScorer(run)
    run.record_provenance(scorer.scorer.provenance(), scorer.fingerprint())
    chunk = run.chunks.first()
    chunk.hand_to("job-1")
    systems_scored = []
    original = Scorer.score

    def score_then_cancel(self, records, metrics):
        systems_scored.append(records[0].key)
        ScoringRun.objects.get(pk=run.pk).cancel()  # the admin presses "Cancel" meanwhile
        return original(self, records, metrics)

    monkeypatch.setattr(Scorer, "score", score_then_cancel)
    published = []
    run_chunk(chunk.pk, "job-1", on_progress=published.append)
    chunk.refresh_from_db()
    assert len(systems_scored) == 1  # the second system was never started
    assert chunk.status == "cancelled" and not TextScore.objects.exists()
    assert published and published[-1].status == "cancelled"


@pytest.mark.django_db(transaction=True)
def test_a_run_cancelled_before_a_worker_takes_it_does_nothing(run):
    queue().empty()
    enqueue_run(run)
    run.cancel()
    django_rq.get_worker(QUEUE, worker_class=SimpleWorker).work(burst=True)
    run.refresh_from_db()
    assert run.status == "cancelled" and not run.fingerprint
    assert set(run.chunks.values_list("status", "attempts")) == {("cancelled", 0)}
