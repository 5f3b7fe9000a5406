"""Deactivating and reactivating an account: no sign-in, no API token, the work kept."""

import pytest
from django.urls import reverse

from scoring.models import ApiToken
from tests.accounts.conftest import make_user

pytestmark = pytest.mark.django_db


def test_a_deactivated_account_cannot_sign_in_or_use_its_tokens(client, staff_user):
    person = make_user("researcher", "person", password="person-pass-123")
    _, key = ApiToken.issue(person)
    client.force_login(staff_user)

    response = client.post(reverse("accounts:active", args=[person.pk]), {"active": "0"}, follow=True)

    assert "person is deactivated" in response.content.decode()
    person.refresh_from_db()
    assert not person.is_active
    client.logout()
    assert not client.login(username="person", password="person-pass-123")
    assert client.get("/api/datasets/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 401


def test_reactivating_restores_sign_in(client, staff_user):
    person = make_user("annotator", "person", password="person-pass-123")
    person.is_active = False
    person.save()
    client.force_login(staff_user)

    client.post(reverse("accounts:active", args=[person.pk]), {"active": "1"})

    person.refresh_from_db()
    assert person.is_active
    client.logout()
    assert client.login(username="person", password="person-pass-123")


def test_no_one_deactivates_themselves(client, staff_user):
    client.force_login(staff_user)
    assert client.post(reverse("accounts:active", args=[staff_user.pk]), {"active": "0"}).status_code == 403
    staff_user.refresh_from_db()
    assert staff_user.is_active


def test_an_unknown_account_is_404(client, staff_user):
    client.force_login(staff_user)
    assert client.post(reverse("accounts:active", args=[9999]), {"active": "0"}).status_code == 404
