"""Rate limits for requests to an OpenAI-compatible endpoint.

An account's limit (requests per minute) is shared by every RQ worker on every machine, so
the limiter that counts requests must be shared too: ``RedisRateLimiter`` keeps one token
bucket in Redis and updates it with a Lua script, which Redis runs atomically, on Redis's own
clock (no drift between machines). ``LocalRateLimiter`` is the same bucket inside one process,
for when no Redis client is given; ``NoRateLimit`` lets everything through.

The buckets hand out reservations: a caller always takes a token, and when the bucket is empty
it learns how long to wait for its turn. One round trip per request, first come first served.
"""

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

DEFAULT_REDIS_KEY = "genres:openai:rate-limit"

# KEYS[1]: bucket hash. ARGV: refill rate (tokens per second), capacity (burst).
# Returns the wait in microseconds: Lua numbers come back from Redis as integers.
TOKEN_BUCKET_SCRIPT = """
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'updated')
local tokens = tonumber(state[1]) or capacity
local updated = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - updated) * rate) - 1
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'updated', tostring(now))
local wait = 0
if tokens < 0 then wait = -tokens / rate end
redis.call('PEXPIRE', KEYS[1], math.ceil((wait + capacity / rate) * 1000) + 1000)
return math.ceil(wait * 1000000)
"""


class RateLimiter(Protocol):
    async def acquire(self) -> None:
        """Return when one more request may be sent."""


class NoRateLimit:
    async def acquire(self) -> None:
        return None


def _check_limit(requests_per_minute: float, burst: int) -> None:
    if requests_per_minute <= 0:
        raise ValueError(f"requests_per_minute must be positive, got {requests_per_minute}")
    if burst < 1:
        raise ValueError(f"burst must be at least 1, got {burst}")


class LocalRateLimiter:
    """A token bucket in this process: ``requests_per_minute`` on average, ``burst`` at once."""

    def __init__(self, requests_per_minute: float, burst: int = 1, clock: Callable[[], float] = time.monotonic) -> None:
        _check_limit(requests_per_minute, burst)
        self.rate = requests_per_minute / 60
        self.capacity = burst
        self._clock = clock
        self._tokens = float(burst)
        self._updated = clock()
        # Several threads (each with its own event loop) may share one limiter.
        self._lock = threading.Lock()

    def reserve(self) -> float:
        """Take a token; the seconds to wait before using it."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self.capacity, self._tokens + (now - self._updated) * self.rate) - 1
            self._updated = now
            return max(0.0, -self._tokens / self.rate)

    async def acquire(self) -> None:
        await asyncio.sleep(self.reserve())


class RedisRateLimiter:
    """The same bucket kept in Redis under ``key``, shared by every process that uses that key.

    ``client`` is a synchronous redis-py client; the script call runs in a thread so the event
    loop keeps serving the other requests in flight.
    """

    def __init__(self, client: Any, requests_per_minute: float, burst: int = 1, key: str = DEFAULT_REDIS_KEY) -> None:
        _check_limit(requests_per_minute, burst)
        self.rate = requests_per_minute / 60
        self.capacity = burst
        self.key = key
        self._script = client.register_script(TOKEN_BUCKET_SCRIPT)

    def reserve(self) -> float:
        """Take a token; the seconds to wait before using it."""
        microseconds = self._script(keys=[self.key], args=[repr(self.rate), str(self.capacity)])
        return int(microseconds) / 1_000_000

    async def acquire(self) -> None:
        await asyncio.sleep(await asyncio.to_thread(self.reserve))


def rate_limiter(
    requests_per_minute: float, burst: int = 1, redis_client: Any = None, key: str = DEFAULT_REDIS_KEY
) -> RateLimiter:
    """The limiter for a configured limit: none for 0, in Redis when a client is given."""
    if not requests_per_minute:
        return NoRateLimit()
    if redis_client is None:
        return LocalRateLimiter(requests_per_minute, burst)
    return RedisRateLimiter(redis_client, requests_per_minute, burst, key)
