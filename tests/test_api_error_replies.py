"""The API under /api/ answers JSON for every error, unexpected ones included; pages keep their HTML."""

import pytest
from django.test import Client, override_settings

from scoring.models import ApiToken
from scoring.views import api_catalogue

pytestmark = pytest.mark.django_db


@pytest.fixture
def token_client(admin_user):
    key = ApiToken.issue(admin_user)[1]
    # As in production: the error reaches the 500 handler instead of the test.
    return Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {key}")


@override_settings(DEBUG=False)
def test_an_unexpected_error_in_the_api_is_a_json_500(token_client, monkeypatch):
    def fail():
        raise RuntimeError("secret detail")

    monkeypatch.setattr(api_catalogue, "datasets_with_counts", fail)
    response = token_client.get("/api/datasets/")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"error": "Server error: the request failed unexpectedly; the server logged why."}
    assert "secret detail" not in response.content.decode()


@override_settings(DEBUG=False)
def test_an_unknown_api_address_is_a_json_404(token_client):
    response = token_client.get("/api/no-such-thing/")
    assert response.status_code == 404
    assert response.json() == {"error": "Nothing at /api/no-such-thing/."}


@override_settings(DEBUG=False)
def test_pages_outside_the_api_keep_the_html_error_pages(admin_client):
    response = admin_client.get("/no-such-page/")
    assert response.status_code == 404
    assert "404.html" in [template.name for template in response.templates]


@pytest.mark.parametrize("method", ["post", "put", "delete", "options"])
def test_another_method_on_leaderboard_json_is_a_json_405(admin_user, method):
    # As a browser or curl would send it: with CSRF checks, which answered an HTML 403 before.
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(admin_user)
    response = getattr(browser, method)("/api/datasets/CDR/leaderboard.json")
    assert response.status_code == 405
    assert response["Allow"] == "GET"
    assert response.json() == {"error": f"Method {method.upper()} is not allowed here."}
