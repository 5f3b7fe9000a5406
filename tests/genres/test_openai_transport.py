"""What the default transport (the openai package's client) reaches that the lean one does not:
a proxy, NO_PROXY, a private CA through SSL_CERT_FILE, Azure OpenAI; and the headers both send.

Everything runs on 127.0.0.1: the fake OpenAI server, over HTTPS with a throwaway authority
(trustme) where a test needs it, and a small forward/CONNECT proxy started by the test.
"""

import asyncio
import contextlib
import ssl
import threading

import pytest
import trustme

from devtools.fake_openai import COMPLETIONS, FakeOpenAIServer
from scoring.genres.endpoints import tls_context
from scoring.genres.judges.registry import get_judge
from scoring.genres.openai_backend import RetryPolicy

PAIR = ("Marie Curie was born in Warsaw.", ["Marie Curie", "born in", "Warsaw"])
RETRIES = RetryPolicy(max_attempts=1, timeout=5.0)
PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
)


def ask(base_url=None, **options):
    """One support question with a fresh judge; (verdict, judge)."""
    options.setdefault("api_key", "test-key")
    judge = get_judge("openai", base_url=base_url, retry=RETRIES, batch_size=1, **options)
    [verdict] = judge.check_support([PAIR])
    return verdict, judge


class Proxy:
    """An HTTP proxy on 127.0.0.1, in a thread: CONNECT tunnels, and plain requests in absolute
    form forwarded one per connection. ``seen`` lists the first line of each request it took."""

    def __init__(self):
        self.seen = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        server = asyncio.run_coroutine_threadsafe(asyncio.start_server(self.handle, "127.0.0.1", 0), self.loop)
        self.server = server.result(5)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"
        return self

    def __exit__(self, *exc_info):
        self.loop.call_soon_threadsafe(self.server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)

    async def handle(self, reader, writer):
        head = await reader.readuntil(b"\r\n\r\n")
        method, target, _version = head.split(b"\r\n", 1)[0].decode().split(" ")
        self.seen.append(f"{method} {target}")
        if method == "CONNECT":
            host, port = target.rsplit(":", 1)
            upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:  # http://host:port/path: to the origin server in origin form
            authority, _, path = target.removeprefix("http://").partition("/")
            host, port = authority.rsplit(":", 1)
            upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))
            upstream_writer.write(head.replace(target.encode(), b"/" + path.encode(), 1))
        await asyncio.gather(self.pipe(reader, upstream_writer), self.pipe(upstream_reader, writer))

    @staticmethod
    async def pipe(reader, writer):
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()


