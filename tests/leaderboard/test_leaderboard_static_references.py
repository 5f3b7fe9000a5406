"""Leaderboard pages load scripts and styles from the app's own static files only (no CDN), and run
no inline script (the Content-Security-Policy allows none)."""

from html.parser import HTMLParser

import pytest
from django.contrib.staticfiles import finders
from django.templatetags.static import static
from django.test import Client
from django.urls import reverse

from tests.leaderboard.leaderboard_fixtures import (
    HUMAN_ORDER,
    build_all,
    judged_campaign,
    ranking_labels,
    scored_dataset,
)

pytestmark = pytest.mark.django_db


class Assets(HTMLParser):
    def __init__(self):
        super().__init__()
        self.assets = []
        self.inline_scripts = 0

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "script" and attributes.get("src"):
            self.assets.append(attributes["src"])
        elif tag == "script" and attributes.get("type") != "application/json":
            self.inline_scripts += 1
        if tag == "link" and attributes.get("href"):
            self.assets.append(attributes["href"])


def parsed(html):
    parser = Assets()
    parser.feed(html)
    return parser


def assets_of(html):
    return parsed(html).assets


@pytest.fixture
def pages(admin_client):
    dataset, systems = scored_dataset()
    _, (annotator,) = judged_campaign(dataset, systems, ranking_labels(HUMAN_ORDER), is_open=True)
    annotator_client = Client()
    annotator_client.force_login(annotator)
    hidden = annotator_client.get(reverse("leaderboard:dataset", args=[dataset.name]))
    assert hidden.status_code == 403
    building = admin_client.get(reverse("leaderboard:dataset", args=[dataset.name])).content.decode()
    build_all()
    return {
        "building": building,
        "index": admin_client.get(reverse("leaderboard:index")).content.decode(),
        "dataset": admin_client.get(reverse("leaderboard:dataset", args=[dataset.name])).content.decode(),
        "hidden": hidden.content.decode(),
    }


def test_every_script_and_stylesheet_is_served_by_the_app(pages):
    static_prefix = static("")
    for name, html in pages.items():
        for asset in assets_of(html):
            assert asset.startswith(static_prefix), f"{name} page loads {asset}"
            assert finders.find(asset.removeprefix(static_prefix)), f"{name} page: {asset} is not a static file"


def test_the_dataset_page_loads_the_partial_plotly_bundle(pages):
    assets = assets_of(pages["dataset"])
    assert static("vendor/plotly-leaderboard.min.js") in assets
    assert static("js/leaderboard.js") in assets
    assert static("css/leaderboard.css") in assets


def test_no_page_runs_an_inline_script(pages):
    for name, html in pages.items():
        assert parsed(html).inline_scripts == 0, name
