"""One OpenAI-compatible endpoint, reached over one of two transports behind ``Endpoint.post_json``.

- ``openai`` (the default, GENRES_OPENAI_TRANSPORT): the ``openai`` package's async client, on its
  aiohttp backend. It reaches what labs use: HTTP(S) proxies and NO_PROXY from the environment,
  Azure OpenAI (``api-key`` or an Azure AD token, ``api-version``, deployments), organisation and
  project, extra headers, redirects. It is used as cheaply as it allows: the JSON answer is read
  from the raw response (no typed models) and its own retries are off (``max_retries=0``), since
  retries, Retry-After, the rate limit, the cache and batching are ``openai_backend``'s.
- ``lean``: ``http_client.py``, a small keep-alive client with a tenth of the CPU per request,
  for a local inference server at hundreds of requests in flight. It sends the same headers and
  trusts the same certificates, but takes no proxy, no Azure and no redirect.

Both trust one TLS context made once per process (``tls_context``): GENRES_OPENAI_CA_BUNDLE if
set, else SSL_CERT_FILE / SSL_CERT_DIR, else the system's store, with a client certificate if
one is configured. ``openai``, ``httpx2`` and ``aiohttp`` are imported only when a client is made.
"""

import functools
import json
import logging
import ssl
import urllib.parse
import urllib.request
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import certifi

from scoring.genres.http_client import HTTPClient, HTTPClientError
from scoring.genres.ratelimit import RateLimiter

logger = logging.getLogger(__name__)

OPENAI_TRANSPORT = "openai"
LEAN_TRANSPORT = "lean"
TRANSPORTS = (OPENAI_TRANSPORT, LEAN_TRANSPORT)
USER_AGENT = "genres-arena"
# An error body longer than this is cut in messages (a proxy's HTML error page, say).
ERROR_MESSAGE_CHARS = 300


class MalformedResponse(ValueError):
    """A response that parsed but lacks what was asked for; asking again would not help."""


class EndpointError(Exception):
    """An attempt that got no usable answer from the endpoint."""


class EndpointUnreachable(EndpointError):
    """No answer: the connection failed or broke, or the attempt timed out. Worth retrying."""


class EndpointStatusError(EndpointError):
    """The endpoint answered with an HTTP error status."""

    def __init__(self, status_code: int, message: str, headers: Mapping[str, str]) -> None:
        super().__init__(f"HTTP {status_code}: {message}")
        self.status_code = status_code
        self.headers = headers


def error_message(content: bytes) -> str:
    """The message of an error body: OpenAI's ``{"error": {"message": ...}}``, else the text, cut."""
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if not isinstance(message, str):
        message = content.decode("utf-8", "replace").strip() or "(empty body)"
    return message[:ERROR_MESSAGE_CHARS]


@dataclass(frozen=True)
class Connection:
    """Where and how to reach the endpoint: everything but the retry policy and the rate limit."""

    base_url: str
    api_key: str
    transport: str = OPENAI_TRANSPORT
    headers: Mapping[str, str] = field(default_factory=dict)  # sent with every request
    organization: str | None = None
    project: str | None = None
    ca_bundle: str | None = None  # PEM file of the authorities to trust instead of the default ones
    client_cert: str | None = None  # PEM file of a client certificate (and its key, unless client_key)
    client_key: str | None = None
    # Azure OpenAI: the resource's URL (https://NAME.openai.azure.com), the API version, and an
    # Azure AD token provider (an async function returning a token) in place of the key.
    azure_endpoint: str | None = None
    api_version: str | None = None
    azure_ad_token_provider: Callable[[], Awaitable[str]] | None = None

    def __post_init__(self) -> None:
        if self.transport not in TRANSPORTS:
            raise ValueError(f"unknown transport {self.transport!r}; choose {' or '.join(TRANSPORTS)}")
        if self.transport == LEAN_TRANSPORT and self.azure_endpoint:
            raise ValueError("the lean transport does not speak Azure OpenAI: use GENRES_OPENAI_TRANSPORT=openai")
        if self.azure_endpoint and not self.api_version:
            raise ValueError("Azure OpenAI needs an API version: set OPENAI_API_VERSION")

    def request_headers(self) -> dict[str, str]:
        """The headers every request carries besides the key's."""
        named = {"OpenAI-Organization": self.organization, "OpenAI-Project": self.project}
        return {**{name: value for name, value in named.items() if value}, **self.headers}

    def https(self) -> bool:
        return urllib.parse.urlsplit(self.azure_endpoint or self.base_url).scheme == "https"


@functools.cache
def tls_context(ca_bundle: str | None, client_cert: str | None, client_key: str | None) -> ssl.SSLContext:
    """One TLS context per process and setting: loading a CA store costs some 0.2 s of CPU, which
    a client per batch would otherwise pay each time. Without ``ca_bundle`` it is OpenSSL's
    default store, which SSL_CERT_FILE and SSL_CERT_DIR replace; certifi's where that is empty."""
    context = ssl.create_default_context(cafile=ca_bundle)
    if not ca_bundle and not context.cert_store_stats()["x509_ca"]:
        # No system store (python.org's macOS builds). A CA directory (SSL_CERT_DIR) is read
        # lazily and counts none here: certifi's are then added, trusting more, never less.
        context.load_verify_locations(cafile=certifi.where())
    if client_cert:
        context.load_cert_chain(client_cert, client_key)
    return context


