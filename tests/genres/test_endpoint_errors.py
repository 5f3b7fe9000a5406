"""What the judge and the embedder make of an endpoint that answers badly, over real HTTP."""

import json
import socket

import pytest

from devtools.fake_openai import FakeOpenAIServer, Raw
from scoring.genres.embedders import EmbeddingRequestError, get_embedder
from scoring.genres.endpoints import ERROR_MESSAGE_CHARS
from scoring.genres.judges.registry import get_judge
from scoring.genres.openai_backend import RetryPolicy

# Every test runs over both transports (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("transport")

PAIR = ("Marie Curie was born in Warsaw.", ["Marie Curie", "born in", "Warsaw"])
RETRIES = RetryPolicy(max_attempts=2, base_delay=0.01, timeout=5.0)


@pytest.fixture
def server():
    with FakeOpenAIServer(embedding_dimension=4) as running:
        yield running


def judge_of(base_url):
    return get_judge("openai", base_url=base_url, api_key="test-key", retry=RETRIES, batch_size=1)


def test_a_proxy_error_page_is_retried_and_named_by_its_text(server):
    page = b"<html><body>502 Bad Gateway" + b" upstream down" * 100 + b"</body></html>"
    server.script(Raw(502, page), Raw(502, page))
    [verdict] = judge_of(server.base_url).check_support([PAIR])
    message = verdict.error.removesuffix(" (after 2 attempts)")
    assert message.startswith("HTTP 502: <html><body>502 Bad Gateway upstream down")
    assert len(message) == len("HTTP 502: ") + ERROR_MESSAGE_CHARS
    assert server.count() == 2


def test_an_answer_that_is_not_json_is_a_failure_not_retried(server):
    server.script(Raw(200, b"Supported: True"))
    [verdict] = judge_of(server.base_url).check_support([PAIR])
    assert verdict.error == "MalformedResponse: the endpoint answered HTTP 200 with no JSON (after 1 attempt)"
    assert server.count() == 1


def test_an_error_body_without_text_says_so(server):
    server.script(Raw(400, b""))
    [verdict] = judge_of(server.base_url).check_support([PAIR])
    assert verdict.error == "HTTP 400: (empty body) (after 1 attempt)"


def test_an_endpoint_nobody_listens_on_is_retried_then_a_failure():
    with socket.socket() as probe:  # a free port, closed again: connections to it are refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    judge = judge_of(f"http://127.0.0.1:{port}/v1")
    [verdict] = judge.check_support([PAIR])
    assert verdict.error.startswith("EndpointUnreachable: ") and f"127.0.0.1:{port}" in verdict.error
    assert verdict.error.endswith("(after 2 attempts)") and "no answer within" not in verdict.error
    assert (judge.usage.requests, judge.usage.retries, judge.usage.failures) == (2, 1, 1)


def test_embeddings_without_an_index_are_a_failure(server):
    data = [{"object": "embedding", "embedding": [0.1, 0.2, 0.3, 0.4]}]
    server.script(Raw(200, json.dumps({"object": "list", "data": data}).encode()))
    embedder = get_embedder("openai", model="any", dimension=4, base_url=server.base_url, api_key="k", retry=RETRIES)
    with pytest.raises(EmbeddingRequestError, match=r"failed: MalformedResponse: .* without an index or a vector"):
        embedder.embed(["Marie Curie"])


def test_embeddings_of_different_lengths_are_refused(server):
    data = [{"index": 0, "embedding": [0.1, 0.2]}, {"index": 1, "embedding": [0.1, 0.2, 0.3, 0.4]}]
    server.script(Raw(200, json.dumps({"object": "list", "data": data}).encode()))
    embedder = get_embedder("openai", model="any", dimension=4, base_url=server.base_url, api_key="k", retry=RETRIES)
    with pytest.raises(EmbeddingRequestError, match="not lists of numbers of one length"):
        embedder.embed(["Marie Curie", "Warsaw"])
