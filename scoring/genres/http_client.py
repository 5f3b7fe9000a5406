"""A lean HTTP/1.1 client for one JSON API: keep-alive connections on asyncio, parsed by httptools.

The judge keeps up to 64 requests in flight from one event loop, and at that rate the client's
CPU per request decides how close it comes to ``in flight / latency``: aiohttp spent 0.22–0.30 ms
a request on the benchmark machine and held the judge at 79–91% of that ceiling, this client
spends 0.06–0.10 ms and the judge reaches 92–93% (docs/judges.md, "The HTTP client"). It does
only what the judge and the embedder need: POST a body to paths under one base URL, over plain
TCP or TLS, on a pool of keep-alive connections, within a total time per request. No
redirects, proxies, cookies or compression. The HTTP parsing itself is httptools (llhttp, the
parser of Node.js and uvicorn).
"""

import asyncio
import ssl
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import httptools

# An answer larger than this is refused rather than held in memory: a batch of 2,048 embeddings
# of 3,072 numbers is some 130 MB of JSON.
MAX_RESPONSE_BYTES = 512 * 1024 * 1024
DEFAULT_PORTS = {"http": 80, "https": 443}


class HTTPClientError(Exception):
    """The request got no complete HTTP answer: no connection, a connection lost, a broken answer."""


@dataclass(frozen=True)
class Response:
    status: int
    headers: Mapping[str, str]  # names in lower case
    body: bytes


class _Connection(asyncio.Protocol):
    """One keep-alive connection; answers one request at a time."""

    def __init__(self, max_response_bytes: int) -> None:
        self.max_response_bytes = max_response_bytes
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.answer: asyncio.Future[Response] | None = None
        self.reusable = True
        self.received_any = False
        self._reset_message()

    def _reset_message(self) -> None:
        self.headers: dict[str, str] = {}
        self.body: list[bytes] = []
        self.body_size = 0
        self.headers_complete = False

    async def exchange(self, request: bytes, deadline: float) -> Response:
        """Send ``request`` and wait for its answer until ``deadline`` (the loop's clock)."""
        assert self.transport is not None and self.answer is None, "one request at a time"
        loop = asyncio.get_running_loop()
        self.answer = loop.create_future()
        self.received_any = False
        # A bare timer: asyncio.timeout costs four times as much, and this runs for every request.
        timer = loop.call_at(deadline, self._fail, TimeoutError())
        self.transport.write(request)
        try:
            return await self.answer
        finally:
            timer.cancel()
            self.answer = None

    def close(self) -> None:
        self.reusable = False
        if self.transport is not None:
            self.transport.close()

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's are not asyncio.Transport subclasses

    def data_received(self, data: bytes) -> None:
        self.received_any = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError:
            pass  # a callback already failed the answer (too large)
        except httptools.HttpParserError as error:
            self._fail(HTTPClientError(f"malformed HTTP answer: {error}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.reusable = False
        self.transport = None
        if self.headers_complete and not ({"content-length", "transfer-encoding"} & self.headers.keys()):
            self.on_message_complete()  # an answer delimited by the end of the connection
        else:
            reason = f": {exc}" if exc else ""
            self._fail(HTTPClientError(f"the server closed the connection before a complete answer{reason}"))

    # httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        self.headers_complete = True

    def on_body(self, body: bytes) -> None:
        self.body_size += len(body)
        if self.body_size > self.max_response_bytes:
            self._fail(HTTPClientError(f"the answer is larger than {self.max_response_bytes:,} bytes"))
            raise ValueError("answer too large")  # stops the parser
        self.body.append(body)

    def on_message_complete(self) -> None:
        status = self.parser.get_status_code()
        if 100 <= status < 200:  # an interim answer (100 Continue): the real one follows
            self._reset_message()
            return
        response = Response(status, self.headers, b"".join(self.body))
        self._reset_message()
        if self.transport is None or not self.parser.should_keep_alive():
            self.close()
        if self.answer is not None and not self.answer.done():
            self.answer.set_result(response)

    def _fail(self, error: Exception) -> None:
        self.close()
        if self.answer is not None and not self.answer.done():
            self.answer.set_exception(error)


class HTTPClient:
    """POSTs to paths under ``base_url`` over a pool of keep-alive connections, one per request in
    flight. Use it from one event loop; ``close`` it when done."""

    def __init__(
        self,
        base_url: str,
        headers: Mapping[str, str],
        timeout: float,
        ssl_context: ssl.SSLContext | None = None,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        url = urllib.parse.urlsplit(base_url)
        if url.scheme not in DEFAULT_PORTS or not url.hostname:
            raise ValueError(f"{base_url!r} is not an http:// or https:// URL")
        self.host = url.hostname
        self.port = url.port or DEFAULT_PORTS[url.scheme]
        self.ssl = (ssl_context or ssl.create_default_context()) if url.scheme == "https" else None
        self.path_prefix = url.path.rstrip("/")
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes
        host = f"[{self.host}]" if ":" in self.host else self.host
        if url.port is not None and url.port != DEFAULT_PORTS[url.scheme]:
            host = f"{host}:{url.port}"
        self.head_fields = "".join(f"{name}: {value}\r\n" for name, value in {"Host": host, **headers}.items())
        self.idle: list[_Connection] = []

    async def post(self, path: str, body: bytes) -> Response:
        """POST ``body`` to ``path`` under the base URL. Raises ``HTTPClientError``, or
        ``TimeoutError`` when no complete answer came within the timeout."""
        request = (
            f"POST {self.path_prefix}{path} HTTP/1.1\r\n{self.head_fields}Content-Length: {len(body)}\r\n\r\n"
        ).encode("latin-1") + body
        deadline = asyncio.get_running_loop().time() + self.timeout
        # A kept connection may have been closed by the server while idle; one that fails
        # before any byte of an answer is dropped and the next one tried.
        while self.idle:
            connection = self.idle.pop()
            if connection.reusable:
                try:
                    return await self._exchange(connection, request, deadline)
                except HTTPClientError:
                    if connection.received_any:
                        raise
        return await self._exchange(await self._connect(deadline), request, deadline)

    async def _exchange(self, connection: _Connection, request: bytes, deadline: float) -> Response:
        try:
            response = await connection.exchange(request, deadline)
        except BaseException:  # a timeout or a cancel leaves the answer half read: never reuse it
            connection.close()
            raise
        if connection.reusable:
            self.idle.append(connection)
        return response

    async def _connect(self, deadline: float) -> _Connection:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout_at(deadline):
                _transport, connection = await loop.create_connection(
                    lambda: _Connection(self.max_response_bytes), self.host, self.port, ssl=self.ssl
                )
        except OSError as error:  # refused, unreachable, a name that does not resolve, a TLS failure
            raise HTTPClientError(f"cannot connect to {self.host}:{self.port}: {error}") from None
        return connection

    def close(self) -> None:
        while self.idle:
            self.idle.pop().close()
