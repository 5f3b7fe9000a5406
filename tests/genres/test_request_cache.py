"""Cache keys name the model and the exact request; the in-memory cache keeps what it is given."""

import hashlib
import json

from scoring.genres.cache import InMemoryRequestCache, request_key

PAYLOAD = {"prompt": "Is it true?", "temperature": 0, "max_tokens": 8, "stop": ["\n\n"]}


def test_key_is_model_and_sha256_of_the_canonical_request():
    canonical = json.dumps({"model": "m", "request": PAYLOAD}, sort_keys=True, separators=(",", ":"))
    assert request_key("m", PAYLOAD) == "m:" + hashlib.sha256(canonical.encode()).hexdigest()


def test_key_ignores_the_order_of_parameters():
    reordered = dict(reversed(list(PAYLOAD.items())))
    assert request_key("m", reordered) == request_key("m", PAYLOAD)


def test_every_parameter_and_the_model_change_the_key():
    key = request_key("m", PAYLOAD)
    assert request_key("other-model", PAYLOAD) != key
    assert request_key("m", {**PAYLOAD, "temperature": 1}) != key
    assert request_key("m", {**PAYLOAD, "max_tokens": 9}) != key
    assert request_key("m", {**PAYLOAD, "stop": []}) != key
    assert request_key("m", {**PAYLOAD, "prompt": "Is it true? "}) != key


def test_model_names_with_colons_keep_the_digest_last():
    model, _, digest = request_key("llama3:8b", PAYLOAD).rpartition(":")
    assert model == "llama3:8b" and len(digest) == 64


def test_in_memory_cache_returns_only_what_it_holds():
    cache = InMemoryRequestCache()
    assert cache.get_many(["a", "b"]) == {}
    cache.set_many({"a": {"reply": "True"}})
    assert cache.get_many(["a", "b"]) == {"a": {"reply": "True"}}
    cache.set_many({"a": {"reply": "False"}, "b": {"reply": "True"}})
    assert cache.get_many(["b", "a"]) == {"a": {"reply": "False"}, "b": {"reply": "True"}}
    assert len(cache) == 2


def test_in_memory_cache_lists_its_keys_oldest_first():
    cache = InMemoryRequestCache(max_entries=2)
    cache.set_many({"a": 1, "b": 2})
    cache.set_many({"c": 3})
    assert cache.keys() == ["b", "c"]
    assert cache.get_many(cache.keys()) == {"b": 2, "c": 3}
