"""Accepting an invite: the username shown, a password chosen and checked, signed in; a link works once."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from accounts.models import Invite
from tests.accounts.conftest import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

PASSWORDS = {"new_password1": "Fresh-pass-987", "new_password2": "Fresh-pass-987"}


@pytest.fixture
def invited(staff_user):
    person = make_user("annotator", "newcomer")
    person.set_unusable_password()
    person.save()
    _, key = Invite.issue(person, staff_user)
    return person, reverse("accounts:invite", args=[key])


def test_the_page_names_the_account(client, invited):
    _, url = invited
    response = client.get(url)
    assert response.status_code == 200 and response["Cache-Control"].startswith("max-age=0")
    assert 'value="newcomer" readonly' in response.content.decode()


def test_accepting_sets_the_password_and_signs_in(client, invited):
    person, url = invited

    response = client.post(url, PASSWORDS)

    assert response.status_code == 302 and response.url == reverse("annotation:after_sign_in")
    assert int(client.session["_auth_user_id"]) == person.pk
    assert get_user_model().objects.get(pk=person.pk).check_password("Fresh-pass-987")
    assert Invite.objects.get().used_at is not None
    client.logout()
    assert client.get(url).status_code == 404  # single use


@pytest.mark.parametrize(
    ("passwords", "message"),
    [
        ({"new_password1": "Fresh-pass-987", "new_password2": "other-pass-987"}, "The two password fields didn"),
        ({"new_password1": "short", "new_password2": "short"}, "This password is too short."),
        ({"new_password1": "newcomer1", "new_password2": "newcomer1"}, "too similar to the username"),
    ],
)
def test_a_bad_password_is_refused_with_the_reason(client, invited, passwords, message):
    person, url = invited
    response = client.post(url, passwords)
    assert response.status_code == 200 and message in response.content.decode()
    person.refresh_from_db()
    assert not person.has_usable_password() and Invite.objects.get().used_at is None


def test_an_expired_unknown_or_deactivated_invite_is_404(client, invited):
    person, url = invited
    assert client.get(reverse("accounts:invite", args=["not-a-key"])).status_code == 404
    person.is_active = False
    person.save()
    assert client.get(url).status_code == 404
    person.is_active = True
    person.save()
    Invite.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    response = client.post(url, PASSWORDS)
    assert response.status_code == 404 and b"This invite link does not work" in response.content
    person.refresh_from_db()
    assert not person.has_usable_password()


def test_the_key_is_not_stored(invited):
    _, url = invited
    key = url.rstrip("/").rsplit("/", 1)[1]
    assert key not in str(list(Invite.objects.values()))


def test_a_link_submitted_twice_sets_the_password_once(invited):
    person, _ = invited
    invite = Invite.objects.get()
    assert invite.accept("First-pass-111")
    assert not invite.accept("Second-pass-222")  # the second submission of the same page, say
    person.refresh_from_db()
    assert person.check_password("First-pass-111")
