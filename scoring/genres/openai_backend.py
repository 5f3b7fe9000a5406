"""Talking to an OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp, ...).

``OpenAIService`` sends a batch of requests: up to ``concurrency`` in flight, each attempt first
cleared by a rate limiter, failed attempts retried with exponential backoff and full jitter on
429, 408, 409, 5xx, timeouts and lost connections, and a server's Retry-After honoured. A
request that fails for good comes back as a ``RequestFailed`` carrying the error; it never
sinks the batch.

Every request is a JSON body POSTed to a path of the API and answered with JSON
(``Endpoint.post_json``), over one of the two transports of ``endpoints.py``: the ``openai``
package's client (the default: proxies, Azure, private CAs, headers) or a lean keep-alive client
for local servers at high concurrency. Retries, rate limits and Retry-After are this module's,
for every attempt, whichever the transport.

The public API is synchronous (RQ jobs and scripts call it); each batch streams through one
event loop in a thread of its own (``OpenAIService.stream``) while the caller's thread takes the
answers as they come. Callers look up and store cached results in their own thread, so a cache
backed by the Django ORM is only ever called from synchronous code.

The ``/v1/embeddings`` embedder lives in ``embedders.py``, the judge in ``judges/openai_compatible.py``.
Settings come from keyword arguments, else from the environment (see ``environment``).
"""

import asyncio
import collections
import email.utils
import itertools
import json
import logging
import os
import queue
import random
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from scoring.genres.endpoints import (
    OPENAI_TRANSPORT,
    Connection,
    Endpoint,
    EndpointError,
    EndpointStatusError,
    EndpointUnreachable,
    open_endpoint,
)
from scoring.genres.ratelimit import RateLimiter, rate_limiter

logger = logging.getLogger(__name__)

OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_JUDGE_MODEL = "gpt-3.5-turbo-instruct"
DEFAULT_CONCURRENCY = 16
DEFAULT_TIMEOUT_SECONDS = 60.0
DEFAULT_MAX_ATTEMPTS = 6
# A Retry-After beyond this is not waited for; the attempt counts as failed right away.
MAX_RETRY_AFTER_SECONDS = 600.0
RETRYABLE_STATUS = {408, 409, 429}

# Local servers (vLLM, Ollama) ignore the key; a placeholder keeps the header well-formed.
KEYLESS_PLACEHOLDER = "no-key"


