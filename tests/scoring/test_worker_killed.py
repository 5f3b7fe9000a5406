"""A worker killed in mid-chunk: resuming the run finishes it, no finished chunk redone, nothing lost.

The judge is an OpenAI-compatible server answering slowly, so chunks take a while; the worker
(and its work horse) is killed with SIGKILL while it judges a chunk, as a machine that dies would.
"""

import json
import os
import signal
from collections import Counter
from datetime import timedelta

from django.core.files.base import ContentFile

from devtools.fake_openai import COMPLETIONS, FakeOpenAIServer
from scoring.genres.scorer import ScoreSettings
from scoring.healing import resume_run
from scoring.imports import import_dataset, import_outputs
from scoring.jobs import enqueue_run
from scoring.models import Dataset, System
from scoring.models.runs import RunChunk, ScoringRun
from scoring.models.scores import SystemScore, TextScore
from tests.scoring.worker_fixtures import run_burst_worker, start_worker, wait_until, worker_environment

TEXTS = 6
TRIPLES_PER_TEXT = 3


def as_file(rows):
    return ContentFile("\n".join(json.dumps(row) for row in rows).encode(), name="rows.jsonl")


def people_dataset():
    records = [
        {"id": f"p{k}", "text": f"Person{k} lives in City{k}, works for Firm{k} and plays chess.", "triples": []}
        for k in range(TEXTS)
    ]
    outputs = [
        {
            "id": f"p{k}",
            "triples": [
                [f"Person{k}", "lives in", f"City{k}"],
                [f"Person{k}", "works for", f"Firm{k}"],
                [f"Stranger{k}", "plays", "chess"],  # the fake judge: unsupported (subject not in the text)
            ],
        }
        for k in range(TEXTS)
    ]
    import_dataset(as_file(records), file_name="people.jsonl", name="people")
    import_outputs(as_file(outputs), file_name="echo.jsonl", dataset="people", system_name="Echo")
    return Dataset.objects.get(name="people")


def test_resume_after_a_killed_worker_finishes_every_chunk_once(file_database):
    dataset = people_dataset()
    run = ScoringRun.create(
        dataset, [System.objects.get(name="Echo")], ["fs"], ScoreSettings(judge="openai"), chunk_texts=1
    )
    with FakeOpenAIServer(latency=0.25) as server:
        env = worker_environment(
            file_database,
            OPENAI_BASE_URL=server.base_url,
            OPENAI_API_KEY="test-key",
            GENRES_OPENAI_CONCURRENCY="1",  # one request at a time: a chunk takes ~0.75 s
            GENRES_JUDGE_BATCH_SIZE="1",  # one question per request
        )
        enqueue_run(run)
        worker = start_worker(env, burst=False)
        chunks = RunChunk.objects.filter(run=run)
        try:
            wait_until(
                lambda: chunks.filter(status="done").exists() and chunks.filter(status="running").exists(),
                what="a finished chunk and a running one",
            )
            # Let the running chunk send a request or two, then kill the worker and its work horse.
            wait_until(lambda: server.count() % TRIPLES_PER_TEXT == 1, what="a chunk in mid-judging")
        finally:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=10)
        finished_before = {chunk.pk: chunk.finished_at for chunk in chunks.filter(status="done")}
        [interrupted] = chunks.filter(status="running")
        run.refresh_from_db()
        assert run.status == "running"

        # The dead worker's job still looks "started" to RQ; no heartbeat comes from it any more.
        requeued = resume_run(run, stale_after=timedelta(0))
        assert requeued == 1  # the interrupted chunk; the queued ones are still in the queue
        run_burst_worker(env)

    run.refresh_from_db()
    assert run.status == "done", run.error
    assert list(chunks.values_list("status", flat=True)) == ["done"] * TEXTS
    for chunk in chunks:
        if chunk.pk in finished_before:
            assert (chunk.attempts, chunk.finished_at) == (1, finished_before[chunk.pk])
        elif chunk.pk == interrupted.pk:
            assert chunk.attempts == 2
        else:
            assert chunk.attempts == 1
    # Results complete: one fs score per output, every triple judged.
    scores = TextScore.objects.filter(run=run, metric="fs")
    assert scores.count() == TEXTS
    assert all(len(score.details) == TRIPLES_PER_TEXT for score in scores)
    assert all(score.values["fs"] == 2 / 3 for score in scores)
    assert SystemScore.objects.get(run=run).values["fs"] == 2 / 3
    # Finished chunks were not judged again: their questions went to the server once.
    sent = Counter(entry.body["prompt"] for entry in server.log if entry.path == COMPLETIONS)
    finished_texts = {text_id for chunk in chunks.filter(pk__in=finished_before) for text_id in chunk.text_ids}
    for text in dataset.texts.filter(pk__in=finished_texts):
        asked = [prompt for prompt in sent if text.content in prompt.rsplit("Text: ", 1)[-1]]
        assert len(asked) == TRIPLES_PER_TEXT and all(sent[prompt] == 1 for prompt in asked)
    assert len(sent) == TEXTS * TRIPLES_PER_TEXT
