"""The upload page's websocket for an import running in the background: its state on connect,
then each progress message; closed to anyone but staff."""

import pytest
from asgiref.sync import async_to_sync
from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from genres_site.routing import websocket_urlpatterns
from scoring.import_jobs import upload_state
from scoring.models import Upload
from scoring.progress import publish_upload_progress

# The consumer reads the database from another thread: the data must be committed.
pytestmark = pytest.mark.django_db(transaction=True)
application = AuthMiddlewareStack(URLRouter(websocket_urlpatterns))


@pytest.fixture
def queued_upload(admin_user):
    return Upload.objects.create(
        kind=Upload.Kind.DATASET,
        dataset_name="People",
        file_name="people.jsonl",
        outcome=Upload.Outcome.QUEUED,
        uploaded_by=admin_user,
    )


def communicator(upload, user):
    connection = WebsocketCommunicator(application, f"/ws/uploads/{upload.pk}/")
    connection.scope["user"] = user
    return connection


def test_staff_get_the_state_then_each_progress_message(queued_upload, admin_user):
    async def scenario():
        connection = communicator(queued_upload, admin_user)
        connected, _ = await connection.connect()
        assert connected
        first = await connection.receive_json_from(timeout=5)
        assert (first["upload"], first["stage"], first["active"]) == (queued_upload.pk, "queued", True)
        assert first["percent"] == 0
        progress = {"stage": "storing", "done": 2500, "total": 10000}
        await database_sync_to_async(publish_upload_progress)(queued_upload.pk, upload_state(queued_upload, progress))
        update = await connection.receive_json_from(timeout=5)
        assert (update["stage"], update["stage_label"], update["percent"]) == ("storing", "Storing", 25)
        await connection.disconnect()

    async_to_sync(scenario)()


def test_annotators_are_turned_away(queued_upload, annotator_user):
    async def scenario():
        connection = communicator(queued_upload, annotator_user)
        connected, code = await connection.connect()
        await connection.disconnect()
        assert not connected and code == 4403

    async_to_sync(scenario)()
