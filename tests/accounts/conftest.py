"""Shared by the accounts tests: a user of each role, signed in or not."""

import pytest
from django.contrib.auth import get_user_model

from accounts.roles import Role, set_role

ROLES = ("anonymous", "annotator", "researcher", "staff")


def make_user(role, username=None, password="a-long-pass-phrase"):
    user = get_user_model().objects.create_user(username or role, f"{username or role}@example.org", password)
    set_role(user, role)
    return user


@pytest.fixture
def staff_user(db):
    return make_user(Role.STAFF)


@pytest.fixture
def client_as(client, db):
    """``client_as(role)``: the test client signed in as a new user of that role (anonymous: signed out)."""

    def sign_in(role):
        if role != "anonymous":
            client.force_login(make_user(role))
        return client

    return sign_in
