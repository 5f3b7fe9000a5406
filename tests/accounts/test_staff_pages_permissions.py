"""Every staff page of accounts, for every role: anonymous → sign-in, annotator and researcher → 403, staff → served."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.accounts.conftest import ROLES, make_user

pytestmark = pytest.mark.django_db


def staff_requests(target):
    """(method, url) of every staff view; ``target`` is the account they act on."""
    return [
        ("get", reverse("accounts:list")),
        ("get", reverse("accounts:create")),
        ("post", reverse("accounts:role", args=[target.pk])),
        ("post", reverse("accounts:active", args=[target.pk])),
        ("post", reverse("accounts:invite_new", args=[target.pk])),
        ("post", reverse("accounts:invite_revoke", args=[target.pk])),
        ("post", reverse("accounts:reset_link", args=[target.pk])),
    ]


@pytest.mark.parametrize("role", ROLES)
def test_staff_pages_by_role(client_as, role):
    target = make_user("annotator", "target")
    client = client_as(role)
    for method, url in staff_requests(target):
        data = {"role": "researcher", "active": "1"} if method == "post" else None
        response = getattr(client, method)(url, data)
        if role == "anonymous":
            assert response.status_code == 302 and response.url.startswith(reverse("login")), url
        elif role in ("annotator", "researcher"):
            assert response.status_code == 403, url
            assert b"Only staff can manage accounts." in response.content
        else:
            assert response.status_code in (200, 302), url
    target.refresh_from_db()
    assert target.is_staff is False and target.is_active is True


def test_the_accounts_link_is_in_staff_navigation_only(client_as):
    link = f'href="{reverse("accounts:list")}"'.encode()
    assert link not in client_as("researcher").get(reverse("scoring:home")).content
    assert link in client_as("staff").get(reverse("scoring:home")).content


def test_posts_need_the_csrf_token(staff_user):
    target = make_user("annotator", "target")
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff_user)
    for method, url in staff_requests(target):
        if method == "post":
            assert client.post(url, {"role": "staff", "active": "0"}).status_code == 403, url
    assert client.post(reverse("accounts:create"), {"rows": "x,,", "method": "invite"}).status_code == 403
    assert client.post(reverse("accounts:tokens"), {"name": "x"}).status_code == 403
    target.refresh_from_db()
    assert not target.is_staff and target.is_active
