"""The import API by role: every token's user lists the datasets (as on the Datasets page); only staff import."""

import pytest
from django.contrib.auth import get_user_model

from accounts.roles import Role, set_role
from scoring.models import ApiToken, Dataset

pytestmark = pytest.mark.django_db

DATASETS_URL = "/api/datasets/"


@pytest.mark.parametrize("role", Role.values)
def test_listing_and_importing_by_role(client, role):
    Dataset.objects.create(name="CDR")
    user = get_user_model().objects.create_user("scripted")
    set_role(user, role)
    _, key = ApiToken.issue(user)
    header = {"HTTP_AUTHORIZATION": f"Token {key}"}

    listed = client.get(DATASETS_URL, **header)
    imported = client.post(DATASETS_URL, {"name": "New"}, **header)

    assert listed.status_code == 200 and [row["name"] for row in listed.json()["datasets"]] == ["CDR"]
    assert imported.status_code == (400 if role == Role.STAFF else 403)  # staff: the form's errors (no file)
    assert not Dataset.objects.filter(name="New").exists()
