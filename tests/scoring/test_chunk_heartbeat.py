"""A running chunk beats from a thread of its own, whatever the chunk is busy with, until it ends."""

from datetime import timedelta

import pytest
from django.utils import timezone

from scoring.genres.scorer import ScoreSettings
from scoring.jobs import ChunkHeartbeat
from scoring.models.runs import RunChunk, ScoringRun
from tests.scoring.run_fixtures import echo, tiny_dataset
from tests.scoring.worker_fixtures import wait_until

# transaction=True: the heartbeat thread's connection sees what the test commits.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres_relevant]


def claimed_chunk():
    run = ScoringRun.create(tiny_dataset(), [echo()], ["us"], ScoreSettings(), chunk_texts=2)
    run.start()
    chunk = run.chunks.first()
    chunk.hand_to("job-1")
    return RunChunk.claim(chunk.pk, "job-1")


def heartbeat_of(chunk):
    return RunChunk.objects.values_list("heartbeat_at", flat=True).get(pk=chunk.pk)


def test_the_heartbeat_thread_beats_while_the_chunk_runs_and_stops_with_it():
    chunk = claimed_chunk()
    long_ago = timezone.now() - timedelta(hours=1)
    RunChunk.objects.filter(pk=chunk.pk).update(heartbeat_at=long_ago)

    with ChunkHeartbeat(chunk, seconds=0.01) as heartbeat:
        wait_until(lambda: heartbeat_of(chunk) > long_ago, what="a heartbeat")
        first_beat = heartbeat_of(chunk)
        wait_until(lambda: heartbeat_of(chunk) > first_beat, what="a second heartbeat")

    assert not heartbeat.thread.is_alive()
    RunChunk.objects.filter(pk=chunk.pk).update(heartbeat_at=long_ago)
    assert heartbeat_of(chunk) == long_ago  # nothing beats any more
