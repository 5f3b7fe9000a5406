"""The OpenAI judge over real HTTP against the fake OpenAI-compatible server."""

import asyncio
import concurrent.futures
import time

import pytest

from devtools.fake_openai import CHAT, COMPLETIONS, Failure, FakeOpenAIServer, Hang
from scoring.genres.cache import InMemoryRequestCache
from scoring.genres.judges.base import SPLIT, SUPPORT, factualness, granularity
from scoring.genres.judges.openai_compatible import OpenAIJudge
from scoring.genres.judges.registry import get_judge
from scoring.genres.openai_backend import OpenAIService, RetryPolicy, retry_after_seconds
from scoring.genres.prompts import PROMPT_VERSION

# Every test runs over both transports (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("transport")

TEXT = "Marie Curie won the Nobel Prize in Physics and the Nobel Prize in Chemistry."
PAIRS = [
    (TEXT, ["Marie Curie", "won", "Nobel Prize in Physics and Nobel Prize in Chemistry"]),
    (TEXT, ["Pierre Curie", "won", "Nobel Prize in Chemistry"]),
    (TEXT, ["Marie Curie", "won", "Nobel Prize in Physics"]),
]
# Short waits between attempts, but a generous timeout per attempt: on a loaded machine a slow
# answer must not become a retry that a test counting requests would see.
FAST_RETRIES = RetryPolicy(max_attempts=3, base_delay=0.01, timeout=5.0)


@pytest.fixture
def server():
    with FakeOpenAIServer() as running:
        yield running


def make_judge(server, **options):
    options.setdefault("retry", FAST_RETRIES)
    # One prompt per request: these tests count requests (batches: test_judge_batches.py).
    options.setdefault("batch_size", 1)
    return get_judge("openai", base_url=server.base_url, api_key="test-key", **options)


def test_instruct_models_use_the_completions_route(server):
    judge = make_judge(server, model="gpt-3.5-turbo-instruct")
    verdicts = judge.check_support(PAIRS)
    assert [v.supported for v in verdicts] == [True, False, True]
    assert all(v.parsed for v in verdicts) and verdicts[0].reply == "True"
    assert factualness(verdicts) == pytest.approx(2 / 3)
    assert server.paths() == {COMPLETIONS: 3}
    question = 'Triple: ["Marie Curie", "won", "Nobel Prize in Physics and Nobel Prize in Chemistry"]\nSupported:'
    [request] = [entry for entry in server.log if entry.body["prompt"].endswith(question)]
    assert request.authorization == "Bearer test-key"
    assert request.body["model"] == "gpt-3.5-turbo-instruct"
    assert (request.body["temperature"], request.body["max_tokens"], request.body["stop"]) == (0, 8, ["\n\n"])


def test_chat_models_use_the_chat_route(server):
    judge = make_judge(server, model="gpt-4o-mini")
    verdicts = judge.split(PAIRS)
    assert [v.n for v in verdicts] == [2, 0, 0]
    assert verdicts[0].sub_triples == [
        ["Marie Curie", "won", "Nobel Prize in Physics"],
        ["Marie Curie", "won", "Nobel Prize in Chemistry"],
    ]
    assert granularity(verdicts) == pytest.approx((0.1353352832 + 1 + 1) / 3)
    assert server.paths() == {CHAT: 3}
    messages = server.log[0].body["messages"]
    assert messages[0]["role"] == "system" and messages[-1]["role"] == "user"
    assert server.log[0].body["temperature"] == 0


def test_the_api_can_be_chosen(server):
    make_judge(server, model="local-llama", api="completions").check_support(PAIRS[:1])
    assert server.paths() == {COMPLETIONS: 1}
    with pytest.raises(ValueError, match="unknown API 'edits'"):
        make_judge(server, api="edits")


def test_provenance():
    judge = OpenAIJudge(model="gpt-3.5-turbo-instruct", base_url="http://127.0.0.1:9/v1")
    assert (judge.name, judge.model, judge.prompt_version, judge.heuristic) == (
        "openai",
        "gpt-3.5-turbo-instruct",
        PROMPT_VERSION,
        False,
    )


def test_settings_come_from_the_environment(monkeypatch, server):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    monkeypatch.setenv("GENRES_JUDGE_MODEL", "env-model-instruct")
    monkeypatch.setenv("GENRES_OPENAI_CONCURRENCY", "3")
    judge = OpenAIJudge()
    judge.check_support(PAIRS[:1])
    assert (judge.model, judge.service.concurrency) == ("env-model-instruct", 3)
    assert server.log[0].authorization == "Bearer from-env"


