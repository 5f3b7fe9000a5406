"""Sign-in throttling, as an attacker guessing passwords or API tokens meets it."""

import django_rq
import pytest
from django.test import Client

from core.login_throttle import KEY_PREFIX
from scoring.models import ApiToken

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

LOGIN = "/accounts/login/"


@pytest.fixture(autouse=True)
def small_limits(settings):
    settings.GENRES_LOGIN_FAILURES_PER_ACCOUNT = 5
    settings.GENRES_LOGIN_FAILURES_PER_ADDRESS = 8
    settings.GENRES_LOGIN_COOL_DOWN_SECONDS = 600
    redis = django_rq.get_connection()
    yield
    for key in redis.scan_iter(f"{KEY_PREFIX}*"):
        redis.delete(key)


def browser(address):
    return Client(REMOTE_ADDR=address)


def sign_in(client, username, password):
    return client.post(LOGIN, {"username": username, "password": password})


def signed_in(client):
    return "_auth_user_id" in client.session


def test_wrong_passwords_lock_the_account_even_against_the_right_one(django_user_model):
    django_user_model.objects.create_user("alice", password="alice-pass-123")
    for attempt in range(5):
        # From a new address each time: the account's own count locks it.
        sign_in(browser(f"10.0.0.{attempt}"), "alice", "guess")

    client = browser("10.0.1.1")
    response = sign_in(client, "alice", "alice-pass-123")

    assert not signed_in(client)
    assert "Too many failed sign-ins: try again in 10 minutes." in response.content.decode()


def test_one_address_guessing_many_accounts_is_refused(django_user_model):
    django_user_model.objects.create_user("bob", password="bob-pass-123")
    attacker = browser("10.0.2.1")
    for attempt in range(8):
        sign_in(attacker, f"user{attempt}", "guess")

    assert "Too many failed sign-ins" in sign_in(attacker, "bob", "bob-pass-123").content.decode()
    assert not signed_in(attacker)
    other = browser("10.0.2.2")
    sign_in(other, "bob", "bob-pass-123")
    assert signed_in(other)


def test_a_successful_sign_in_clears_the_accounts_count(django_user_model):
    django_user_model.objects.create_user("carol", password="carol-pass-123")
    for _ in range(4):
        sign_in(browser("10.0.3.1"), "carol", "guess")
    sign_in(browser("10.0.3.2"), "carol", "carol-pass-123")
    for _ in range(4):
        sign_in(browser("10.0.3.3"), "carol", "guess")

    client = browser("10.0.3.4")
    sign_in(client, "carol", "carol-pass-123")
    assert signed_in(client)


def test_guessed_api_tokens_lock_the_address_out_of_the_api(admin_user):
    key = ApiToken.issue(admin_user)[1]
    for attempt in range(8):
        response = Client(REMOTE_ADDR="10.0.4.1", HTTP_AUTHORIZATION=f"Token guess-{attempt}").get("/api/datasets/")
        assert response.status_code == 401

    response = Client(REMOTE_ADDR="10.0.4.1", HTTP_AUTHORIZATION=f"Token {key}").get("/api/datasets/")
    assert response.status_code == 429
    assert response.json() == {"error": "Too many failed sign-ins: try again in 10 minutes."}
    assert Client(REMOTE_ADDR="10.0.4.2", HTTP_AUTHORIZATION=f"Token {key}").get("/api/datasets/").status_code == 200