@pytest.fixture
def no_proxy_settings(monkeypatch):
    """The environment without proxies, on the default transport."""
    for name in (*PROXY_VARIABLES, "GENRES_OPENAI_TRANSPORT"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.fixture(scope="module")
def authority():
    return trustme.CA()


@pytest.fixture
def https_server(authority):
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(context)
    with FakeOpenAIServer(ssl_context=context) as server:
        yield server


@pytest.fixture
def ca_file(authority, tmp_path):
    path = tmp_path / "private-ca.pem"
    authority.cert_pem.write_to_path(str(path))
    return str(path)


def test_a_request_goes_through_the_proxy_in_the_environment(no_proxy_settings):
    with FakeOpenAIServer() as server, Proxy() as proxy:
        no_proxy_settings.setenv("HTTP_PROXY", proxy.url)
        verdict, _judge = ask(server.base_url)
    assert verdict.supported and not verdict.error
    assert proxy.seen == [f"POST {server.base_url}/completions"]
    assert server.paths() == {COMPLETIONS: 1}


def test_an_https_endpoint_is_reached_through_a_connect_tunnel_with_a_private_ca(
    no_proxy_settings, https_server, ca_file
):
    with Proxy() as proxy:
        no_proxy_settings.setenv("HTTPS_PROXY", proxy.url)
        no_proxy_settings.setenv("SSL_CERT_FILE", ca_file)
        tls_context.cache_clear()  # made once per process, before this test set SSL_CERT_FILE
        try:
            verdict, _judge = ask(https_server.base_url)
        finally:
            tls_context.cache_clear()
    assert verdict.supported and not verdict.error
    assert proxy.seen == [f"CONNECT {https_server.base_url.removeprefix('https://').removesuffix('/v1')}"]


def test_no_proxy_is_respected(no_proxy_settings):
    with FakeOpenAIServer() as server, Proxy() as proxy:
        no_proxy_settings.setenv("HTTP_PROXY", proxy.url)
        no_proxy_settings.setenv("NO_PROXY", "127.0.0.1")
        verdict, _judge = ask(server.base_url)
    assert verdict.supported and proxy.seen == []


def test_a_private_ca_is_trusted_through_ssl_cert_file_and_refused_without(no_proxy_settings, https_server, ca_file):
    tls_context.cache_clear()
    try:
        refused, _judge = ask(https_server.base_url)
        tls_context.cache_clear()
        no_proxy_settings.setenv("SSL_CERT_FILE", ca_file)
        trusted, _judge = ask(https_server.base_url)
    finally:
        tls_context.cache_clear()
    assert "CERTIFICATE_VERIFY_FAILED" in refused.error or "certificate verify failed" in refused.error
    assert trusted.supported and not trusted.error


@pytest.mark.parametrize("transport", ["openai", "lean"], indirect=True)
def test_a_ca_bundle_and_a_client_certificate_from_the_settings(transport, authority, ca_file, tmp_path):
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(context)
    context.verify_mode = ssl.CERT_REQUIRED  # a server that wants the lab's client certificate
    authority.configure_trust(context)
    client_cert = tmp_path / "client.pem"
    authority.issue_cert("genres-arena@lab.example").private_key_and_cert_chain_pem.write_to_path(str(client_cert))
    with FakeOpenAIServer(ssl_context=context) as server:
        refused, _judge = ask(server.base_url, ca_bundle=ca_file)
        verdict, _judge = ask(server.base_url, ca_bundle=ca_file, client_cert=str(client_cert))
    assert refused.error and verdict.supported and not verdict.error


def test_azure_openai_gets_its_url_and_headers(no_proxy_settings):
    with FakeOpenAIServer() as server:
        no_proxy_settings.setenv("AZURE_OPENAI_ENDPOINT", server.origin)
        no_proxy_settings.setenv("AZURE_OPENAI_API_KEY", "azure-key")
        no_proxy_settings.setenv("OPENAI_API_VERSION", "2024-10-21")
        verdict, _judge = ask(model="judge-deployment-instruct", api_key=None)
    assert verdict.supported and not verdict.error
    [request] = server.log
    assert request.path == "/openai/deployments/judge-deployment-instruct/completions?api-version=2024-10-21"
    assert request.headers["api-key"] == "azure-key" and "authorization" not in request.headers


def test_azure_ad_tokens_come_from_the_environment_or_a_provider(no_proxy_settings):
    async def token():
        return "renewed-token"

    no_proxy_settings.delenv("OPENAI_API_KEY", raising=False)
    no_proxy_settings.delenv("AZURE_OPENAI_API_KEY", raising=False)
    no_proxy_settings.setenv("AZURE_OPENAI_AD_TOKEN", "ad-token")
    azure = {"api_key": None, "api_version": "2024-10-21", "model": "gpt-4o"}
    with FakeOpenAIServer() as server:
        from_environment, _judge = ask(azure_endpoint=server.origin, **azure)
        from_provider, _judge = ask(azure_endpoint=server.origin, azure_ad_token_provider=token, **azure)
    assert not from_environment.error and not from_provider.error
    assert [entry.authorization for entry in server.log] == ["Bearer ad-token", "Bearer renewed-token"]


@pytest.mark.parametrize("transport", ["openai", "lean"], indirect=True)
def test_organisation_project_and_extra_headers_go_with_every_request(transport, no_proxy_settings):
    no_proxy_settings.setenv("OPENAI_ORG_ID", "org-lab")
    no_proxy_settings.setenv("OPENAI_PROJECT_ID", "proj-genres")
    no_proxy_settings.setenv("GENRES_OPENAI_HEADERS", '{"X-Gateway-Key": "gateway-secret"}')
    with FakeOpenAIServer() as server:
        verdict, _judge = ask(server.base_url)
    headers = server.log[0].headers
    assert verdict.supported and headers["authorization"] == "Bearer test-key"
    assert (headers["openai-organization"], headers["openai-project"]) == ("org-lab", "proj-genres")
    assert headers["x-gateway-key"] == "gateway-secret"


def test_the_lean_transport_says_it_goes_past_a_proxy(no_proxy_settings, caplog):
    no_proxy_settings.setenv("GENRES_OPENAI_TRANSPORT", "lean")
    with FakeOpenAIServer() as server, Proxy() as proxy:
        no_proxy_settings.setenv("HTTP_PROXY", proxy.url)
        verdict, _judge = ask(server.base_url)
    assert verdict.supported and proxy.seen == []
    assert "The lean transport ignores the http proxy" in caplog.text


def test_settings_the_lean_transport_cannot_honour_are_refused(no_proxy_settings):
    no_proxy_settings.setenv("GENRES_OPENAI_TRANSPORT", "lean")
    with pytest.raises(ValueError, match="lean transport does not speak Azure OpenAI"):
        get_judge("openai", azure_endpoint="https://127.0.0.1:9", api_version="2024-10-21", api_key="k")
    no_proxy_settings.setenv("GENRES_OPENAI_TRANSPORT", "curl")
    with pytest.raises(ValueError, match="unknown transport 'curl'"):
        get_judge("openai", base_url="http://127.0.0.1:9/v1")
    no_proxy_settings.setenv("GENRES_OPENAI_TRANSPORT", "openai")
    no_proxy_settings.setenv("GENRES_OPENAI_HEADERS", "X-Key: 1")
    with pytest.raises(ValueError, match="GENRES_OPENAI_HEADERS='X-Key: 1' is not a valid"):
        get_judge("openai", base_url="http://127.0.0.1:9/v1")
