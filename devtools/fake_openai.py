"""An OpenAI-compatible HTTP server for tests and benchmarks: no test ever reaches a real API.

    with FakeOpenAIServer(latency=0.05) as server:
        judge = OpenAIJudge(base_url=server.base_url, api_key="test-key")

Routes: POST /v1/completions, /v1/chat/completions and /v1/embeddings (and the same under an
Azure OpenAI deployment, /openai/deployments/NAME/...), answered in the shapes the official
client parses; ``ssl_context=`` serves them over HTTPS. /v1/completions takes a prompt or a list of prompts (one
choice per prompt, as OpenAI and vLLM answer), unless ``refuse_lists`` makes it answer a list
with HTTP 400, as an endpoint that takes one prompt does. Replies are derived from the prompt, so they are
deterministic and can be predicted by a test:

- a support question ("Text: ...", "Triple: [...]", "Supported:") is answered "True" when
  the triple's subject occurs in the text (case ignored), else "False";
- a split question ("Triple: [...]", "Finer triples:") splits the object at " and ", writes
  one JSON triple per part and ends with "Granularity: N";
- anything else gets "I cannot tell.";
- an embedding is a pseudo-random vector seeded by the SHA-256 of its input.

``reply_with(function)`` replaces the completion text, ``script(...)`` makes the next requests
fail (``Failure``), answer raw bytes (``Raw``) or hang (``Hang``); ``log``, ``count(path)``, ``paths()`` and
``max_in_flight`` show what was asked, and how many requests were open at once.
"""

import hashlib
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

COMPLETIONS = "/v1/completions"
CHAT = "/v1/chat/completions"
EMBEDDINGS = "/v1/embeddings"

_SUPPORT_QUESTION = re.compile(r"Text: (?P<text>.*)\nTriple: (?P<triple>\[.*\])\nSupported:\s*$", re.DOTALL)
_SPLIT_QUESTION = re.compile(r"Triple: (?P<triple>\[.*\])\nFiner triples:\s*$")


@dataclass(frozen=True)
class Failure:
    """Answer the request with this HTTP error status (and Retry-After and x-should-retry headers, if given)."""

    status: int
    retry_after: str | None = None
    should_retry: str | None = None


@dataclass(frozen=True)
class Raw:
    """Answer the request with this status and these bytes as they are (a proxy's HTML page, a broken body)."""

    status: int
    body: bytes


@dataclass(frozen=True)
class Hang:
    """Answer the request only after this many seconds (longer than the client waits)."""

    seconds: float


@dataclass(frozen=True)
class LoggedRequest:
    path: str  # as requested, query included
    body: dict
    authorization: str
    headers: dict  # names in lower case


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # The default backlog of 5 refuses connections when a client opens 16 at once.
    request_queue_size = 128


def route(path):
    """The route a request path asks for: an Azure OpenAI deployment's path
    (/openai/deployments/NAME/completions?api-version=...) as its OpenAI equivalent."""
    path = path.split("?", 1)[0]
    if match := re.fullmatch(r"/openai/deployments/[^/]+(/.+)", path):
        return f"/v1{match[1]}"
    return path


def _last_question(prompt):
    """The final question of a few-shot prompt: the text after the last example."""
    return prompt.rsplit("\n\n", 1)[-1]


def model_reply(prompt):
    """What the fake model answers to a prompt (the completion text or the chat message)."""
    if support := _SUPPORT_QUESTION.search(prompt):
        text = support["text"].rsplit("Text: ", 1)[-1]
        subject = json.loads(support["triple"])[0]
        return "True" if subject.casefold() in text.casefold() else "False"
    if split := _SPLIT_QUESTION.search(_last_question(prompt)):
        subject, relation, object_ = json.loads(split["triple"])
        parts = [json.dumps([subject, relation, part]) for part in object_.split(" and ")]
        return "\n".join([*parts, f"Granularity: {len(parts)}"])
    return "I cannot tell."


def usage_of(prompt: str, reply: str) -> dict:
    prompt_tokens, completion_tokens = len(prompt.split()), len(reply.split())
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def completion_answer(body: dict, replier: Callable[[str], str], answer_id: str) -> dict:
    """The /v1/completions answer: one choice per prompt, ``index`` naming its prompt, as for a list of prompts."""
    prompts = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
    replies = [replier(prompt) for prompt in prompts]
    return {
        "id": answer_id,
        "object": "text_completion",
        "created": int(time.time()),
        "model": body["model"],
        "choices": [
            {"index": index, "text": f" {reply}", "finish_reason": "stop", "logprobs": None}
            for index, reply in enumerate(replies)
        ],
        "usage": usage_of(" ".join(prompts), " ".join(replies)),
    }


