"""Changing a role on the Accounts page; no one changes their own, only a superuser a superuser's."""

import pytest
from django.urls import reverse

from accounts.roles import Role, role_of
from tests.accounts.conftest import make_user

pytestmark = pytest.mark.django_db


def url(user):
    return reverse("accounts:role", args=[user.pk])


@pytest.mark.parametrize(
    ("before", "after"), [("annotator", "researcher"), ("researcher", "staff"), ("staff", "annotator")]
)
def test_staff_change_a_role(client, staff_user, before, after):
    person = make_user(before, "person")
    client.force_login(staff_user)

    response = client.post(url(person), {"role": after})

    assert response.status_code == 302 and response.url == reverse("accounts:list")
    person.refresh_from_db()
    assert role_of(person) == after
    assert f"person is now {Role(after).label.lower()}." in client.get(response.url).content.decode()


def test_an_unknown_role_changes_nothing(client, staff_user):
    person = make_user("annotator", "person")
    client.force_login(staff_user)
    response = client.post(url(person), {"role": "admin"}, follow=True)
    assert "person: choose a role among staff, researcher, annotator." in response.content.decode()
    assert role_of(person) == Role.ANNOTATOR


def test_no_one_changes_their_own_role(client, staff_user):
    client.force_login(staff_user)
    response = client.post(url(staff_user), {"role": "annotator"})
    assert response.status_code == 403
    assert b"You cannot change your own role" in response.content
    staff_user.refresh_from_db()
    assert staff_user.is_staff


def test_only_a_superuser_changes_a_superuser(client, staff_user, django_user_model):
    root = django_user_model.objects.create_superuser("root", "root@example.org", "x")
    client.force_login(staff_user)
    assert client.post(url(root), {"role": "annotator"}).status_code == 403

    client.force_login(django_user_model.objects.create_superuser("root2", "root2@example.org", "x"))
    assert client.post(url(root), {"role": "researcher"}).status_code == 302
    root.refresh_from_db()
    assert not root.is_superuser and role_of(root) == Role.RESEARCHER


def test_get_is_not_allowed(client, staff_user):
    client.force_login(staff_user)
    assert client.get(url(make_user("annotator"))).status_code == 405
