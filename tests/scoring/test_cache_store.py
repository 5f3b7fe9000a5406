"""The database request cache: judge replies and vectors, in bulk, shared, first answer kept."""

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.genres.cache import request_key
from scoring.genres.embedders import cache_key, get_embedder
from scoring.models.cache import BATCH_SIZE, CachedResponse, DatabaseRequestCache, split_key

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


def test_replies_and_vectors_come_back_as_stored():
    cache = DatabaseRequestCache()
    reply_key = request_key("gpt-4o-mini", {"messages": [{"role": "user", "content": "Supported?"}]})
    vector_key = cache_key("text-embedding-ada-002", "Marie Curie")
    vector = np.array([0.25, -0.5, 1.0], dtype=np.float32)
    cache.set_many({reply_key: {"reply": "True"}, vector_key: vector})
    found = DatabaseRequestCache().get_many([reply_key, vector_key, cache_key("other", "x")])
    assert found[reply_key] == {"reply": "True"}
    assert found[vector_key].dtype == np.float32 and np.array_equal(found[vector_key], vector)
    assert len(found) == 2


def test_models_keep_their_entries_apart():
    cache = DatabaseRequestCache()
    cache.set_many({cache_key("model-a", "text"): np.ones(2, np.float32)})
    assert cache.get_many([cache_key("model-b", "text")]) == {}


def test_model_names_with_colons_are_split_at_the_last_one():
    key = request_key("llama3:8b", {"prompt": "x"})
    assert split_key(key) == ("llama3:8b", key.rsplit(":", 1)[1])
    with pytest.raises(ValueError, match="not a request cache key"):
        split_key("no-hash-here")


def test_the_first_answer_stored_is_kept_and_a_second_write_does_not_fail():
    key = request_key("gpt-4o-mini", {"prompt": "x"})
    DatabaseRequestCache().set_many({key: {"reply": "first"}})
    DatabaseRequestCache().set_many({key: {"reply": "second"}})
    assert CachedResponse.objects.count() == 1
    assert DatabaseRequestCache().get_many([key]) == {key: {"reply": "first"}}


def test_bulk_reads_and_writes_take_a_query_per_batch():
    count = BATCH_SIZE + 1
    vectors = {cache_key("hashing", f"text {number}"): np.full(4, number, np.float32) for number in range(count)}
    cache = DatabaseRequestCache()
    with CaptureQueriesContext(connection) as writes:
        cache.set_many(vectors)
    with CaptureQueriesContext(connection) as reads:
        found = cache.get_many(list(vectors))
    assert len(found) == count and cache.hits == count
    assert len(writes) <= 4 and len(reads) == 2  # two batches (SQLite may add savepoints to writes)


def test_an_embedder_reuses_the_vectors_of_another_process():
    first = get_embedder("hashing", cache=DatabaseRequestCache())
    vectors = first.embed(["Marie Curie", "born in"])
    reader = DatabaseRequestCache()
    again = get_embedder("hashing", cache=reader).embed(["Marie Curie", "born in"])
    assert np.array_equal(vectors, again) and reader.hits == 2
