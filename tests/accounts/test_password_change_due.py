"""Accounts made by staff with a one-time password: every page leads to the password change until it is done."""

import pytest
from django.urls import reverse

from accounts.models import PasswordChangeDue
from tests.accounts.conftest import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def due(client):
    person = make_user("annotator", "person", password="given-by-staff-1")
    PasswordChangeDue.objects.create(user=person)
    assert client.login(username="person", password="given-by-staff-1")
    return person


def test_every_page_leads_to_the_password_change(client, due):
    for url in (reverse("scoring:home"), reverse("annotation:annotate_home"), reverse("accounts:tokens")):
        response = client.get(url)
        assert response.status_code == 302 and response.url == reverse("password_change"), url
    page = client.get(reverse("password_change"))
    assert page.status_code == 200 and b"Choose your own before you go on." in page.content


def test_changing_it_frees_the_account(client, due):
    response = client.post(
        reverse("password_change"),
        {"old_password": "given-by-staff-1", "new_password1": "Own-choice-456", "new_password2": "Own-choice-456"},
    )
    assert response.url == reverse("password_change_done")
    assert not PasswordChangeDue.objects.exists()
    assert client.get(reverse("annotation:annotate_home")).status_code == 200
    client.logout()
    assert client.login(username="person", password="Own-choice-456")
    assert client.get(reverse("annotation:annotate_home")).status_code == 200


def test_signing_out_stays_possible(client, due):
    assert client.post(reverse("logout")).status_code == 302
    assert "_auth_user_id" not in client.session


def test_others_are_not_stopped(client):
    make_user("annotator", "free", password="free-pass-123")
    assert client.login(username="free", password="free-pass-123")
    assert client.get(reverse("annotation:annotate_home")).status_code == 200
