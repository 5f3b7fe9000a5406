"""The staff Accounts page: every user with role, last sign-in and state, and the actions on each."""

from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from accounts.models import Invite, PasswordChangeDue
from tests.accounts.conftest import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

URL = reverse("accounts:list")


def row(response, username):
    content = response.content.decode()
    start = content.index(f'id="account-{username}"')
    return content[start : content.index("</tr>", start)]


def test_lists_users_with_role_last_sign_in_and_state(client, staff_user, django_assert_max_num_queries):
    researcher = make_user("researcher")
    researcher.last_login = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
    researcher.save()
    invited = make_user("annotator", "invited")
    Invite.issue(invited, staff_user)
    expired = make_user("annotator", "late")
    Invite.objects.create(user=expired, key_sha256="0" * 64, expires_at=timezone.now())
    PasswordChangeDue.objects.create(user=make_user("annotator", "fresh"))
    gone = make_user("annotator", "gone")
    gone.is_active = False
    gone.save()
    client.force_login(staff_user)

    with django_assert_max_num_queries(8):
        response = client.get(URL)

    assert response.status_code == 200
    assert '<option value="researcher" selected>' in row(response, "researcher")
    assert "2026-03-01 09:30" in row(response, "researcher")
    assert "never" in row(response, "invited") and "invited, until" in row(response, "invited")
    assert "invite expired" in row(response, "late")
    assert "password change due" in row(response, "fresh")
    assert "deactivated" in row(response, "gone") and "Reactivate" in row(response, "gone")
    # Staff do not change their own role or deactivate themselves from here.
    assert "Deactivate" not in row(response, "staff") and "<select" not in row(response, "staff")


def test_reset_links_are_offered_only_while_mail_stays_on_this_machine(client, staff_user, settings):
    make_user("annotator")
    client.force_login(staff_user)
    assert "Reset link" in row(client.get(URL), "annotator")

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    assert "Reset link" not in row(client.get(URL), "annotator")


def test_every_user_is_listed(client, staff_user):
    for index in range(5):
        make_user("annotator", f"person{index}")
    client.force_login(staff_user)
    assert len(client.get(URL).context["accounts"]) == get_user_model().objects.count() == 6
