"""Each user's API tokens page: make (the key shown once), list with last use, revoke; only one's own."""

import pytest
from django.urls import reverse

from scoring.models import ApiToken
from scoring.models.catalogue import api_key_hash
from tests.accounts.conftest import ROLES, make_user

pytestmark = pytest.mark.django_db

URL = reverse("accounts:tokens")


@pytest.mark.parametrize("role", ROLES)
def test_every_signed_in_role_makes_a_token(client_as, role):
    client = client_as(role)
    response = client.post(URL, {"name": "notebook"})
    if role == "anonymous":
        assert response.status_code == 302 and response.url.startswith(reverse("login"))
        assert not ApiToken.objects.exists()
        return
    assert response.status_code == 200 and response["Cache-Control"].startswith("max-age=0")
    token, key = response.context["issued"]
    assert token.user.username == role and token.name == "notebook"
    assert key in response.content.decode() and token.key_sha256 == api_key_hash(key)
    assert ApiToken.user_for_key(key) == token.user
    # Shown once: the page, read again, lists the token by its first characters only.
    again = client.get(URL).content.decode()
    assert key not in again and f"{token.prefix}…" in again and "notebook" in again
    assert (b"imports datasets and outputs" in response.content) == (role == "staff")


def test_the_list_shows_only_ones_own_tokens_with_their_last_use(client):
    mine, other = make_user("researcher", "mine"), make_user("researcher", "other")
    _, key = ApiToken.issue(mine, "used")
    ApiToken.issue(mine, "idle")
    ApiToken.issue(other, "theirs")
    ApiToken.user_for_key(key)
    client.force_login(mine)

    tokens = list(client.get(URL).context["tokens"])

    assert {token.name for token in tokens} == {"used", "idle"}
    assert {token.name: token.last_used_at is not None for token in tokens} == {"used": True, "idle": False}


def test_revoking_ones_own_token(client):
    mine = make_user("annotator", "mine")
    token, key = ApiToken.issue(mine, "old")
    client.force_login(mine)

    response = client.post(reverse("accounts:token_revoke", args=[token.pk]), follow=True)

    assert "is revoked" in response.content.decode()
    assert ApiToken.user_for_key(key) is None


@pytest.mark.parametrize("role", ROLES)
def test_no_one_revokes_anothers_token(client_as, role):
    token, _ = ApiToken.issue(make_user("researcher", "owner"))
    response = client_as(role).post(reverse("accounts:token_revoke", args=[token.pk]))
    assert response.status_code == (302 if role == "anonymous" else 404)
    assert ApiToken.objects.filter(pk=token.pk).exists()


def test_revoking_needs_a_post(client):
    mine = make_user("annotator", "mine")
    token, _ = ApiToken.issue(mine)
    client.force_login(mine)
    assert client.get(reverse("accounts:token_revoke", args=[token.pk])).status_code == 405


def test_the_admin_token_list_says_where_tokens_are_made(admin_client):
    response = admin_client.get(reverse("admin:scoring_apitoken_changelist"))
    assert response.status_code == 200
    assert f'href="{URL}"'.encode() in response.content and b"create_api_token" in response.content
