"""The judge's HTTP client against servers on 127.0.0.1 that answer in each way HTTP allows, and badly."""

import asyncio
import contextlib
import ssl
from dataclasses import dataclass

import pytest
import trustme

from scoring.genres.http_client import HTTPClient, HTTPClientError

HEADERS = {"Content-Type": "application/json", "User-Agent": "genres-arena-test"}
JSON = b'{"ok": true}'


OK = b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n" + JSON


@dataclass(frozen=True)
class AndClose:
    """Send these bytes, then close the connection."""

    data: bytes


async def read_request(reader):
    """(request line and headers, body) of the next request on the connection, or None at its end."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    length = next(
        (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")),
        0,
    )
    return head.decode("latin-1"), await reader.readexactly(length)


class Server:
    """Answers each request with the next outcome of its script: bytes to send, ``AndClose``, or
    None to close the connection without an answer; ``OK`` once the script is spent."""

    def __init__(self, *script, delay=0.0, ssl_context=None):
        self.script = list(script)
        self.delay = delay
        self.ssl_context = ssl_context
        self.connections = 0
        self.requests = []

    async def __aenter__(self):
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0, ssl=self.ssl_context)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc_info):
        self.server.close()

    def url(self, scheme="http"):
        return f"{scheme}://127.0.0.1:{self.port}/v1"

    async def handle(self, reader, writer):
        self.connections += 1
        with contextlib.suppress(ConnectionError):
            while (request := await read_request(reader)) is not None:
                self.requests.append(request)
                await asyncio.sleep(self.delay)
                outcome = self.script.pop(0) if self.script else OK
                if outcome is None:
                    break
                writer.write(outcome.data if isinstance(outcome, AndClose) else outcome)
                await writer.drain()
                if isinstance(outcome, AndClose):
                    break
        writer.close()


def run(scenario):
    return asyncio.run(scenario())


def test_requests_share_one_keep_alive_connection_and_carry_their_headers():
    async def scenario():
        async with Server() as server:
            client = HTTPClient(server.url(), HEADERS, timeout=5)
            responses = [await client.post("/completions", b'{"n": %d}' % number) for number in range(3)]
            client.close()
        return server, responses

    server, responses = run(scenario)
    assert [(response.status, response.body) for response in responses] == [(200, JSON)] * 3
    assert server.connections == 1
    head, body = server.requests[2]
    assert head.startswith("POST /v1/completions HTTP/1.1\r\n")
    assert f"Host: 127.0.0.1:{server.port}\r\n" in head and "User-Agent: genres-arena-test\r\n" in head
    assert body == b'{"n": 2}'


def test_headers_come_in_lower_case_and_error_statuses_are_answers():
    async def scenario():
        async with Server(b"HTTP/1.1 429 Too Many\r\nRetry-After: 3\r\nContent-Length: 12\r\n\r\n" + JSON) as server:
            return await HTTPClient(server.url(), HEADERS, timeout=5).post("/completions", b"{}")

    response = run(scenario)
    assert (response.status, response.headers["retry-after"], response.body) == (429, "3", JSON)


def test_a_chunked_answer_is_put_together():
    chunked = b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"ok"\r\n7\r\n: true}\r\n0\r\n\r\n'

    async def scenario():
        async with Server(chunked, chunked) as server:
            client = HTTPClient(server.url(), HEADERS, timeout=5)
            return server, [await client.post("/x", b""), await client.post("/x", b"")]

    server, responses = run(scenario)
    assert [response.body for response in responses] == [JSON] * 2 and server.connections == 1


def test_answers_that_end_their_connection_are_whole_and_the_next_request_reconnects():
    without_length = AndClose(b"HTTP/1.0 200 OK\r\n\r\n" + JSON)  # the end of the connection ends the answer
    saying_close = b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\nConnection: close\r\n\r\n" + JSON

    async def scenario():
        async with Server(without_length, saying_close) as server:
            client = HTTPClient(server.url(), HEADERS, timeout=5)
            return server, [await client.post("/x", b"") for _ in range(3)]

    server, responses = run(scenario)
    assert [response.body for response in responses] == [JSON] * 3
    assert server.connections == 3


def test_a_kept_connection_the_server_closes_on_the_next_request_is_replaced_without_an_error():
    # A server's keep-alive timeout can close a connection just as the next request arrives.
    async def scenario():
        async with Server(OK, None) as server:
            client = HTTPClient(server.url(), HEADERS, timeout=5)
            return server, [await client.post("/x", b""), await client.post("/x", b"")]

    server, responses = run(scenario)
    assert [response.body for response in responses] == [JSON] * 2
    assert (len(server.requests), server.connections) == (3, 2)


def test_a_fresh_connection_closed_without_an_answer_is_an_error():
    async def scenario():
        async with Server(None) as server:
            with pytest.raises(HTTPClientError, match="closed the connection before a complete answer"):
                await HTTPClient(server.url(), HEADERS, timeout=5).post("/x", b"")

    run(scenario)


def test_a_connection_lost_in_the_middle_of_an_answer_is_an_error_not_tried_again():
    async def scenario():
        async with Server(OK, AndClose(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"ok"')) as server:
            client = HTTPClient(server.url(), HEADERS, timeout=5)
            await client.post("/x", b"")
            with pytest.raises(HTTPClientError, match="closed the connection before a complete answer"):
                await client.post("/x", b"")
            return server, client

    server, client = run(scenario)
    assert len(server.requests) == 2 and client.idle == []


def test_no_answer_within_the_timeout_is_a_timeout_and_the_connection_is_not_reused():
    async def scenario():
        async with Server(delay=1.0) as server:
            client = HTTPClient(server.url(), HEADERS, timeout=0.2)
            with pytest.raises(TimeoutError):
                await client.post("/x", b"")
            return client

    assert run(scenario).idle == []


def test_an_answer_over_the_size_limit_is_refused():
    async def scenario():
        async with Server() as server:
            client = HTTPClient(server.url(), HEADERS, timeout=5, max_response_bytes=8)
            with pytest.raises(HTTPClientError, match="larger than 8 bytes"):
                await client.post("/x", b"")
            return client

    assert run(scenario).idle == []


def test_an_answer_that_is_not_http_is_an_error():
    async def scenario():
        async with Server(b"SSH-2.0-OpenSSH_9.6\r\n") as server:
            with pytest.raises(HTTPClientError, match="malformed HTTP answer"):
                await HTTPClient(server.url(), HEADERS, timeout=5).post("/x", b"")

    run(scenario)


def test_an_interim_answer_is_skipped():
    async def scenario():
        async with Server(b"HTTP/1.1 100 Continue\r\n\r\n" + OK) as server:
            return await HTTPClient(server.url(), HEADERS, timeout=5).post("/x", b"")

    assert run(scenario).body == JSON


@pytest.fixture(scope="module")
def authority():
    return trustme.CA()


def test_https_with_a_trusted_certificate_and_a_refusal_without(authority):
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(server_context)
    trusting = ssl.create_default_context()
    authority.configure_trust(trusting)

    async def scenario():
        async with Server(ssl_context=server_context) as server:
            response = await HTTPClient(server.url("https"), HEADERS, timeout=5, ssl_context=trusting).post("/x", b"")
            with pytest.raises(HTTPClientError, match="certificate verify failed"):
                await HTTPClient(server.url("https"), HEADERS, timeout=5).post("/x", b"")
            return response

    assert run(scenario).body == JSON


def test_only_http_and_https_urls_are_taken():
    with pytest.raises(ValueError, match="is not an http:// or https:// URL"):
        HTTPClient("ftp://127.0.0.1/v1", HEADERS, timeout=5)