def test_a_bad_setting_is_named(monkeypatch):
    monkeypatch.setenv("GENRES_OPENAI_CONCURRENCY", "many")
    with pytest.raises(ValueError, match="GENRES_OPENAI_CONCURRENCY='many' is not a valid int"):
        OpenAIJudge(base_url="http://127.0.0.1:9/v1")


def test_openai_itself_needs_a_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY is not set"):
        OpenAIJudge()


def test_a_second_identical_run_makes_no_request(server):
    cache = InMemoryRequestCache()
    first = make_judge(server, cache=cache)
    before = first.check_support(PAIRS), first.split(PAIRS)
    assert server.count() == 6
    second = make_judge(server, cache=cache)
    assert second.count_requests(PAIRS, SUPPORT).to_send == 0
    after = second.check_support(PAIRS), second.split(PAIRS)
    assert server.count() == 6
    assert after == before
    assert (second.usage.requests, second.usage.cache_hits) == (0, 6)


def test_an_empty_batch_sends_nothing(server):
    judge = make_judge(server)
    assert judge.check_support([]) == [] and judge.split([]) == []
    assert server.count() == 0


def test_identical_questions_are_asked_once(server):
    judge = make_judge(server)
    count = judge.count_requests(PAIRS * 4, SUPPORT)
    assert (count.judgements, count.requests, count.cached, count.to_send) == (12, 3, 0, 3)
    assert len(judge.check_support(PAIRS * 4)) == 12
    assert server.count() == 3


def test_split_asks_once_per_triple_whatever_the_text(server):
    triple = ["Marie Curie", "won", "Nobel Prize in Physics"]
    judge = make_judge(server)
    assert judge.count_requests([("one text", triple), ("another text", triple)], SPLIT).requests == 1
    judge.split([("one text", triple), ("another text", triple)])
    assert server.count() == 1


def test_tokens_are_counted(server):
    judge = make_judge(server)
    judge.check_support(PAIRS)
    usage = judge.usage
    assert usage.requests == 3 and usage.retries == 0 and usage.failures == 0
    assert usage.completion_tokens == 3  # one word each: True, False, True
    assert usage.prompt_tokens == sum(len(entry.body["prompt"].split()) for entry in server.log)


def test_progress_is_reported_between_chunks(server):
    reports = []
    judge = make_judge(server, chunk_size=2, progress=lambda done, total: reports.append((done, total)))
    judge.check_support(PAIRS)
    assert reports == [(2, 3), (3, 3)]


def test_unparseable_reply_is_kept_and_scored_as_not_supported(server):
    server.reply_with(lambda prompt: "<b>Perhaps</b>")
    judge = make_judge(server)
    [verdict] = judge.check_support(PAIRS[:1])
    assert (verdict.supported, verdict.parsed, verdict.reply, verdict.error) == (False, False, "<b>Perhaps</b>", "")
    [split] = judge.split(PAIRS[:1])
    assert (split.n, split.parsed, split.reply) == (0, False, "<b>Perhaps</b>")


def test_429_is_retried_after_the_wait_the_server_asks_for(server):
    server.script(Failure(429, retry_after="0.3"))
    judge = make_judge(server)
    started = time.monotonic()
    [verdict] = judge.check_support(PAIRS[:1])
    assert time.monotonic() - started >= 0.3
    assert verdict.supported and verdict.parsed
    assert (judge.usage.requests, judge.usage.retries, judge.usage.failures) == (2, 1, 0)


def test_500_is_retried(server):
    server.script(Failure(500))
    judge = make_judge(server)
    [verdict] = judge.check_support(PAIRS[:1])
    assert verdict.supported and not verdict.error
    assert server.count() == 2


def test_a_timeout_is_retried(server):
    server.script(Hang(5))
    judge = make_judge(server, retry=RetryPolicy(max_attempts=3, base_delay=0.01, timeout=0.5))
    [verdict] = judge.check_support(PAIRS[:1])
    assert verdict.supported and not verdict.error
    assert (judge.usage.requests, judge.usage.retries) == (2, 1)


def test_a_final_failure_is_kept_and_the_batch_goes_on(server):
    server.script(Failure(500), Failure(500), Failure(500))  # every attempt of the first request
    judge = make_judge(server, concurrency=1)
    verdicts = judge.check_support(PAIRS)
    assert verdicts[0].parsed is False and verdicts[0].supported is False
    assert verdicts[0].error.startswith("HTTP 500: ") and verdicts[0].error.endswith("(after 3 attempts)")
    assert [v.supported for v in verdicts[1:]] == [False, True]
    assert (judge.usage.requests, judge.usage.failures) == (5, 1)


