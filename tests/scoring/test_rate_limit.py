"""Token buckets: in one process, and in Redis shared by every worker."""

import asyncio
import uuid

import pytest
import redis
from django.conf import settings

from devtools.fake_openai import FakeOpenAIServer
from scoring.genres.judges.openai_compatible import OpenAIJudge
from scoring.genres.openai_backend import OpenAIService
from scoring.genres.ratelimit import LocalRateLimiter, NoRateLimit, RedisRateLimiter, rate_limiter

pytestmark = pytest.mark.postgres_relevant


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_local_bucket_lets_a_burst_through_then_spaces_requests():
    clock = FakeClock()
    limiter = LocalRateLimiter(requests_per_minute=120, burst=2, clock=clock)  # 2 per second
    assert [limiter.reserve() for _ in range(4)] == [0.0, 0.0, 0.5, 1.0]


def test_local_bucket_refills_with_time_up_to_its_capacity():
    clock = FakeClock()
    limiter = LocalRateLimiter(requests_per_minute=60, burst=3, clock=clock)  # 1 per second
    assert [limiter.reserve() for _ in range(3)] == [0.0, 0.0, 0.0]
    clock.now += 1.5
    assert limiter.reserve() == 0.0
    assert limiter.reserve() == pytest.approx(0.5)
    clock.now += 60
    assert [limiter.reserve() for _ in range(4)] == [0.0, 0.0, 0.0, 1.0]


def test_local_acquire_waits_its_turn():
    clock = FakeClock()
    limiter = LocalRateLimiter(requests_per_minute=6000, burst=1, clock=clock)  # 100 per second
    asyncio.run(limiter.acquire())
    asyncio.run(limiter.acquire())
    assert limiter.reserve() == pytest.approx(0.02)


@pytest.mark.parametrize("rpm, burst, message", [(0, 1, "requests_per_minute"), (60, 0, "burst")])
def test_impossible_limits_are_refused(rpm, burst, message):
    with pytest.raises(ValueError, match=message):
        LocalRateLimiter(rpm, burst)


@pytest.fixture
def redis_client():
    client = redis.Redis.from_url(settings.REDIS_URL)
    yield client
    client.close()


@pytest.fixture
def bucket_key(redis_client):
    key = f"test:rate-limit:{uuid.uuid4().hex}"
    yield key
    redis_client.delete(key)


def test_redis_bucket_is_shared_by_every_limiter_on_the_key(redis_client, bucket_key):
    # Two workers with their own limiter objects, one account limit: 60/min, burst 2.
    first = RedisRateLimiter(redis_client, requests_per_minute=60, burst=2, key=bucket_key)
    second = RedisRateLimiter(redis_client, requests_per_minute=60, burst=2, key=bucket_key)
    waits = [first.reserve(), second.reserve(), first.reserve(), second.reserve()]
    assert waits[:2] == [0.0, 0.0]
    assert waits[2] == pytest.approx(1.0, abs=0.05)
    assert waits[3] == pytest.approx(2.0, abs=0.05)


def test_redis_bucket_expires_when_idle(redis_client, bucket_key):
    RedisRateLimiter(redis_client, requests_per_minute=60, burst=5, key=bucket_key).reserve()
    assert 0 < redis_client.pttl(bucket_key) <= 6000


def test_separate_keys_are_separate_buckets(redis_client, bucket_key):
    other_key = bucket_key + ":other"
    try:
        RedisRateLimiter(redis_client, 60, 1, key=bucket_key).reserve()
        assert RedisRateLimiter(redis_client, 60, 1, key=other_key).reserve() == 0.0
    finally:
        redis_client.delete(other_key)


def test_redis_acquire_returns_at_once_while_tokens_last(redis_client, bucket_key):
    limiter = RedisRateLimiter(redis_client, requests_per_minute=600, burst=3, key=bucket_key)

    async def three():
        await asyncio.gather(limiter.acquire(), limiter.acquire(), limiter.acquire())

    asyncio.run(three())
    assert limiter.reserve() == pytest.approx(0.1, abs=0.02)


def test_the_configured_limit_picks_the_limiter(redis_client):
    assert isinstance(rate_limiter(0), NoRateLimit)
    assert isinstance(rate_limiter(600), LocalRateLimiter)
    assert isinstance(rate_limiter(600, redis_client=redis_client), RedisRateLimiter)


def test_the_service_counts_in_redis_when_given_a_client(monkeypatch, redis_client):
    monkeypatch.setenv("GENRES_OPENAI_REQUESTS_PER_MINUTE", "3000")
    service = OpenAIService(base_url="http://127.0.0.1:9/v1", redis_client=redis_client)
    assert isinstance(service.limiter, RedisRateLimiter)
    assert (service.limiter.rate, service.limiter.capacity) == (50, 50)  # bursts of one second's worth
    assert isinstance(OpenAIService(base_url="http://127.0.0.1:9/v1").limiter, LocalRateLimiter)
    monkeypatch.setenv("GENRES_OPENAI_REQUESTS_PER_MINUTE", "0")
    assert isinstance(OpenAIService(base_url="http://127.0.0.1:9/v1").limiter, NoRateLimit)


def test_a_judge_draws_on_the_shared_bucket(redis_client, bucket_key):
    limiter = RedisRateLimiter(redis_client, requests_per_minute=60, burst=10, key=bucket_key)
    pairs = [("Ada wrote notes.", ["Ada", "wrote", f"note {number}"]) for number in range(3)]
    with FakeOpenAIServer() as server:
        OpenAIJudge(base_url=server.base_url, limiter=limiter, batch_size=1).check_support(pairs)
    tokens = float(redis_client.hget(bucket_key, "tokens"))
    assert 7 <= tokens < 8  # 10 - 3, plus what one token a second refilled meanwhile
