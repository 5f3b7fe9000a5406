"""A worker killed in mid-generation: the run heals, and no reply the endpoint gave is asked for again.

The endpoint answers slowly, one request at a time, so a chunk takes a while; the worker (and its
work horse) is killed with SIGKILL in the middle of a chunk, as a machine that dies would. Every
reply entered the request cache as it came, so the chunk asked again sends only what was not answered.
"""

import json
import os
import signal
from collections import Counter
from datetime import timedelta

from django.core.files.base import ContentFile

from devtools.fake_openai import CHAT, FakeOpenAIServer
from scoring.generation_jobs import enqueue_generation
from scoring.genres.generation import GenerationSettings
from scoring.healing import resume_run
from scoring.imports import import_dataset
from scoring.models import Dataset, GenerationChunk, GenerationRun
from tests.scoring.worker_fixtures import run_burst_worker, start_worker, wait_until, worker_environment

TEXTS = 6
CHUNK_TEXTS = 3


def people_dataset():
    records = [{"id": f"p{k}", "text": f"Person{k} lives in City{k}.", "triples": []} for k in range(TEXTS)]
    data = ContentFile("\n".join(map(json.dumps, records)).encode(), name="people.jsonl")
    import_dataset(data, file_name="people.jsonl", name="people")
    return Dataset.objects.get(name="people")


def test_a_killed_worker_heals_without_asking_any_answered_reply_again(file_database):
    dataset = people_dataset()
    with FakeOpenAIServer(latency=0.25) as server:
        server.reply_with(lambda prompt: '[["Person", "lives in", "City"]]')
        run_settings = GenerationSettings(base_url=server.base_url, model="slow-model")
        run = GenerationRun.create(dataset, run_settings, [1], chunk_texts=CHUNK_TEXTS)
        env = worker_environment(file_database, GENRES_OPENAI_CONCURRENCY="1")
        enqueue_generation(run)
        worker = start_worker(env, burst=False)
        chunks = GenerationChunk.objects.filter(run=run)
        try:
            wait_until(
                lambda: chunks.filter(status="done").exists() and server.count() == CHUNK_TEXTS + 2,
                what="a finished chunk and one in mid-chunk",
            )
        finally:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(timeout=10)
        # One request at a time: all but the last one sent had been answered when the worker died.
        answered = [entry.body["messages"][0]["content"] for entry in server.log[: server.count() - 1]]
        assert resume_run(run, stale_after=timedelta(0)) == 1
        run_burst_worker(env)

    run.refresh_from_db()
    assert run.status == "done", run.error
    assert [chunk.attempts for chunk in chunks] == [1, 2]
    asked = Counter(entry.body["messages"][0]["content"] for entry in server.log if entry.path == CHAT)
    assert len(asked) == TEXTS and all(asked[prompt] == 1 for prompt in answered)
    assert run.replies.count() == TEXTS
    [system] = run.systems.all()
    assert system.outputs.count() == TEXTS
