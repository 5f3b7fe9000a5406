"""Scoring runs with the OpenAI judge and embedder, through a real RQ worker, over HTTP to the fake server.

Covers the completions and chat routes, embeddings, a 429 then success, a timeout then success,
a 500 that persists, the shared request cache (a second run sends nothing) and the rate limiter
in Redis. The fake judge says a triple is supported when its subject occurs in the text, and
splits the object at " and ".
"""

from datetime import timedelta

import pytest
import redis
from django.conf import settings

from devtools.fake_openai import CHAT, COMPLETIONS, EMBEDDINGS, Failure, FakeOpenAIServer, Hang
from scoring.genres.ratelimit import DEFAULT_REDIS_KEY
from scoring.genres.scorer import ScoreSettings
from scoring.healing import heal_runs
from scoring.jobs import MAX_CHUNK_ATTEMPTS, enqueue_run
from scoring.models.runs import ScoringRun
from scoring.models.scores import SystemScore, TextScore
from tests.scoring.run_fixtures import echo, tiny_dataset
from tests.scoring.worker_fixtures import (
    run_burst_worker,
    start_worker,
    wait_until,
    worker_environment,
)


@pytest.fixture
def server():
    # A little latency keeps the first run going while the test looks into Redis.
    with FakeOpenAIServer(latency=0.05) as running:
        yield running


@pytest.fixture
def dataset(file_database):
    return tiny_dataset()


def score(file_database, dataset, server, metrics, embedder="hashing", **variables):
    """A run of Echo on the tiny dataset, worked by a burst worker; the finished run."""
    run = ScoringRun.create(dataset, [echo()], metrics, ScoreSettings(embedder=embedder, judge="openai"))
    enqueue_run(run)
    return work(file_database, run, server, **variables)


def work(file_database, run, server, **variables):
    """Work the queue with a burst worker; the run, as it then is."""
    variables = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "test-key", **variables}
    run_burst_worker(worker_environment(file_database, **variables))
    run.refresh_from_db()
    return run


@pytest.mark.slow
def test_completions_and_embeddings_then_a_second_run_from_the_cache(file_database, dataset, server):
    limiter = redis.Redis.from_url(settings.REDIS_URL)
    limiter.delete(DEFAULT_REDIS_KEY)
    metrics = ["fs", "gs", "us", "cs"]
    first = ScoringRun.create(dataset, [echo()], metrics, ScoreSettings(embedder="openai", judge="openai"))
    enqueue_run(first)
    env = worker_environment(
        file_database,
        OPENAI_BASE_URL=server.base_url,
        OPENAI_API_KEY="test-key",
        GENRES_OPENAI_REQUESTS_PER_MINUTE="6000",
    )
    worker = start_worker(env)
    # Every request first takes a token from the bucket in the shared Redis (it expires soon after).
    wait_until(lambda: limiter.exists(DEFAULT_REDIS_KEY), what="the rate limiter's bucket in Redis")
    assert worker.wait(timeout=120) == 0
    first.refresh_from_db()
    assert first.status == "done", first.error
    paths = server.paths()
    # Two distinct questions each for fs and gs, each pair in one request (a batch of prompts).
    assert paths[COMPLETIONS] == 2 and paths[EMBEDDINGS] >= 1 and paths[CHAT] == 0
    provenance = first.provenance
    assert (provenance["judge_model"], provenance["embedder_model"], provenance["threshold"]) == (
        "gpt-3.5-turbo-instruct",
        "text-embedding-ada-002",
        0.95,
    )
    assert provenance["heuristic_judge"] is False
    state = first.progress_state()
    assert state["requests"] == server.count() and state["tokens"] > 0 and state["cost_usd"] > 0
    values = SystemScore.objects.get(run=first).values
    assert values["fs"] == pytest.approx(2 / 3) and values["gs"] == pytest.approx(2 / 3)

    sent = server.count()
    second = score(file_database, dataset, server, metrics, embedder="openai")
    assert second.status == "done" and server.count() == sent
    state = second.progress_state()
    assert state["requests"] == 0 and state["cache_hits"] > 0 and state["cost_usd"] == 0
    assert SystemScore.objects.get(run=second).values == values


def test_chat_with_a_429_and_a_timeout_before_the_answers(file_database, dataset, server):
    server.script(Failure(429, retry_after="0"), Hang(5))
    run = score(
        file_database,
        dataset,
        server,
        ["fs"],
        GENRES_JUDGE_MODEL="gpt-4o-mini",
        GENRES_OPENAI_CONCURRENCY="1",
        GENRES_OPENAI_TIMEOUT="1",
    )
    assert run.status == "done", run.error
    # Two distinct questions (t3 repeats one triple), one rate-limited and one timed-out attempt.
    assert server.paths() == {CHAT: 4}
    assert run.progress_state()["requests"] == 4
    assert run.provenance["judge_model"] == "gpt-4o-mini"
    verdicts = [verdict for score in TextScore.objects.filter(run=run) for verdict in score.details]
    assert len(verdicts) == 3 and all(verdict["parsed"] and not verdict["error"] for verdict in verdicts)
    assert SystemScore.objects.get(run=run).values["fs"] == pytest.approx(2 / 3)


def test_a_judge_request_that_keeps_failing_is_an_unsupported_verdict_with_its_error(file_database, dataset, server):
    server.script(Failure(500), Failure(500))
    run = score(
        file_database,
        dataset,
        server,
        ["fs"],
        GENRES_OPENAI_CONCURRENCY="1",
        GENRES_OPENAI_MAX_ATTEMPTS="2",
        GENRES_JUDGE_BATCH_SIZE="1",
    )
    assert run.status == "done", run.error
    # One question per request, one at a time: the first (about the first text) got both 500s.
    [first] = TextScore.objects.get(run=run, output__text__external_id="t1").details
    assert "HTTP 500" in first["error"] and "after 2 attempts" in first["error"]
    assert (first["supported"], first["parsed"]) == (False, False)
    assert SystemScore.objects.get(run=run).values["fs"] == pytest.approx(1 / 3)


@pytest.mark.slow
def test_an_embedding_request_that_keeps_failing_fails_the_run_with_the_reason(file_database, dataset, server):
    server.script(*[Failure(500)] * 2 * MAX_CHUNK_ATTEMPTS)  # two requests fail each attempt
    run = score(file_database, dataset, server, ["us"], embedder="openai", GENRES_OPENAI_MAX_ATTEMPTS="2")
    for _attempt in range(MAX_CHUNK_ATTEMPTS - 1):
        assert run.status == "running"
        assert heal_runs(backoff=timedelta(0)) == 1
        run = work(file_database, run, server, GENRES_OPENAI_MAX_ATTEMPTS="2")
    assert run.status == "failed"
    assert "chunk 1 of run" in run.error and "HTTP 500" in run.error
    assert f"attempt {MAX_CHUNK_ATTEMPTS} of {MAX_CHUNK_ATTEMPTS}" in run.error
    assert run.chunks.get().status == "failed"
    assert not TextScore.objects.filter(run=run).exists()
