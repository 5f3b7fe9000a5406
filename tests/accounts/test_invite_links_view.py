"""A new invite link for one account (the old one stops working) and revoking an invite."""

import pytest
from django.urls import reverse

from accounts.models import Invite
from tests.accounts.conftest import make_user

pytestmark = pytest.mark.django_db


def test_a_new_link_replaces_the_old_one_and_is_shown_once(client, staff_user):
    person = make_user("annotator", "person")
    _, old_key = Invite.issue(person, staff_user)
    client.force_login(staff_user)

    response = client.post(reverse("accounts:invite_new", args=[person.pk]))

    assert response.status_code == 200 and response["Cache-Control"].startswith("max-age=0")
    link = response.context["link"]
    assert link.startswith("http://testserver/accounts/invite/") and link in response.content.decode()
    assert Invite.objects.filter(user=person).count() == 1
    assert Invite.pending_for_key(old_key) is None
    assert Invite.pending_for_key(link.rstrip("/").rsplit("/", 1)[1]).user == person


def test_revoking_an_invite_kills_its_link(client, staff_user):
    person = make_user("annotator", "person")
    _, key = Invite.issue(person, staff_user)
    client.force_login(staff_user)

    response = client.post(reverse("accounts:invite_revoke", args=[person.pk]), follow=True)

    assert "The invite of person is revoked" in response.content.decode()
    assert not Invite.objects.exists()
    client.logout()
    assert client.get(reverse("accounts:invite", args=[key])).status_code == 404


def test_a_used_invite_is_not_revoked_again(client, staff_user):
    person = make_user("annotator", "person")
    invite, _ = Invite.issue(person, staff_user)
    invite.accept("a-long-pass-phrase")
    client.force_login(staff_user)
    client.post(reverse("accounts:invite_revoke", args=[person.pk]))
    assert Invite.objects.get().used_at is not None
