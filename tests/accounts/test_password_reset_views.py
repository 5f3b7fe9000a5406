"""Django's password-reset views in the site's layout: the mail, the link, the new password; and the password change page."""

import re

import pytest
from django.core import mail
from django.urls import reverse

from accounts.models import PasswordChangeDue
from tests.accounts.conftest import ROLES, make_user

pytestmark = pytest.mark.django_db


def reset_link(message):
    return re.search(r"http://testserver(/accounts/reset/\S+/)", message.body).group(1)


def test_a_forgotten_password_is_reset_by_mail(client):
    person = make_user("annotator", "person")
    PasswordChangeDue.objects.create(user=person)
    assert b"Forgotten your password?" in client.get(reverse("login")).content

    response = client.post(reverse("password_reset"), {"email": "person@example.org"})

    assert response.url == reverse("password_reset_done")
    (message,) = mail.outbox
    assert message.to == ["person@example.org"] and message.subject == "Your GENRES Arena password"
    assert "person" in message.body
    form = client.get(reset_link(message), follow=True)
    assert form.context["validlink"] and b"Account: <strong>person</strong>" in form.content
    new = {"new_password1": "Fresh-pass-987", "new_password2": "Fresh-pass-987"}
    assert client.post(form.redirect_chain[-1][0], new).url == reverse("password_reset_complete")
    assert client.login(username="person", password="Fresh-pass-987")
    # Choosing a password by reset is choosing one's own: no forced change after it.
    assert not PasswordChangeDue.objects.exists()
    assert client.get(reverse("annotation:annotate_home")).status_code == 200


def test_a_used_link_does_not_work_twice(client):
    make_user("annotator", "person")
    client.post(reverse("password_reset"), {"email": "person@example.org"})
    link = reset_link(mail.outbox[0])
    form = client.get(link, follow=True)
    client.post(form.redirect_chain[-1][0], {"new_password1": "Fresh-pass-987", "new_password2": "Fresh-pass-987"})
    response = client.get(link, follow=True)
    assert not response.context["validlink"] and b"This link does not work" in response.content


def test_an_unknown_address_sends_nothing_and_says_the_same(client):
    response = client.post(reverse("password_reset"), {"email": "nobody@example.org"})
    assert response.url == reverse("password_reset_done") and mail.outbox == []


@pytest.mark.parametrize("role", ROLES)
def test_the_password_change_page_by_role(client_as, role):
    response = client_as(role).get(reverse("password_change"))
    if role == "anonymous":
        assert response.status_code == 302 and response.url.startswith(reverse("login"))
    else:
        assert response.status_code == 200 and b"Change your password" in response.content


def test_the_pages_use_the_site_layout(client):
    for name in ("password_reset", "password_reset_done", "password_reset_complete"):
        response = client.get(reverse(name))
        assert response.status_code == 200 and b'class="topbar"' in response.content, name