def environment(name: str, default: Any, convert: Callable[[str], Any] = str) -> Any:
    """The setting ``name`` from the environment, converted; unset or empty gives ``default``."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return convert(value)
    except ValueError:
        raise ValueError(f"{name}={value!r} is not a valid {convert.__name__}") from None


def new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop's event loop where installed (uvicorn[standard] installs it): it halves the loop's own
    share of a request's CPU. Imported here, not at start-up, where it would cost 0.07 s."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


_STREAM_DONE = object()


def _run_loop(loop: asyncio.AbstractEventLoop, main: asyncio.Task[None], answer: Callable[[object], None]) -> None:
    """The body of ``OpenAIService.stream``'s thread: run ``main`` to its end, then say so."""
    try:
        loop.run_until_complete(main)
    except asyncio.CancelledError:
        pass  # the caller stopped reading
    except BaseException as error:  # handed to the caller's thread, which raises it
        answer(error)
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        answer(_STREAM_DONE)


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    base_delay: float = 1.0
    max_delay: float = 60.0
    timeout: float = DEFAULT_TIMEOUT_SECONDS  # per attempt

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {self.max_attempts}")

    def delay(
        self, attempt: int, retry_after: float | None = None, uniform: Callable[[float, float], float] = random.uniform
    ) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based).

        Full jitter (a uniform draw up to the exponential bound) spreads the retries of many
        workers apart; a server's Retry-After is a floor, with up to ``base_delay`` added.
        """
        if retry_after is not None:
            return retry_after + uniform(0, self.base_delay)
        return uniform(0, min(self.max_delay, self.base_delay * 2 ** (attempt - 1)))


@dataclass
class Usage:
    """What a judge or embedder has cost so far; read it for progress and cost reports."""

    requests: int = 0  # HTTP attempts sent, retries included
    retries: int = 0
    failures: int = 0  # requests given up after their last attempt
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def snapshot(self) -> "Usage":
        return replace(self)


@dataclass(frozen=True)
class RequestFailed:
    error: str


class SendInstead(Exception):
    """Raised by a request the endpoint refused as a whole (a list of prompts where it takes
    one): ``parts``, ``(key, request)`` pairs, are sent in its place."""

    def __init__(self, parts: list[tuple[Any, "Request"]]) -> None:
        super().__init__(f"send {len(parts)} requests instead")
        self.parts = parts


# One request: an async function of the endpoint that returns the decoded answer.
Request = Callable[[Endpoint], Awaitable[Any]]


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """The wait a response asks for, from retry-after-ms or Retry-After (seconds or HTTP date)."""
    if headers is None:
        return None
    if milliseconds := headers.get("retry-after-ms"):
        try:
            return float(milliseconds) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


def is_retryable(error: BaseException) -> bool:
    if isinstance(error, EndpointUnreachable):
        return True
    if isinstance(error, EndpointStatusError):
        # OpenAI's servers may say whether to retry, overriding what the status alone says.
        should_retry = error.headers.get("x-should-retry")
        if should_retry in ("true", "false"):
            return should_retry == "true"
        return error.status_code in RETRYABLE_STATUS or error.status_code >= 500
    return False


def describe(error: BaseException) -> str:
    if isinstance(error, EndpointStatusError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def header_object(value: str) -> dict[str, str]:
    """GENRES_OPENAI_HEADERS: a JSON object of header names and values."""
    headers = json.loads(value)
    if not isinstance(headers, dict) or not all(isinstance(item, str) for item in [*headers, *headers.values()]):
        raise ValueError("not a JSON object of strings")
    return headers


def connection_settings(base_url: str | None = None, api_key: str | None = None, **given: Any) -> Connection:
    """Where the endpoint is and how to reach it: ``given`` (``Connection``'s fields), else the
    environment. Azure OpenAI when AZURE_OPENAI_ENDPOINT (or ``azure_endpoint``) is set."""
    azure_endpoint = given.pop("azure_endpoint", None) or environment("AZURE_OPENAI_ENDPOINT", None)
    settings = {
        "transport": environment("GENRES_OPENAI_TRANSPORT", OPENAI_TRANSPORT),
        "headers": environment("GENRES_OPENAI_HEADERS", {}, header_object),
        "organization": environment("OPENAI_ORG_ID", None),
        "project": environment("OPENAI_PROJECT_ID", None),
        "ca_bundle": environment("GENRES_OPENAI_CA_BUNDLE", None),
        "client_cert": environment("GENRES_OPENAI_CLIENT_CERT", None),
        "client_key": environment("GENRES_OPENAI_CLIENT_KEY", None),
        "api_version": environment("OPENAI_API_VERSION", None),
    }
    base_url = base_url or environment("OPENAI_BASE_URL", OPENAI_BASE_URL)
    if azure_endpoint:
        # Without a key, the openai package takes AZURE_OPENAI_AD_TOKEN itself.
        api_key = api_key or environment("AZURE_OPENAI_API_KEY", "") or environment("OPENAI_API_KEY", "")
        if not (api_key or given.get("azure_ad_token_provider") or environment("AZURE_OPENAI_AD_TOKEN", "")):
            raise ValueError(
                "Azure OpenAI needs AZURE_OPENAI_API_KEY, AZURE_OPENAI_AD_TOKEN or an Azure AD token provider"
            )
        return Connection(base_url=base_url, api_key=api_key, azure_endpoint=azure_endpoint, **{**settings, **given})
    api_key = api_key or environment("OPENAI_API_KEY", "")
    if not api_key and base_url.rstrip("/") == OPENAI_BASE_URL:
        raise ValueError("OPENAI_API_KEY is not set; api.openai.com refuses requests without a key")
    return Connection(base_url=base_url, api_key=api_key or KEYLESS_PLACEHOLDER, **{**settings, **given})


class OpenAIService:
    """One endpoint, its credentials, and the policy for sending batches of requests to it."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        concurrency: int | None = None,
        retry: RetryPolicy | None = None,
        limiter: RateLimiter | None = None,
        requests_per_minute: int | None = None,
        redis_client: Any = None,
        **connection: Any,
    ) -> None:
        """Arguments left out come from the environment. The rate limit is ``limiter`` if
        given, else ``requests_per_minute`` (GENRES_OPENAI_REQUESTS_PER_MINUTE, 0 = none) in
        bursts of up to one second's worth, counted in Redis when ``redis_client`` is given
        (shared by every worker), else in this process. Other keyword arguments are fields of
        ``endpoints.Connection`` (``transport``, ``headers``, ``azure_endpoint``, ...)."""
        self.connection = connection_settings(base_url, api_key, **connection)
        self.base_url = self.connection.azure_endpoint or self.connection.base_url
        if concurrency is None:
            concurrency = environment("GENRES_OPENAI_CONCURRENCY", DEFAULT_CONCURRENCY, int)
        self.concurrency: int = concurrency
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {self.concurrency}")
        self.retry = retry or RetryPolicy(
            max_attempts=environment("GENRES_OPENAI_MAX_ATTEMPTS", DEFAULT_MAX_ATTEMPTS, int),
            timeout=environment("GENRES_OPENAI_TIMEOUT", DEFAULT_TIMEOUT_SECONDS, float),
        )
        if limiter is None:
            if requests_per_minute is None:
                requests_per_minute = environment("GENRES_OPENAI_REQUESTS_PER_MINUTE", 0, int)
            limiter = rate_limiter(requests_per_minute, max(1, requests_per_minute // 60), redis_client)
        self.limiter = limiter
        self.usage = Usage()

    def run(self, requests: Sequence[Request]) -> list[Any]:
        """Send every request; a list of their results, or ``RequestFailed`` for those that failed.

        A request is an async function taking the ``Endpoint`` and returning the decoded answer.
        """
        results: list[Any] = [None] * len(requests)
        if not requests:
            return results
        for position, result in self.stream(enumerate(requests)):
            results[position] = result
        return results

    def stream(self, requests: Iterable[tuple[Any, Request]]) -> Iterator[tuple[Any, Any]]:
        """Send ``(key, request)`` pairs and yield ``(key, result)`` as each is answered.

        One event loop, in a thread of its own, keeps up to ``concurrency`` requests in flight
        from the first to the last, with no barrier between groups. ``requests`` is read in the
        caller's thread, where the answers are taken too, so it may use the Django ORM (only
        ever called from synchronous code); it is read a round (``concurrency`` requests) at a
        time as answers come in, never more than two rounds ahead of those in flight: making
        requests (a cache look-up, say) then takes the interpreter from the loop for moments,
        not for one long stretch while the first are in flight. A request that raises
        ``SendInstead`` yields nothing itself: its parts are sent in its place. Leaving the
        loop early cancels what is still in flight.
        """
        answers: queue.SimpleQueue[Any] = queue.SimpleQueue()
        loop = new_event_loop()
        waiting: asyncio.Queue[tuple[Any, Request] | None] = asyncio.Queue()
        main = loop.create_task(self._stream(waiting, answers.put))
        thread = threading.Thread(target=_run_loop, args=(loop, main, answers.put), name="openai-stream", daemon=True)
        thread.start()
        pending = iter(requests)
        handed_over = 0  # requests given to the loop and not answered yet
        more = True

        def put_all(group: list[tuple[Any, Request] | None]) -> None:  # runs in the loop's thread
            for item in group:
                waiting.put_nowait(item)

        def hand_over() -> None:
            """Once no more than two rounds are waiting or in flight, make another and hand it
            over in one go (one wake-up of the loop, not one each). A round always waits, so no
            worker idles while this thread makes the next."""
            nonlocal handed_over, more
            if not more or handed_over > 2 * self.concurrency:
                return
            group: list[tuple[Any, Request] | None] = list(itertools.islice(pending, self.concurrency))
            handed_over += len(group)
            if len(group) < self.concurrency:
                more = False
                group.append(None)  # there are no more
            loop.call_soon_threadsafe(put_all, group)

        try:
            hand_over()
            while (answer := answers.get()) is not _STREAM_DONE:
                if isinstance(answer, BaseException):
                    raise answer
                handed_over -= 1
                hand_over()
                yield answer
        finally:
            loop.call_soon_threadsafe(main.cancel)
            thread.join()
            loop.close()

    async def _stream(
        self, waiting: asyncio.Queue[tuple[Any, Request] | None], answer: Callable[[object], None]
    ) -> None:
        endpoint = open_endpoint(self.connection, self.retry.timeout, self.limiter, self.usage, self.concurrency)
        returned: collections.deque[tuple[Any, Request]] = collections.deque()  # parts of divided requests, sent first

        async def worker() -> None:
            while True:
                if returned:
                    item = returned.popleft()
                elif (waited := await waiting.get()) is not None:
                    item = waited
                else:
                    waiting.put_nowait(None)  # for the next worker
                    return
                key, request = item
                result = await self._send(endpoint, request)
                if isinstance(result, SendInstead):
                    returned.extend(result.parts)
                else:
                    answer((key, result))

        try:
            async with asyncio.TaskGroup() as workers:  # one failing cancels the others
                for _ in range(self.concurrency):
                    workers.create_task(worker())
        except ExceptionGroup as failed:
            raise failed.exceptions[0] from None
        finally:
            await endpoint.aclose()

    async def _send(self, endpoint: Endpoint, request: Request) -> Any:
        last_error: Exception
        for attempt in range(1, self.retry.max_attempts + 1):
            try:
                response = await request(endpoint)
            except EndpointError as error:
                last_error = error
                if not is_retryable(error) or attempt == self.retry.max_attempts:
                    break
                wait = retry_after_seconds(error.headers if isinstance(error, EndpointStatusError) else None)
                if wait is not None and wait > MAX_RETRY_AFTER_SECONDS:
                    break
                self.usage.retries += 1
                await asyncio.sleep(self.retry.delay(attempt, wait))
                continue
            except SendInstead as divided:
                return divided
            except Exception as error:  # a malformed response: retrying would get the same one
                last_error = error
                break
            self._count_tokens(response)
            return response
        self.usage.failures += 1
        failure = f"{describe(last_error)} (after {attempt} attempt{'s' if attempt > 1 else ''})"
        logger.warning("Request to %s failed for good: %s", self.base_url, failure, extra={"event": "request_failed"})
        return RequestFailed(failure)

    def _count_tokens(self, response: object) -> None:
        """Add the tokens a JSON answer reports in its ``usage``."""
        reported = response.get("usage") if isinstance(response, dict) else None
        usage = reported if isinstance(reported, dict) else {}
        prompt_tokens, completion_tokens = usage.get("prompt_tokens"), usage.get("completion_tokens")
        self.usage.prompt_tokens += prompt_tokens if isinstance(prompt_tokens, int) else 0
        self.usage.completion_tokens += completion_tokens if isinstance(completion_tokens, int) else 0
