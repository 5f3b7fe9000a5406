"""The OpenAI embedder over real HTTP against the fake OpenAI-compatible server."""

import numpy as np
import pytest

from devtools.fake_openai import EMBEDDINGS, Failure, FakeOpenAIServer, fake_embedding
from scoring.genres.cache import InMemoryRequestCache
from scoring.genres.embedders import (
    Embedder,
    EmbeddingRequestError,
    OpenAIEmbedder,
    get_embedder,
)
from scoring.genres.openai_backend import RetryPolicy

# Every test runs over both transports (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("transport")

TEXTS = ["Marie Curie", "won", "Nobel Prize in Physics", "Pierre Curie", "won"]
# Short waits between attempts, but a generous timeout per attempt: on a loaded machine a slow
# answer must not become a retry that a test counting requests would see.
FAST_RETRIES = RetryPolicy(max_attempts=3, base_delay=0.01, timeout=5.0)


@pytest.fixture
def server():
    with FakeOpenAIServer(embedding_dimension=16) as running:
        yield running


def make_embedder(server, **options):
    options.setdefault("retry", FAST_RETRIES)
    options.setdefault("dimension", 16)
    return get_embedder("openai", base_url=server.base_url, api_key="test-key", **options)


def test_it_follows_the_embedder_protocol():
    embedder = OpenAIEmbedder(base_url="http://127.0.0.1:9/v1")
    assert isinstance(embedder, Embedder)
    assert (embedder.name, embedder.model, embedder.dimension, embedder.default_threshold) == (
        "openai",
        "text-embedding-ada-002",
        1536,
        0.95,
    )


def test_unit_rows_in_the_direction_of_the_returned_vectors(server):
    vectors = make_embedder(server).embed(TEXTS)
    assert vectors.shape == (5, 16) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    expected = fake_embedding("Nobel Prize in Physics", 16)
    np.testing.assert_allclose(vectors[2], expected / np.linalg.norm(expected), rtol=1e-5)
    np.testing.assert_array_equal(vectors[1], vectors[4])


def test_distinct_texts_are_sent_in_batches(server):
    make_embedder(server, batch_size=2).embed(TEXTS)
    assert server.paths() == {EMBEDDINGS: 2}  # 4 distinct texts, 2 per request
    sent = sorted(entry.body["input"] for entry in server.log)  # the two requests run concurrently
    assert sent == [["Marie Curie", "won"], ["Nobel Prize in Physics", "Pierre Curie"]]
    body = server.log[0].body
    assert (body["model"], body["encoding_format"]) == ("text-embedding-ada-002", "float")


def test_a_second_identical_run_makes_no_request(server):
    cache = InMemoryRequestCache()
    first = make_embedder(server, cache=cache).embed(TEXTS)
    requests = server.count()
    second = make_embedder(server, cache=cache).embed(TEXTS)
    assert server.count() == requests == 1
    np.testing.assert_array_equal(first, second)


def test_an_empty_text_gets_a_zero_vector_without_a_request(server):
    vectors = make_embedder(server).embed(["", "   ", "Curie"])
    assert not vectors[:2].any()
    assert server.log[0].body["input"] == ["Curie"]


def test_rate_limits_and_server_errors_are_retried(server):
    server.script(Failure(429, retry_after="0.05"), Failure(502))
    embedder = make_embedder(server)
    assert embedder.embed(TEXTS).shape == (5, 16)
    assert (embedder.usage.requests, embedder.usage.retries, embedder.usage.failures) == (3, 2, 0)
    assert embedder.usage.prompt_tokens == 9  # the fake counts words: 2 + 1 + 4 + 2 in the 4 distinct texts


def test_a_failed_request_is_an_error_naming_the_batch(server):
    server.script(Failure(500), Failure(500), Failure(500))
    embedder = make_embedder(server, batch_size=10, concurrency=1)
    failure = r"embedding request 1 of 1 \(4 texts, the first 'Marie Curie'\) failed: HTTP 500"
    with pytest.raises(EmbeddingRequestError, match=failure):
        embedder.embed(TEXTS)


def test_a_response_without_embeddings_is_an_error(server):
    server.script(Failure(200))  # status 200 with an error body: no data in it
    with pytest.raises(EmbeddingRequestError, match="failed: MalformedResponse: the endpoint answered without any"):
        make_embedder(server).embed(TEXTS)


def test_vectors_of_the_wrong_size_are_refused(server):
    embedder = make_embedder(server, dimension=32)
    with pytest.raises(EmbeddingRequestError, match=r"expected 4 vectors of 32 floats, got shape \(4, 16\)"):
        embedder.embed(TEXTS)


def test_an_unknown_model_needs_its_dimension(monkeypatch, server):
    monkeypatch.delenv("GENRES_EMBEDDING_DIMENSION", raising=False)
    with pytest.raises(ValueError, match="dimension of embedding model 'nomic-embed-text' is unknown"):
        OpenAIEmbedder(model="nomic-embed-text", base_url=server.base_url)
    monkeypatch.setenv("GENRES_EMBEDDING_DIMENSION", "768")
    monkeypatch.setenv("GENRES_EMBEDDING_MODEL", "nomic-embed-text")
    embedder = OpenAIEmbedder(base_url=server.base_url)
    assert (embedder.model, embedder.dimension) == ("nomic-embed-text", 768)
