"""A user added in the Django admin has a password staff typed: they change it at their first sign-in."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts.models import PasswordChangeDue

pytestmark = pytest.mark.django_db


def test_a_user_added_in_the_admin_must_change_the_password(admin_client):
    response = admin_client.post(
        reverse("admin:auth_user_add"),
        {
            "username": "added",
            "usable_password": "true",
            "password1": "Typed-by-staff-1",
            "password2": "Typed-by-staff-1",
        },
    )
    assert response.status_code == 302
    added = get_user_model().objects.get(username="added")
    assert PasswordChangeDue.objects.filter(user=added).exists()
