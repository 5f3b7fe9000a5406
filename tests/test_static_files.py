"""Static files as production serves them: collectstatic names each file after a hash of its
content, pages link those names, and WhiteNoise has browsers keep them for a year (a new content
gets a new name), gzipped ahead of time."""

import re

import pytest
from django.core.management import call_command
from django.http import HttpResponse
from django.templatetags.static import static
from django.test import RequestFactory, override_settings
from whitenoise.middleware import WhiteNoiseMiddleware

from genres_site import settings as site_settings

A_YEAR_OR_MORE = re.compile(r"max-age=(\d+)")


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    """The production storage (the tests' own links unhashed names), collected into a directory of its own."""
    root = tmp_path_factory.mktemp("staticfiles")
    with override_settings(STATIC_ROOT=root, STORAGES=site_settings.STORAGES):
        call_command("collectstatic", "--noinput", verbosity=0)
        yield root


def served(path, **headers):
    middleware = WhiteNoiseMiddleware(lambda request: HttpResponse(status=404))
    return middleware(RequestFactory().get(path, **headers))


def test_production_names_static_files_by_their_content(collected):
    assert site_settings.STORAGES["staticfiles"]["BACKEND"].endswith("CompressedManifestStaticFilesStorage")
    assert re.fullmatch(
        r"/static/vendor/plotly-leaderboard\.min\.[0-9a-f]{12}\.js", static("vendor/plotly-leaderboard.min.js")
    )
    assert re.fullmatch(r"/static/css/app\.[0-9a-f]{12}\.css", static("css/app.css"))


@pytest.mark.django_db
def test_pages_link_the_hashed_names(collected, client):
    page = client.get("/accounts/login/").content.decode()
    assert re.search(r'href="/static/css/app\.[0-9a-f]{12}\.css"', page)


@pytest.mark.django_db  # closing a response signals the request's end, which closes old connections
def test_hashed_files_are_kept_a_year_and_sent_gzipped(collected):
    response = served(static("vendor/plotly-leaderboard.min.js"), HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "immutable" in response["Cache-Control"]
    assert int(A_YEAR_OR_MORE.search(response["Cache-Control"]).group(1)) >= 365 * 24 * 3600
    response.close()
    # The same file by its own name (a link from an old page) is kept only briefly: it may change.
    unhashed = served("/static/vendor/plotly-leaderboard.min.js")
    assert int(A_YEAR_OR_MORE.search(unhashed["Cache-Control"]).group(1)) <= 3600
    unhashed.close()
