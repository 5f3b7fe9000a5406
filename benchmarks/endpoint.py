"""A cheap OpenAI-compatible endpoint for throughput benchmarks, in a process of its own.

The test server (``devtools.fake_openai``) answers each request in a thread of Python's
http.server, which costs the machine more CPU per request than the client being measured. This
one is a bare asyncio protocol on uvloop (when installed): HTTP/1.1 keep-alive, no framework,
each answer sent ``latency`` seconds after its request arrived by a timer, not a sleeping
thread. It answers /v1/completions (a prompt or a list) and /v1/chat/completions with the same
replies as the test server, so a judge reads them; anything else gets 404.

    python -m benchmarks.endpoint --latency 0.05     # prints its base URL, serves until stopped
"""

import argparse
import asyncio
import contextlib
import json
import subprocess
import sys
from collections.abc import Iterator

from devtools.fake_openai import CHAT, COMPLETIONS, chat_answer, completion_answer, model_reply

HEADER_END = b"\r\n\r\n"
ANSWERS = {COMPLETIONS: completion_answer, CHAT: chat_answer}


class Endpoint(asyncio.Protocol):
    """One connection: reads requests one after another, answers each after the latency."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.received = bytearray()
        self.answered = 0
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.received += data
        while (head_end := self.received.find(HEADER_END)) >= 0:
            head = bytes(self.received[:head_end]).decode("latin-1")
            length = content_length(head)
            body_start = head_end + len(HEADER_END)
            if len(self.received) < body_start + length:
                return  # the rest of the body is still on its way
            body = bytes(self.received[body_start : body_start + length])
            del self.received[: body_start + length]
            path = head.split(" ", 2)[1].split("?", 1)[0]
            asyncio.get_running_loop().call_later(self.latency, self.answer, path, body)

    def answer(self, path: str, body: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        self.answered += 1
        if path in ANSWERS:
            status, payload = "200 OK", ANSWERS[path](json.loads(body), model_reply, f"bench-{self.answered}")
        else:
            status, payload = (
                "404 Not Found",
                {"error": {"message": f"no route {path}", "type": "invalid_request_error"}},
            )
        encoded = json.dumps(payload).encode()
        head = f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(encoded)}\r\n\r\n"
        self.transport.write(head.encode() + encoded)


def content_length(head: str) -> int:
    for line in head.split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            return int(value)
    return 0


async def serve(latency: float) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Endpoint(latency), "127.0.0.1", 0, backlog=1024)
    host, port = server.sockets[0].getsockname()[:2]
    print(f"http://{host}:{port}/v1", flush=True)
    async with server:
        await server.serve_forever()


@contextlib.contextmanager
def endpoint_process(latency: float) -> Iterator[str]:
    """The endpoint in a process of its own; yields its base URL and stops it afterwards."""
    process = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.endpoint", "--latency", str(latency)], stdout=subprocess.PIPE, text=True
    )
    try:
        yield process.stdout.readline().strip()
    finally:
        process.terminate()
        process.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05, help="Seconds before each answer (default 0.05).")
    arguments = parser.parse_args()
    try:
        import uvloop
    except ImportError:
        runner = asyncio.run
    else:
        runner = uvloop.run
    with contextlib.suppress(KeyboardInterrupt):
        runner(serve(arguments.latency))


if __name__ == "__main__":
    main()
