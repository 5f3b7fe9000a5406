import os
import tempfile
from pathlib import Path

import pytest
from django.conf import settings

from genres_site import embedded_redis


def pytest_configure(config):
    """Without REDIS_URL the suite runs its own embedded Redis, apart from any running demo."""
    if os.environ.get("REDIS_URL"):
        return
    socket_path = Path(tempfile.mkdtemp(prefix="genres-test-redis-")) / "redis.sock"
    config._embedded_redis = embedded_redis.start(socket_path)
    url = embedded_redis.socket_url(socket_path)
    # Mutated in place: django_rq and channels keep references to these dictionaries.
    settings.REDIS_URL = url
    for queue in settings.RQ_QUEUES.values():
        queue["URL"] = url
    settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"] = [url]


def pytest_collection_modifyitems(config, items):
    """Browser tests run last: Playwright's sync API leaves an asyncio loop on the main thread
    for the rest of the session, where code calling async_to_sync (channels) would refuse to run."""
    items.sort(key=lambda item: "tests/browser/" in item.nodeid)


def pytest_unconfigure(config):
    process = getattr(config, "_embedded_redis", None)
    if process:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def admin_user(django_user_model):
    return django_user_model.objects.create_superuser("admin", "admin@example.org", "admin-pass-123")


@pytest.fixture
def annotator_user(django_user_model):
    return django_user_model.objects.create_user("annotator", "annotator@example.org", "annotator-pass-123")


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


@pytest.fixture(params=["openai", "lean"])
def transport(request, monkeypatch):
    """The OpenAI-compatible judge and embedder over each of their transports in turn."""
    monkeypatch.setenv("GENRES_OPENAI_TRANSPORT", request.param)
    return request.param
