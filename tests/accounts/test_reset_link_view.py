"""Staff show a user's password-reset link when the site's mail stays on this machine."""

import pytest
from django.urls import reverse

from tests.accounts.conftest import make_user

pytestmark = pytest.mark.django_db


def test_the_link_resets_the_password(client, staff_user):
    person = make_user("annotator", "person")
    client.force_login(staff_user)

    response = client.post(reverse("accounts:reset_link", args=[person.pk]))

    assert response.status_code == 200
    link = response.context["link"]
    assert link.startswith("http://testserver/accounts/reset/") and link in response.content.decode()
    client.logout()
    form = client.get(link, follow=True)  # Django moves the token into the session, then shows the form
    assert form.context["validlink"]
    done = client.post(
        form.redirect_chain[-1][0], {"new_password1": "Fresh-pass-987", "new_password2": "Fresh-pass-987"}
    )
    assert done.url == reverse("password_reset_complete")
    assert client.login(username="person", password="Fresh-pass-987")


def test_no_link_when_the_site_sends_mail(client, staff_user, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    client.force_login(staff_user)
    assert client.post(reverse("accounts:reset_link", args=[make_user("annotator").pk])).status_code == 404