def test_failures_are_not_cached(server):
    cache = InMemoryRequestCache()
    server.script(Failure(503), Failure(503), Failure(503))
    assert make_judge(server, cache=cache).check_support(PAIRS[:1])[0].error
    assert make_judge(server, cache=cache).check_support(PAIRS[:1])[0].supported
    assert len(cache) == 1


def test_timeouts_to_the_last_attempt_are_a_failure(server):
    server.script(Hang(5), Hang(5))
    judge = make_judge(server, retry=RetryPolicy(max_attempts=2, base_delay=0.01, timeout=0.3))
    [verdict] = judge.check_support(PAIRS[:1])
    assert verdict.error == "EndpointUnreachable: no answer within 0.3 s (after 2 attempts)"


def test_a_response_without_choices_is_a_failure(server):
    server.script(Failure(200))  # status 200 with an error body: no choices in it
    judge = make_judge(server)
    [verdict] = judge.check_support(PAIRS[:1])
    assert verdict.error == "MalformedResponse: the endpoint answered without any choice (after 1 attempt)"
    assert (judge.usage.requests, judge.usage.failures) == (1, 1)


def test_the_server_may_say_whether_to_retry(server):
    server.script(Failure(500, should_retry="false"), Failure(409, should_retry="true"))
    judge = make_judge(server)
    [refused] = judge.check_support(PAIRS[:1])
    [answered] = judge.check_support(PAIRS[1:2])
    assert refused.error.startswith("HTTP 500: ") and refused.error.endswith("(after 1 attempt)")
    assert not answered.error and server.count() == 3


def test_client_errors_are_not_retried(server):
    server.script(Failure(400))
    judge = make_judge(server)
    [verdict] = judge.check_support(PAIRS[:1])
    assert verdict.error.startswith("HTTP 400: ") and verdict.error.endswith("(after 1 attempt)")
    assert server.count() == 1


def test_every_attempt_passes_the_rate_limiter(server):
    class CountingLimiter:
        acquired = 0

        async def acquire(self):
            CountingLimiter.acquired += 1

    server.script(Failure(429), Failure(502))
    judge = make_judge(server, limiter=CountingLimiter())
    judge.check_support(PAIRS)
    assert CountingLimiter.acquired == server.count() == 5


def test_requests_run_concurrently_up_to_the_limit(server):
    server.latency = 0.1
    pairs = [(TEXT, ["Marie Curie", "won", f"prize {number}"]) for number in range(12)]
    make_judge(server, concurrency=4).check_support(pairs)
    assert server.count() == 12
    assert 1 < server.max_in_flight <= 4


def test_backoff_grows_exponentially_with_full_jitter():
    policy = RetryPolicy(base_delay=0.5, max_delay=3.0)
    upper_bound = lambda low, high: high  # noqa: E731 - the largest draw
    assert [policy.delay(attempt, uniform=upper_bound) for attempt in (1, 2, 3, 4, 5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert all(0 <= policy.delay(3) <= 2.0 for _ in range(100))


def test_retry_after_is_a_floor():
    policy = RetryPolicy(base_delay=0.5)
    assert all(7.0 <= policy.delay(1, retry_after=7.0) <= 7.5 for _ in range(100))


@pytest.mark.parametrize(
    "headers, seconds",
    [
        ({}, None),
        ({"retry-after": "2"}, 2.0),
        ({"retry-after": "0.25"}, 0.25),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": "Thu, 01 Jan 1970 00:00:00 GMT"}, 0.0),
        ({"retry-after": "soon"}, None),
    ],
)
def test_retry_after_header(headers, seconds):
    assert retry_after_seconds(headers) == seconds


def test_impossible_settings_are_refused():
    with pytest.raises(ValueError, match="max_attempts must be at least 1"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError, match="concurrency must be at least 1"):
        OpenAIService(base_url="http://127.0.0.1:9/v1", concurrency=-1)


def test_it_can_be_called_where_an_event_loop_is_running(server):
    judge = make_judge(server)

    async def from_async_code():
        return judge.check_support(PAIRS[:1])

    # A thread of its own, so that the test does not depend on the state of the test thread.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        [verdict] = pool.submit(asyncio.run, from_async_code()).result()
    assert verdict.supported and verdict.parsed
