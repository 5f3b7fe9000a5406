"""A token's last use is bookkeeping: written at most once a minute, and never failing the request."""

import pytest
from django.db import OperationalError
from django.db.models import QuerySet
from django.test import Client

from scoring.models import ApiToken

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


@pytest.fixture
def token_and_script(admin_user):
    token, key = ApiToken.issue(admin_user)
    return token, Client(HTTP_AUTHORIZATION=f"Token {key}")


def test_a_locked_database_does_not_fail_a_request_over_the_last_use(token_and_script, monkeypatch):
    token, script = token_and_script

    def database_is_locked(queryset, **changes):
        if "last_used_at" in changes:
            raise OperationalError("database is locked")
        return original_update(queryset, **changes)

    original_update = QuerySet.update
    monkeypatch.setattr(QuerySet, "update", database_is_locked)

    assert script.get("/api/datasets/").status_code == 200
    token.refresh_from_db()
    assert token.last_used_at is None


def test_polling_writes_the_last_use_once_a_minute(token_and_script):
    token, script = token_and_script
    script.get("/api/datasets/")
    token.refresh_from_db()
    first_use = token.last_used_at

    for _ in range(3):
        script.get("/api/datasets/")

    token.refresh_from_db()
    assert first_use is not None and token.last_used_at == first_use
