"""One Redis connection pool per process for Django's cache (and so for the sessions).

Django keeps a cache object per request context under ASGI (``caches`` is a context-local), and
its Redis cache makes a connection pool per cache object: every request served by uvicorn
opened, used once and dropped a connection to Redis of its own. Given as the cache's
``pool_class``, this hands every cache object of the process the same pool for the same
settings; redis-py's pools are thread-safe and start afresh in a forked child.
"""

from functools import cache
from typing import Any

import redis


class SharedConnectionPool(redis.ConnectionPool):
    @classmethod
    @cache
    def from_url(cls, url: str, **options: Any) -> redis.ConnectionPool:  # type: ignore[override]  # cache wraps it
        return super().from_url(url, **options)