class Endpoint(ABC):
    """The endpoint for the life of one event loop. Every POST first waits for the rate limiter
    and is counted in ``usage.requests`` (an object with a ``requests`` count)."""

    def __init__(self, connection: Connection, timeout: float, limiter: RateLimiter, usage: Any) -> None:
        self.connection = connection
        self.timeout = timeout
        self.limiter = limiter
        self.usage = usage

    async def post_json(self, path: str, body: dict[str, Any]) -> Any:
        """POST ``body`` to ``path`` (``/completions``) and return the decoded JSON answer."""
        await self.limiter.acquire()
        self.usage.requests += 1
        status, headers, content = await self._post(path, body)
        if status >= 400:
            raise EndpointStatusError(status, error_message(content), headers)
        try:
            return json.loads(content)
        except ValueError:
            raise MalformedResponse(f"the endpoint answered HTTP {status} with no JSON") from None

    @abstractmethod
    async def _post(self, path: str, body: dict[str, Any]) -> tuple[int, Mapping[str, str], bytes]:
        """(status, headers, body) of the answer; ``EndpointUnreachable`` when there is none."""

    @abstractmethod
    async def aclose(self) -> None:
        """Close the connections."""


class LeanEndpoint(Endpoint):
    def __init__(self, connection: Connection, timeout: float, limiter: RateLimiter, usage: Any) -> None:
        super().__init__(connection, timeout, limiter, usage)
        url = urllib.parse.urlsplit(connection.base_url)
        if url.scheme in urllib.request.getproxies_environment() and not urllib.request.proxy_bypass(
            url.hostname or ""
        ):
            logger.warning(
                "The lean transport ignores the %s proxy and connects to %s directly", url.scheme, url.netloc
            )
        self.client = HTTPClient(
            connection.base_url,
            headers={
                "Authorization": f"Bearer {connection.api_key}",
                **connection.request_headers(),
                "Content-Type": "application/json",
                "Accept": "application/json",
                "User-Agent": USER_AGENT,
            },
            timeout=timeout,
            ssl_context=(
                tls_context(connection.ca_bundle, connection.client_cert, connection.client_key)
                if connection.https()
                else None
            ),
        )

    async def _post(self, path: str, body: dict[str, Any]) -> tuple[int, Mapping[str, str], bytes]:
        try:
            response = await self.client.post(path, json.dumps(body).encode())
        except TimeoutError:
            raise EndpointUnreachable(f"no answer within {self.timeout:g} s") from None
        except HTTPClientError as error:
            raise EndpointUnreachable(str(error)) from None
        return response.status, response.headers, response.body

    async def aclose(self) -> None:
        self.client.close()


class OpenAIClientEndpoint(Endpoint):
    """The ``openai`` package's async client: ``AsyncAzureOpenAI`` for an Azure endpoint, else
    ``AsyncOpenAI``, on the aiohttp backend (``DefaultAioHttpClient``), which costs less CPU a
    request than httpx's pool (docs/judges.md, "Transports")."""

    def __init__(
        self, connection: Connection, timeout: float, limiter: RateLimiter, usage: Any, concurrency: int
    ) -> None:
        super().__init__(connection, timeout, limiter, usage)
        import httpx2
        import openai

        # httpx2 logs every request at INFO: a line per request in a worker's log, and its cost.
        logging.getLogger("httpx2").setLevel(logging.WARNING)

        http_client = openai.DefaultAioHttpClient(
            verify=tls_context(connection.ca_bundle, connection.client_cert, connection.client_key),
            timeout=timeout,
            # One kept connection per request in flight. The defaults hold 256 in flight to 100
            # connections (aiohttp's limit, 36% of in flight / latency at 1 s) and keep 100.
            limits=httpx2.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
        )
        options: dict[str, Any] = {
            "organization": connection.organization,
            "project": connection.project,
            "default_headers": {**connection.headers, "User-Agent": USER_AGENT},
            "timeout": timeout,
            "max_retries": 0,  # the app retries
            "http_client": http_client,
        }
        self.client: Any
        if connection.azure_endpoint:
            credentials: dict[str, Any] = {"azure_ad_token_provider": connection.azure_ad_token_provider}
            if connection.api_key and not connection.azure_ad_token_provider:
                credentials = {"api_key": connection.api_key}
            self.client = openai.AsyncAzureOpenAI(
                azure_endpoint=connection.azure_endpoint, api_version=connection.api_version, **credentials, **options
            )
        else:
            self.client = openai.AsyncOpenAI(base_url=connection.base_url, api_key=connection.api_key, **options)
        self._response_class = httpx2.Response
        self._status_error: type[Exception] = openai.APIStatusError
        self._connection_error: type[Exception] = openai.APIConnectionError

    async def _post(self, path: str, body: dict[str, Any]) -> tuple[int, Mapping[str, str], bytes]:
        try:
            response = await self.client.post(path, body=body, cast_to=self._response_class)
        except self._status_error as error:
            response = error.response  # type: ignore[attr-defined]
        except self._connection_error as error:  # timeouts included
            # The aiohttp backend reports a refused connection as a timeout: the first cause decides.
            cause = first_cause(error)
            if isinstance(cause, TimeoutError):
                raise EndpointUnreachable(f"no answer within {self.timeout:g} s") from None
            raise EndpointUnreachable(f"cannot reach {self.client.base_url.netloc.decode()}: {cause}") from None
        return response.status_code, response.headers, response.content

    async def aclose(self) -> None:
        await self.client.close()


def first_cause(error: BaseException) -> BaseException:
    """The exception at the start of ``error``'s chain of causes."""
    while error.__cause__ is not None:
        error = error.__cause__
    return error


def open_endpoint(
    connection: Connection, timeout: float, limiter: RateLimiter, usage: Any, concurrency: int
) -> Endpoint:
    """The endpoint over the connection's transport; make it inside the event loop that uses it."""
    if connection.transport == LEAN_TRANSPORT:
        return LeanEndpoint(connection, timeout, limiter, usage)
    return OpenAIClientEndpoint(connection, timeout, limiter, usage, concurrency)
