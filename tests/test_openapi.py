"""/api/openapi.json: a valid OpenAPI 3.1 document that describes the routes the site has."""

import re

import pytest
from django.urls import Resolver404, resolve
from openapi_spec_validator import validate

pytestmark = pytest.mark.django_db

# A value for each path parameter, to resolve a documented path against the URL configuration.
SAMPLE_PARAMETERS = {"name": "CDR", "pk": "1"}


@pytest.fixture
def document(client):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    return response.json()


def test_the_served_document_is_valid_openapi(document):
    validate(document)
    assert document["openapi"].startswith("3.1")


def test_every_documented_path_is_a_route_of_the_site(document):
    for path in document["paths"]:
        url = re.sub(r"\{(\w+)\}", lambda match: SAMPLE_PARAMETERS[match[1]], path)
        try:
            resolve(url)
        except Resolver404:
            pytest.fail(f"{path} is documented but no route answers {url}")


def test_every_api_route_is_documented(document):
    from genres_site.urls import urlpatterns
    from scoring.urls import urlpatterns as scoring_patterns

    api_routes = {
        "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(pattern.pattern))
        for pattern in [*urlpatterns, *scoring_patterns]
        if str(pattern.pattern).startswith("api/")
    }
    assert api_routes <= set(document["paths"])