def chat_answer(body: dict, replier: Callable[[str], str], answer_id: str) -> dict:
    """The /v1/chat/completions answer to the last message."""
    prompt = body["messages"][-1]["content"]
    reply = replier(prompt)
    return {
        "id": answer_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body["model"],
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop", "logprobs": None}
        ],
        "usage": usage_of(" ".join(message["content"] for message in body["messages"]), reply),
    }


def fake_embedding(text, dimension):
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")
    return np.random.default_rng(seed).standard_normal(dimension).astype(np.float32)


class FakeOpenAIServer:
    def __init__(self, latency=0.0, embedding_dimension=1536, refuse_lists=False, ssl_context=None):
        self.latency = latency
        # As Ollama: /v1/completions answers a list of prompts with HTTP 400.
        self.refuse_lists = refuse_lists
        self.embedding_dimension = embedding_dimension
        self.log = []
        self.in_flight = 0
        self.max_in_flight = 0  # the most requests it was answering at one time
        self._script = []
        self._replier = model_reply
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._http = _Server(("127.0.0.1", 0), self._handler_class())
        self.scheme = "https" if ssl_context else "http"
        if ssl_context:  # HTTPS with the certificate the context holds
            self._http.socket = ssl_context.wrap_socket(self._http.socket, server_side=True)
        # A short poll interval makes shutdown quick.
        self._thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
        )

    @property
    def base_url(self):
        return f"{self.origin}/v1"

    @property
    def origin(self):
        host, port = self._http.server_address[:2]
        return f"{self.scheme}://{host}:{port}"

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc_info):
        self._stopping.set()  # wakes hanging handlers
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=5)

    def script(self, *outcomes):
        """The next requests, one outcome each, fail, answer raw bytes or hang; later ones are answered normally."""
        with self._lock:
            self._script.extend(outcomes)

    def reply_with(self, replier):
        """Answer completions and chat with ``replier(prompt)`` instead of ``model_reply``."""
        self._replier = replier

    def count(self, path=None):
        with self._lock:
            return sum(1 for entry in self.log if path is None or route(entry.path) == path)

    def paths(self):
        with self._lock:
            return Counter(route(entry.path) for entry in self.log)

    def _next_outcome(self):
        with self._lock:
            return self._script.pop(0) if self._script else None

    def _started(self, entry):
        with self._lock:
            self.log.append(entry)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _finished(self):
        with self._lock:
            self.in_flight -= 1

    def answer(self, path, body):
        """(status, headers, payload) for one request; runs in the handler thread."""
        outcome = self._next_outcome()
        if isinstance(outcome, Failure):
            named = {"Retry-After": outcome.retry_after, "x-should-retry": outcome.should_retry}
            headers = {name: value for name, value in named.items() if value}
            error = {"message": f"scripted failure {outcome.status}", "type": "fake_error", "code": None}
            return outcome.status, headers, {"error": error}
        if isinstance(outcome, Raw):
            return outcome.status, {}, outcome.body
        if isinstance(outcome, Hang):
            self._stopping.wait(outcome.seconds)
        if self.latency:
            time.sleep(self.latency)
        path = route(path)
        if path == COMPLETIONS:
            if self.refuse_lists and isinstance(body.get("prompt"), list):
                error = {"message": "prompt must be a string", "type": "invalid_request_error", "code": None}
                return 400, {}, {"error": error}
            return 200, {}, self._completion(body)
        if path == CHAT:
            return 200, {}, self._chat(body)
        if path == EMBEDDINGS:
            return 200, {}, self._embeddings(body)
        return 404, {}, {"error": {"message": f"no route {path}", "type": "invalid_request_error", "code": None}}

    def _completion(self, body: dict) -> dict:
        return completion_answer(body, self._replier, f"cmpl-fake-{len(self.log)}")

    def _chat(self, body: dict) -> dict:
        return chat_answer(body, self._replier, f"chatcmpl-fake-{len(self.log)}")

    def _embeddings(self, body):
        inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [
            {
                "object": "embedding",
                "index": index,
                "embedding": fake_embedding(text, self.embedding_dimension).tolist(),
            }
            for index, text in enumerate(inputs)
        ]
        tokens = sum(len(text.split()) for text in inputs)
        return {
            "object": "list",
            "data": data,
            "model": body["model"],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def _handler_class(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the real API
            # Headers and body go out in separate writes; without this, Nagle's algorithm and
            # delayed ACKs add ~40 ms to every answer.
            disable_nagle_algorithm = True

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {name.lower(): value for name, value in self.headers.items()}
                server._started(LoggedRequest(self.path, body, headers.get("authorization", ""), headers))
                try:
                    status, headers, payload = server.answer(self.path, body)
                finally:
                    server._finished()
                encoded = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(encoded)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(encoded)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a scripted hang)

            def log_message(self, format, *args):
                pass  # keep test output clean

        return Handler
