"""The run page's websocket: the state on connect, then every published update; closed to outsiders."""

import pytest
from asgiref.sync import async_to_sync
from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser, Permission

from genres_site.routing import websocket_urlpatterns
from scoring.genres.generation import GenerationSettings
from scoring.genres.scorer import ScoreSettings
from scoring.models import GenerationRun
from scoring.models.runs import RunChunk, ScoringRun
from scoring.progress import publish_progress
from tests.scoring.run_fixtures import echo, tiny_dataset

# The consumer reads the database from another thread: the data must be committed.
pytestmark = pytest.mark.django_db(transaction=True)
application = AuthMiddlewareStack(URLRouter(websocket_urlpatterns))


@pytest.fixture
def run():
    return ScoringRun.create(tiny_dataset(), [echo()], ["us"], ScoreSettings(), chunk_texts=2)


@pytest.fixture
def researcher(django_user_model):
    user = django_user_model.objects.create_user("researcher", password="researcher-pass-123")
    user.user_permissions.add(Permission.objects.get(codename="view_output"))
    return user


def communicator(run, user):
    connection = WebsocketCommunicator(application, f"/ws/runs/{run.pk}/")
    connection.scope["user"] = user
    return connection


def finish_a_chunk(run):
    run.start()
    chunk = run.chunks.first()
    chunk.hand_to("job-1")
    RunChunk.claim(chunk.pk, "job-1").complete([], {"requests": 7, "cache_hits": 1})


def test_the_page_gets_the_state_then_each_update(run, researcher):
    async def scenario():
        connection = communicator(run, researcher)
        connected, _ = await connection.connect()
        assert connected
        first = await connection.receive_json_from(timeout=5)
        assert (first["status"], first["chunks_done"], first["chunks_total"], first["percent"]) == ("queued", 0, 2, 0)
        await database_sync_to_async(finish_a_chunk)(run)
        await database_sync_to_async(publish_progress)(run)
        update = await connection.receive_json_from(timeout=5)
        progress = (update["status"], update["chunks_done"], update["requests"], update["cache_hits"])
        assert progress == ("running", 1, 7, 1)
        assert update["percent"] == 50
        await connection.disconnect()

    async_to_sync(scenario)()


def test_updates_of_other_runs_do_not_arrive(run, researcher):
    other = ScoringRun.create(run.dataset, [echo()], ["us"], ScoreSettings())

    async def scenario():
        connection = communicator(run, researcher)
        await connection.connect()
        await connection.receive_json_from(timeout=5)
        await database_sync_to_async(publish_progress)(other)
        assert await connection.receive_nothing(timeout=0.5)
        await connection.disconnect()

    async_to_sync(scenario)()


@pytest.mark.parametrize("who", ["anonymous", "annotator"])
def test_outsiders_are_turned_away(run, annotator_user, who):
    user = AnonymousUser() if who == "anonymous" else annotator_user

    async def scenario():
        connection = communicator(run, user)
        connected, code = await connection.connect()
        await connection.disconnect()
        assert not connected and code == 4403

    async_to_sync(scenario)()


def test_an_unknown_run_is_turned_away(researcher):
    async def scenario():
        connection = WebsocketCommunicator(application, "/ws/runs/999999/")
        connection.scope["user"] = researcher
        connected, code = await connection.connect()
        await connection.disconnect()
        assert not connected and code == 4403

    async_to_sync(scenario)()


def test_a_generation_run_has_a_socket_of_its_own(run, researcher, annotator_user):
    generation = GenerationRun.create(run.dataset, GenerationSettings("http://127.0.0.1:9/v1", "m"), [1], chunk_texts=2)

    async def scenario():
        connection = WebsocketCommunicator(application, f"/ws/generations/{generation.pk}/")
        connection.scope["user"] = researcher
        assert (await connection.connect())[0]
        first = await connection.receive_json_from(timeout=5)
        assert (first["status"], first["chunks_total"], first["systems"]) == ("queued", 2, [])
        await database_sync_to_async(publish_progress)(run)
        assert await connection.receive_nothing(timeout=0.3)
        await database_sync_to_async(generation.cancel)()
        await database_sync_to_async(publish_progress)(generation)
        assert (await connection.receive_json_from(timeout=5))["status"] == "cancelled"
        await connection.disconnect()
        refused = WebsocketCommunicator(application, f"/ws/generations/{generation.pk}/")
        refused.scope["user"] = annotator_user
        connected, code = await refused.connect()
        await refused.disconnect()
        assert not connected and code == 4403

    async_to_sync(scenario)()
