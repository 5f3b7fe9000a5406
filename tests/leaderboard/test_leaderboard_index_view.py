"""The leaderboards index: every dataset with its level and counts, and a one-line verdict."""

import re

import pytest
from django.urls import reverse

from annotation.models import ASPECTS
from tests.factories import make_dataset
from tests.leaderboard.leaderboard_fixtures import (
    REVERSED,
    build_all,
    get_built,
    judged_campaign,
    ranking_labels,
    scored_dataset,
)

pytestmark = pytest.mark.django_db


def card(html, name):
    start = html.index(f'href="{reverse("leaderboard:dataset", args=[name])}"')
    return re.sub(r"\s+", " ", html[start : html.index("</a>", start)])


def test_each_dataset_with_counts_and_verdict(admin_client):
    scored_dataset(name="scored")
    judged, systems = scored_dataset(name="judged")
    judged_campaign(judged, systems, ranking_labels(dict.fromkeys(ASPECTS, REVERSED)), is_open=False)
    unscored, systems = make_dataset(name="unscored", texts=2, systems=("alpha", "beta"))
    judged_campaign(unscored, systems, ranking_labels(dict.fromkeys(ASPECTS, ("alpha", "beta"))), name="pilot")
    make_dataset(name="empty", texts=1, systems=("alpha",))

    build_all()
    html = admin_client.get(reverse("leaderboard:index")).content.decode()
    assert "No human judgements yet." in card(html, "scored")
    assert "<strong>4</strong> texts" in card(html, "scored")
    assert "<strong>3</strong> systems" in card(html, "scored")
    assert "<strong>1</strong> scoring run" in card(html, "scored")
    assert "<strong>0</strong> campaigns" in card(html, "scored")

    judged_card = card(html, "judged")
    assert (
        '<p class="verdict disagree">Human and GENRES rankings disagree: Kendall τ -1.00 (mean over 5 aspects).</p>'
        in judged_card
    )
    assert "<strong>1</strong> campaign" in judged_card and "<strong>60</strong> judgements" in judged_card
    assert "10 human judgements; no GENRES scores yet." in card(html, "unscored")
    assert "No GENRES scores or human judgements yet." in card(html, "empty")
    assert '<span class="badge">Sentence</span>' in card(html, "empty")


def test_descriptions_are_escaped_on_the_page(admin_client):
    dataset, _ = scored_dataset(name="escaped")
    dataset.description = "<script>alert('x')</script>"
    dataset.save()
    html = get_built(admin_client, reverse("leaderboard:dataset", args=[dataset.name])).content.decode()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
