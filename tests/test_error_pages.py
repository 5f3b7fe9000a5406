"""Refusals and missing pages are shown in the site's own layout, saying why."""

import pytest
from django.test import RequestFactory, override_settings
from django.views.defaults import server_error

from scoring.models import Dataset

pytestmark = pytest.mark.django_db


def test_an_annotator_refused_a_dataset_page_is_told_why(client, annotator_user):
    dataset = Dataset.objects.create(name="people")
    client.force_login(annotator_user)
    response = client.get(dataset.get_absolute_url())
    assert response.status_code == 403
    assert [template.name for template in response.templates][:2] == ["403.html", "base.html"]
    assert "Can view output" in response.content.decode()


def test_a_refusal_with_a_reason_shows_the_reason(client, annotator_user):
    client.force_login(annotator_user)
    response = client.get("/upload/")
    assert response.status_code == 403
    assert "Only staff can upload and run scoring." in response.content.decode()


@override_settings(DEBUG=False)
def test_a_missing_page_names_the_path_quoted(client, annotator_user):
    client.force_login(annotator_user)
    response = client.get("/no-such-page/<b>/")
    assert response.status_code == 404
    assert "404.html" in [template.name for template in response.templates]
    page = response.content.decode()
    assert "<code>/no-such-page/%3Cb%3E/</code>" in page and "<b>" not in page


def test_the_favicon_is_served_from_the_static_files(client):
    response = client.get("/favicon.ico")
    # Not permanent: collected, the file is named after its content, which may change.
    assert response.status_code == 302
    assert response["Location"] == "/static/favicon.svg"


def test_the_server_error_page_renders_without_a_request():
    # Django renders 500.html with an empty context: no user, no request.
    response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert "Something went wrong" in response.content.decode()
