"""Oversized or malformed requests, sent as a user or a script would, get an answer that says
what went wrong: the size limit by name, JSON for a JSON client, a 4xx for an unknown socket."""

import pytest
from asgiref.sync import async_to_sync
from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from genres_site.routing import websocket_urlpatterns
from scoring.models import ApiToken, Dataset
from scoring.upload_handlers import FORM_FIELDS_ALLOWANCE
from tests.annotation.annotator_fixtures import make_annotation_setup, make_user

pytestmark = pytest.mark.django_db

LIMIT = 1024 * 1024
FAR_TOO_LARGE = b"x" * (LIMIT + FORM_FIELDS_ALLOWANCE + 10_000)


@pytest.fixture
def small_upload_limit(settings):
    settings.GENRES_MAX_UPLOAD_BYTES = LIMIT


def test_an_oversized_practice_file_is_refused_by_its_size(client, small_upload_limit):
    staff = make_user("researcher", is_staff=True)
    campaign = make_annotation_setup([make_user("reader")]).campaign
    client.force_login(staff)

    response = client.post(
        reverse("annotation:campaign_practice_upload", args=[campaign.pk]),
        {"practice_file": SimpleUploadedFile("practice.jsonl", FAR_TOO_LARGE), "practice_pass_percent": 80},
    )

    assert response.status_code == 413
    page = response.content.decode()
    assert "larger than the upload limit of 1 MB" in page
    assert "This field is required" not in page


def test_a_chunked_api_upload_is_told_to_send_its_length_and_the_limit(admin_user):
    key = ApiToken.issue(admin_user)[1]
    script = Client(HTTP_AUTHORIZATION=f"Token {key}")
    # As a client streaming a file sends it: chunked, so without a Content-Length.
    response = script.post(
        "/api/datasets/",
        b"--x\r\n",
        content_type="multipart/form-data; boundary=x",
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
    )

    assert response.status_code == 411
    message = response.json()["error"]
    assert "Content-Length" in message and "upload limit is 128 MB" in message
    assert "required" not in message
    assert not Dataset.objects.exists()


def test_a_comment_over_the_form_data_limit_answers_json_to_a_json_client(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
    annotator = make_user("reader")
    assignment = make_annotation_setup([annotator]).campaign.items.first().assignments.first()
    browser = Client(raise_request_exception=False)
    browser.force_login(annotator)

    response = browser.post(
        reverse("annotation:annotate_item", args=[assignment.public_id]),
        {"comment": "x" * (1024 * 1024 + 1), "version": 0},
        HTTP_ACCEPT="application/json",
    )

    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"error": "The request's form data is larger than the limit of 1 MB; nothing was saved."}


def test_an_unknown_websocket_path_is_refused_not_a_server_error():
    async def handshake():
        connection = WebsocketCommunicator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)), "/ws/no-such-thing/")
        connected, _ = await connection.connect()
        await connection.disconnect()
        return connected

    assert async_to_sync(handshake)() is False
