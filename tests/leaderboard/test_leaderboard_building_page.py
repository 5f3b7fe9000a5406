"""A leaderboard never built answers that it is being built, queues its build, and fills in once
the build lands."""

import django_rq
import pytest
from django.urls import reverse
from rq import SimpleWorker

from leaderboard import jobs
from tests.leaderboard.leaderboard_fixtures import scored_dataset

# Builds are queued when the request's transaction commits.
pytestmark = pytest.mark.django_db(transaction=True)


def test_a_never_built_leaderboard_is_built_in_the_background(admin_client, leaderboard_queue):
    dataset, _ = scored_dataset()
    page = admin_client.get(reverse("leaderboard:dataset", args=[dataset.name]))
    assert page.status_code == 200
    assert b"This leaderboard is being built" in page.content
    assert b"js/leaderboard_building.js" in page.content
    for route in ("leaderboard:sections", "leaderboard:api_dataset"):
        response = admin_client.get(reverse(route, args=[dataset.name]))
        assert response.status_code == 202
        assert response.json()["building"] is True
    assert leaderboard_queue.count == 1

    django_rq.get_worker(jobs.QUEUE, worker_class=SimpleWorker).work(burst=True)
    assert admin_client.get(reverse("leaderboard:sections", args=[dataset.name])).status_code == 200
    assert b'id="scores-table"' in admin_client.get(reverse("leaderboard:dataset", args=[dataset.name])).content


def test_another_margin_is_built_on_first_request(admin_client, leaderboard_queue):
    dataset, _ = scored_dataset()
    jobs.build_snapshots(dataset)
    url = reverse("leaderboard:api_dataset", args=[dataset.name])
    assert admin_client.get(url).status_code == 200
    assert admin_client.get(url, {"margin": "0.5"}).status_code == 202
    django_rq.get_worker(jobs.QUEUE, worker_class=SimpleWorker).work(burst=True)
    assert admin_client.get(url, {"margin": "0.5"}).json()["margin"] == 0.5
    assert admin_client.get(url).json()["margin"] == 0.2
