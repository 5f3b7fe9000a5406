"""Files far above the limit are refused from their declared size, through the page and the API."""

import pytest
from django.test import Client

from scoring.models import ApiToken, Dataset, Upload
from scoring.upload_handlers import FORM_FIELDS_ALLOWANCE
from tests.scoring.test_upload_view import dataset_post

pytestmark = pytest.mark.django_db

LIMIT = 1024
FAR_TOO_LARGE = b"x" * (LIMIT + FORM_FIELDS_ALLOWANCE + 10_000)


@pytest.fixture(autouse=True)
def small_limit(settings):
    settings.GENRES_MAX_UPLOAD_BYTES = LIMIT


def test_the_upload_page_refuses_by_declared_size_and_keeps_csrf(admin_user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    client.get("/upload/")
    data = {"csrfmiddlewaretoken": client.cookies["csrftoken"].value, **dataset_post(FAR_TOO_LARGE)}

    response = client.post("/upload/", data)

    assert response.status_code == 413
    assert "larger than the upload limit" in response.content.decode()
    assert not Dataset.objects.exists()


def test_the_api_refuses_by_declared_size(client, admin_user):
    key = ApiToken.issue(admin_user)[1]

    response = client.post(
        "/api/datasets/",
        {"name": "Demo", "file": dataset_post(FAR_TOO_LARGE)["dataset-file"]},
        HTTP_AUTHORIZATION=f"Token {key}",
    )

    assert response.status_code == 413
    assert "larger than the upload limit" in response.json()["error"]
    assert not Dataset.objects.exists()
    assert not Upload.objects.filter(outcome=Upload.Outcome.IMPORTED).exists()
