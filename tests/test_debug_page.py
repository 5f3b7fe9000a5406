"""Even with DEBUG on, Django's debug page for an error is for staff only: its local variables
can name the systems behind an annotator's anonymous pair."""

import pytest
from django.test import override_settings
from django.urls import include, path

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]

PAIR = "ClosedIE-T5 vs GPT-Fabulist-3.5"


def failing_view(request):
    pair = PAIR  # noqa: F841  (a local variable the debug page would show)
    raise RuntimeError("database is locked")


urlpatterns = [path("failing/", failing_view), path("", include("genres_site.urls"))]


@pytest.fixture
def debug_client(client):
    client.raise_request_exception = False
    with override_settings(DEBUG=True):
        yield client


def test_a_signed_in_annotator_gets_the_plain_error_page(debug_client, annotator_user):
    debug_client.force_login(annotator_user)
    response = debug_client.get("/failing/")
    assert response.status_code == 500
    page = response.content.decode()
    assert "Something went wrong" in page
    assert PAIR not in page and "Traceback" not in page


def test_a_visitor_signed_out_gets_the_plain_error_page(debug_client):
    response = debug_client.get("/failing/")
    assert response.status_code == 500
    assert PAIR not in response.content.decode()


def test_a_script_gets_a_plain_text_error(debug_client, annotator_user):
    debug_client.force_login(annotator_user)
    response = debug_client.get("/failing/", headers={"Accept": "application/json"})
    assert response.status_code == 500
    assert response.content.decode() == "Server Error (500)"


def test_staff_still_get_the_debug_page(debug_client, admin_user):
    debug_client.force_login(admin_user)
    response = debug_client.get("/failing/")
    assert response.status_code == 500
    page = response.content.decode()
    assert "database is locked" in page and PAIR in page
