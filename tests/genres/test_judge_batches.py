"""The OpenAI judge streams its requests and batches prompts on the completions API.

Over real HTTP against the fake server: several prompts in one request, cached one prompt at
a time; the per-prompt fallback for an endpoint that refuses lists, remembered; no barrier
between groups of requests; the cache asked a chunk at a time while the first chunk is in flight;
a caller that stops reading stops the stream.
"""

import threading
import time

import pytest

from devtools.fake_openai import CHAT, COMPLETIONS, FakeOpenAIServer
from scoring.genres.cache import InMemoryRequestCache
from scoring.genres.judges.registry import get_judge
from scoring.genres.openai_backend import RetryPolicy

# Every test runs over both transports (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("transport")

TEXT = "Grace Hopper and Howard Aiken built the Mark I at Harvard."
PAIRS = [
    (TEXT, ["Grace Hopper", "built", "Mark I"]),
    (TEXT, ["Alan Turing", "built", "Mark I"]),
    (TEXT, ["Howard Aiken", "worked at", "Harvard and Yale"]),
    (TEXT, ["Mark I", "located at", "Harvard"]),
    (TEXT, ["Konrad Zuse", "built", "Z3"]),
]
FAST_RETRIES = RetryPolicy(max_attempts=3, base_delay=0.01, timeout=5.0)


def make_judge(server, **options):
    options.setdefault("retry", FAST_RETRIES)
    return get_judge("openai", base_url=server.base_url, api_key="test-key", **options)


def test_prompts_go_in_batches_with_the_verdicts_of_single_requests():
    with FakeOpenAIServer() as server:
        batched = make_judge(server, batch_size=2, concurrency=1)
        support, split = batched.check_support(PAIRS), batched.split(PAIRS)
        assert server.paths() == {COMPLETIONS: 6}  # 5 prompts in 3 requests, twice
        assert [len(entry.body["prompt"]) for entry in server.log[:3]] == [2, 2, 1]
        single = make_judge(server, batch_size=1)
        assert single.check_support(PAIRS) == support and single.split(PAIRS) == split
    assert [verdict.supported for verdict in support] == [True, False, True, True, False]
    assert [verdict.n for verdict in split] == [0, 0, 2, 0, 0]
    assert batched.usage.requests == 6 and not batched.lists_refused


def test_a_batch_is_cached_per_prompt():
    cache = InMemoryRequestCache()
    with FakeOpenAIServer() as server:
        make_judge(server, batch_size=4, cache=cache).check_support(PAIRS)
        assert len(cache) == len(PAIRS)
        for batch_size in (1, 3):  # a second run makes no request, however it would batch
            again = make_judge(server, batch_size=batch_size, cache=cache)
            again.check_support(PAIRS)
            assert again.usage.requests == 0 and again.usage.cache_hits == len(PAIRS)
        assert server.count() == 2


def test_an_endpoint_that_refuses_lists_is_asked_one_prompt_at_a_time_from_then_on():
    with FakeOpenAIServer(refuse_lists=True) as server:
        judge = make_judge(server, batch_size=3, concurrency=1)
        verdicts = judge.check_support(PAIRS)
        assert [verdict.supported for verdict in verdicts] == [True, False, True, True, False]
        assert all(verdict.parsed and not verdict.error for verdict in verdicts)
        assert judge.lists_refused
        # The first list was refused (HTTP 400, not retried); every prompt then went alone.
        kinds = [type(entry.body["prompt"]).__name__ for entry in server.log]
        assert kinds == ["list", "str", "str", "str", "str", "str"]
        assert (judge.usage.requests, judge.usage.failures) == (6, 0)
        judge.split(PAIRS)
        assert server.count() == 6 + len(PAIRS)  # remembered: no list tried again


def test_batches_made_before_a_list_was_refused_go_one_prompt_at_a_time_unsent():
    # At 2 in flight, the second batch is on its way to being sent when the first is refused.
    with FakeOpenAIServer(refuse_lists=True, latency=0.05) as server:
        judge = make_judge(server, batch_size=2, concurrency=2)
        judge.check_support(PAIRS * 2)
        lists = sum(isinstance(entry.body["prompt"], list) for entry in server.log)
        assert judge.usage.requests == server.count() == lists + len(PAIRS) and lists <= 2


class SlowCache(InMemoryRequestCache):
    """Records, at each look-up, the thread it runs in and how many requests the server had by then."""

    def __init__(self, server):
        super().__init__()
        self.server = server
        self.lookups = []

    def get_many(self, keys):
        if self.lookups:  # every chunk after the first: wait until the first chunk's requests arrive
            deadline = time.monotonic() + 5
            while self.server.count() == 0 and time.monotonic() < deadline:
                time.sleep(0.01)
        self.lookups.append((threading.get_ident(), self.server.count()))
        return super().get_many(keys)


def test_the_first_chunk_is_in_flight_while_the_cache_is_asked_for_the_next_from_the_callers_thread():
    pairs = [(TEXT, ["Grace Hopper", "built", f"machine {number}"]) for number in range(6)]
    with FakeOpenAIServer() as server:
        cache = SlowCache(server)
        judge = make_judge(server, batch_size=1, concurrency=2, chunk_size=2, cache=cache)
        verdicts = judge.check_support(pairs)
    assert all(verdict.supported for verdict in verdicts) and len(cache) == 6
    threads, counts = zip(*cache.lookups, strict=True)
    assert set(threads) == {threading.get_ident()}  # the ORM cache is only called from the caller's thread
    assert len(counts) == 3 and counts[0] == 0 and counts[1] >= 1


def test_chat_takes_one_prompt_per_request_whatever_the_batch_size():
    with FakeOpenAIServer() as server:
        judge = make_judge(server, model="gpt-4o-mini", batch_size=8)
        judge.check_support(PAIRS)
        assert judge.batch_size == 1 and server.paths() == {CHAT: len(PAIRS)}


def test_a_batch_size_below_one_is_refused():
    with pytest.raises(ValueError, match="batch_size must be at least 1"):
        get_judge("openai", base_url="http://127.0.0.1:9/v1", batch_size=0)


def test_requests_stream_past_the_cache_writes_and_progress_reports():
    reports = []
    pairs = [(TEXT, ["Grace Hopper", "built", f"machine {number}"]) for number in range(8)]
    with FakeOpenAIServer(latency=0.3) as server:
        judge = make_judge(
            server,
            batch_size=1,
            concurrency=4,
            chunk_size=2,
            progress=lambda done, total: reports.append((done, total)),
        )
        judge.check_support(pairs)
        # Replies are stored every 2 while 4 requests stay in flight: no barrier between groups.
        assert server.max_in_flight == 4
    assert reports == [(2, 8), (4, 8), (6, 8), (8, 8)]


def test_a_caller_that_stops_reading_stops_the_stream():
    def stop(done, total):
        raise RuntimeError("the cache is gone")

    pairs = [(TEXT, ["Grace Hopper", "built", f"machine {number}"]) for number in range(40)]
    with FakeOpenAIServer(latency=0.1) as server:
        judge = make_judge(server, batch_size=1, concurrency=2, chunk_size=2, progress=stop)
        with pytest.raises(RuntimeError, match="the cache is gone"):
            judge.check_support(pairs)
        sent = server.count()
    # The requests in flight when the caller stopped were cancelled; no new one was sent. One
    # cancelled on its way out is counted without reaching the server: at most the 2 in flight.
    assert sent < len(pairs) and sent <= judge.usage.requests <= sent + 2
