"""A generation run on the completions API batches each seed's prompts (GENRES_GENERATION_BATCH_SIZE):
fewer requests, the same systems' outputs as one prompt a request, and the replies counted once each."""

import pytest

from devtools.fake_openai import COMPLETIONS, FakeOpenAIServer
from scoring.generation_jobs import estimate, generate_in_process
from scoring.genres.generation import DEFAULT_TEMPLATE_TEXT, GenerationSettings
from scoring.models import GenerationRun
from tests.scoring.run_fixtures import ASPIRIN, CURIE, PARIS

pytestmark = pytest.mark.django_db(transaction=True)

REPLIES = {CURIE: '[["Marie Curie", "born in", "Warsaw"]]', ASPIRIN: "[]", PARIS: '[["Paris", "capital of", "France"]]'}


def reply_to(prompt):
    return next(reply for text, reply in REPLIES.items() if text in prompt)


def outputs_of(run):
    return {
        (system.seed, output.text.content): (output.triples, output.raw.strip())
        for system in run.systems.all()
        for output in system.outputs.select_related("text")
    }


def test_a_batched_run_sends_ceil_n_over_k_requests_a_seed_and_makes_the_same_outputs(dataset, monkeypatch):
    with FakeOpenAIServer() as server:
        server.reply_with(reply_to)

        def run_with(batch_size, model):
            monkeypatch.setenv("GENRES_GENERATION_BATCH_SIZE", str(batch_size))
            run_settings = GenerationSettings(base_url=server.base_url, model=model, api="completions")
            expected = estimate(dataset, run_settings, DEFAULT_TEMPLATE_TEXT, [1, 54])
            assert (expected["prompts"], expected["to_send"]) == (6, 6)
            assert expected["requests_to_send"] == {2: 4, 1: 6}[batch_size]
            run = GenerationRun.create(dataset, run_settings, [1, 54], chunk_texts=3)
            asked_before = server.count()
            generate_in_process(run)
            run.refresh_from_db()
            assert run.status == "done", run.error
            return run, server.log[asked_before:]

        batched, batched_log = run_with(2, "batched-model")
        single, single_log = run_with(1, "single-model")

    # 3 texts under 2 seeds at 2 prompts a request: ceil(3 / 2) = 2 requests a seed, one seed each.
    sent = sorted((entry.body["seed"], len(entry.body["prompt"])) for entry in batched_log)  # 16 in flight
    assert sent == [(1, 1), (1, 2), (54, 1), (54, 2)]
    assert len(single_log) == 6 and server.paths() == {COMPLETIONS: 10}
    assert batched.progress_state()["requests"] == 4 and single.progress_state()["requests"] == 6
    assert batched.replies.count() == single.replies.count() == 6
    assert outputs_of(batched) == outputs_of(single)
    assert outputs_of(batched)[("54", PARIS)] == ([["Paris", "capital of", "France"]], REPLIES[PARIS])
