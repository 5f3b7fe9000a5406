"""Django's Redis cache shares one connection pool per process: under ASGI it makes a cache
object per request, and each opened a Redis connection of its own (cached_db sessions read
the cache on every request)."""

import pytest
from django.core.cache.backends.redis import RedisCache

from genres_site.cache_pool import SharedConnectionPool

pytestmark = pytest.mark.postgres_relevant

OPTIONS = {"OPTIONS": {"pool_class": "genres_site.cache_pool.SharedConnectionPool"}}


def pool(cache, write):
    return cache._cache._get_connection_pool(write)  # what RedisCache connects through


def test_cache_objects_of_one_process_share_a_pool():
    first, second = RedisCache("redis://127.0.0.1:6379/15", OPTIONS), RedisCache("redis://127.0.0.1:6379/15", OPTIONS)
    assert isinstance(pool(first, True), SharedConnectionPool)
    assert pool(first, True) is pool(second, False)


def test_another_redis_has_its_own_pool():
    first, other = RedisCache("redis://127.0.0.1:6379/15", OPTIONS), RedisCache("redis://127.0.0.1:6379/14", OPTIONS)
    assert pool(first, True) is not pool(other, True)
