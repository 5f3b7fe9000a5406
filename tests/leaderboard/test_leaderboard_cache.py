"""Each part of a leaderboard is built once per change of the data it comes from, then cached."""

from collections import Counter

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotation.models import Assignment, Judgement
from leaderboard import human, metrics, services
from scoring.models import System
from tests.leaderboard.leaderboard_fixtures import (
    HUMAN_ORDER,
    judged_campaign,
    ranking_labels,
    scored_dataset,
    store_run,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def builds(monkeypatch):
    """Counts the builds of each part."""
    cache.clear()
    counted = Counter()

    def counting(name, function):
        def wrapper(*args, **kwargs):
            counted[name] += 1
            return function(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(human, "human_side", counting("human", human.human_side))
    monkeypatch.setattr(metrics, "metric_scores", counting("scores", metrics.metric_scores))
    monkeypatch.setattr(services, "rate_metric_battles", counting("metric ratings", services.rate_metric_battles))
    monkeypatch.setattr(services, "assemble", counting("page", services.assemble))
    return counted


@pytest.fixture
def dataset():
    dataset, systems = scored_dataset()
    judged_campaign(dataset, systems, ranking_labels(HUMAN_ORDER), is_open=False)
    return dataset


def get(client, dataset, **query):
    assert client.get(reverse("api-dataset-leaderboard", args=[dataset.name]), query).status_code == 200


def test_a_second_request_builds_nothing(admin_client, dataset, builds):
    get(admin_client, dataset)
    assert builds == {"human": 1, "scores": 1, "metric ratings": 1, "page": 1}
    get(admin_client, dataset)
    admin_client.get(reverse("leaderboard", args=[dataset.name]))
    assert builds == {"human": 1, "scores": 1, "metric ratings": 1, "page": 1}


def test_an_edited_judgement_rebuilds_the_human_side_only(admin_client, dataset, builds):
    get(admin_client, dataset)
    judgement = Judgement.objects.filter(aspect="ts").first()
    judgement.label = "tie"
    judgement.save()
    get(admin_client, dataset)
    assert builds == {"human": 2, "scores": 1, "metric ratings": 1, "page": 2}


def test_a_deleted_judgement_counts_as_a_change(admin_client, dataset, builds):
    get(admin_client, dataset)
    Assignment.objects.first().judgements.all().delete()
    get(admin_client, dataset)
    assert builds["human"] == 2


def test_a_finished_run_rebuilds_the_scores_only(admin_client, dataset, builds):
    get(admin_client, dataset)
    store_run(dataset, System.objects.filter(name__in=["alpha", "beta"]), lambda *_: 0.4)
    get(admin_client, dataset)
    assert builds == {"human": 1, "scores": 2, "metric ratings": 2, "page": 2}


def test_another_margin_rebates_only_the_metric_battles(admin_client, dataset, builds):
    get(admin_client, dataset)
    get(admin_client, dataset, margin="0.4")
    assert builds == {"human": 1, "scores": 1, "metric ratings": 2, "page": 2}
    get(admin_client, dataset)
    assert builds["page"] == 2
