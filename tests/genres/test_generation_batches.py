"""The generator of generation runs batches prompts on the completions API, as the judge does
(``scoring.genres.completion_requests``, shared by both).

Over real HTTP against the fake server: n prompts of one seed go in ceil(n / k) requests at batch
size k, and give the replies of one prompt a request; a batch only holds prompts of one seed;
the cache holds one reply per prompt, so a second run sends nothing however it would batch; an
endpoint that refuses lists, or answers one with the wrong count of choices, is asked one prompt at
a time; chat keeps one prompt a request.
"""

import json

import pytest

from devtools.fake_openai import CHAT, COMPLETIONS, FakeOpenAIServer, Raw
from scoring.genres.cache import InMemoryRequestCache
from scoring.genres.generation import GenerationSettings, Generator, render
from scoring.genres.openai_backend import RetryPolicy

# Every test runs over both transports (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("transport")

TEMPLATE = "Triples of: $TEXT$"
TEXTS = [f"City{number} lies on River{number}." for number in range(5)]
FAST_RETRIES = RetryPolicy(max_attempts=3, base_delay=0.01, timeout=5.0)


def reply_to(prompt):
    """The fake model's reply names the city of the prompt: each reply says which prompt it answers."""
    city = prompt.split(": ", 1)[1].split(" ", 1)[0]
    return json.dumps([[city, "lies on", "a river"]])


@pytest.fixture
def server():
    with FakeOpenAIServer() as running:
        running.reply_with(reply_to)
        yield running


def questions(seeds=(1,)):
    return [(render(TEMPLATE, text), seed) for seed in seeds for text in TEXTS]


def generator(server, cache=None, api="completions", model="fake-model", **options):
    settings = GenerationSettings(base_url=server.base_url, model=model, api=api, temperature=0.7, max_tokens=64)
    options.setdefault("retry", FAST_RETRIES)
    cache = cache if cache is not None else InMemoryRequestCache()
    return Generator(settings, cache, api_key="test-key", concurrency=1, **options)


def prompts_a_request(server):
    """How many prompts each request carried: a list (even of one) at a batch size above 1."""
    return [len(prompt) if isinstance(prompt := entry.body["prompt"], list) else 1 for entry in server.log]


def raws(replies):
    return [reply.raw for reply in replies]


@pytest.mark.parametrize(("batch_size", "requests", "sizes"), [(2, 3, [2, 2, 1]), (3, 2, [3, 2]), (5, 1, [5])])
def test_n_prompts_go_in_ceil_n_over_k_requests_with_the_replies_of_single_requests(
    server, batch_size, requests, sizes
):
    answered = []
    batched = generator(server, batch_size=batch_size).generate(
        questions(), lambda done, cached: answered.append((done, cached))
    )
    assert server.paths() == {COMPLETIONS: requests}
    assert prompts_a_request(server) == sizes
    assert answered == [(done, 0) for done in range(1, requests + 1)]  # once a request, not once a prompt

    single = generator(server, model="fake-model-alone", batch_size=1).generate(questions())
    assert server.count() == requests + len(TEXTS)
    assert raws(batched) == raws(single) == [f' [["City{number}", "lies on", "a river"]]' for number in range(5)]
    assert not any(reply.error or reply.cached for reply in batched)


def test_a_batch_holds_prompts_of_one_seed_and_settings(server):
    replies = generator(server, batch_size=4).generate(questions(seeds=(54, 64)))
    # 5 prompts a seed at 4 a request: 2 requests a seed, never a list across seeds.
    bodies = [entry.body for entry in server.log]
    assert list(zip([body["seed"] for body in bodies], prompts_a_request(server), strict=True)) == [
        (54, 4),
        (64, 4),
        (54, 1),
        (64, 1),
    ]
    assert all((body["temperature"], body["max_tokens"]) == (0.7, 64) for body in bodies)
    assert raws(replies[:5]) == raws(replies[5:])  # the fake model ignores the seed; each prompt its own reply


def test_a_batch_is_cached_per_prompt_and_a_second_run_sends_nothing(server):
    cache = InMemoryRequestCache()
    first = generator(server, cache, batch_size=3).generate(questions())
    assert len(cache) == len(TEXTS) and server.count() == 2
    for batch_size in (1, 2, 5):
        again = generator(server, cache, batch_size=batch_size)
        replies = again.generate(questions())
        assert raws(replies) == raws(first) and all(reply.cached for reply in replies)
        assert again.service.usage.requests == 0 and again.service.usage.cache_hits == len(TEXTS)
    # One prompt asked alone is the same question as in a batch: answered from the cache too.
    assert generator(server, cache, batch_size=1).generate(questions()[2:3])[0].cached
    assert server.count() == 2


def test_an_endpoint_that_refuses_lists_is_asked_one_prompt_at_a_time(server):
    server.refuse_lists = True
    asking = generator(server, batch_size=2)
    replies = asking.generate(questions())
    # The first list was refused (HTTP 400, not retried); every prompt then went alone.
    kinds = [type(entry.body["prompt"]).__name__ for entry in server.log]
    assert kinds == ["list", "str", "str", "str", "str", "str"]
    assert asking.requests.lists_refused and asking.service.usage.failures == 0
    assert raws(replies) == [f' [["City{number}", "lies on", "a river"]]' for number in range(5)]


def test_a_list_answered_with_the_wrong_count_of_choices_is_asked_again_one_prompt_at_a_time(server):
    one_choice = {"choices": [{"index": 0, "text": "[]"}]}
    server.script(Raw(200, json.dumps(one_choice).encode()))
    asking = generator(server, batch_size=5)
    replies = asking.generate(questions())
    assert [type(entry.body["prompt"]).__name__ for entry in server.log] == ["list"] + ["str"] * 5
    assert asking.requests.lists_refused
    assert raws(replies) == [f' [["City{number}", "lies on", "a river"]]' for number in range(5)]


def test_chat_takes_one_prompt_a_request_whatever_the_batch_size(server):
    asking = generator(server, api="chat", batch_size=8)
    replies = asking.generate(questions())
    assert asking.requests.batch_size == 1 and server.paths() == {CHAT: len(TEXTS)}
    assert raws(replies) == [f'[["City{number}", "lies on", "a river"]]' for number in range(5)]


def test_a_batch_size_below_one_is_refused(server):
    with pytest.raises(ValueError, match="batch_size must be at least 1"):
        generator(server, batch_size=0)
