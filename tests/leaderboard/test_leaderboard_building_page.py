"""A leaderboard never built answers that it is being built, queues its build, and fills in once
the build lands."""

import django_rq
import pytest
from django.urls import reverse
from rq import SimpleWorker

from leaderboard import contents, jobs
from leaderboard.models import Snapshot
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


def test_another_margin_is_built_at_once_and_alone_telling_the_page_its_steps(
    admin_client, leaderboard_queue, monkeypatch
):
    dataset, _ = scored_dataset()
    jobs.build_snapshots(dataset)
    default = Snapshot.objects.get(dataset=dataset)
    page = admin_client.get(reverse("leaderboard:dataset", args=[dataset.name]), {"margin": "0.5"})
    assert b'id="build-progress"' in page.content
    assert f"Step 1 of {jobs.VARIANT_STEPS}: waiting for a worker".encode() in page.content
    waiting = admin_client.get(reverse("leaderboard:sections", args=[dataset.name]), {"margin": "0.5"})
    assert waiting.status_code == 202
    assert waiting.json()["progress"] == {"step": "waiting for a worker", "done": 0, "total": jobs.VARIANT_STEPS}
    # One job, of this variant alone: no full build behind it.
    assert [job.func_name for job in leaderboard_queue.jobs] == ["leaderboard.jobs.build_variant"]

    told = []
    monkeypatch.setattr(jobs, "broadcast", lambda group, message: told.append(message))
    django_rq.get_worker(jobs.QUEUE, worker_class=SimpleWorker).work(burst=True)
    steps = [message for message in told if message["type"] == "leaderboard.progress"]
    battles = [f"metric battles of {name.lower()}" for _, name in contents.ASPECT_NAMES]
    assert [step["step"] for step in steps] == ["human ratings", "scores", *battles, "tables and figures", "storing"]
    assert [step["done"] for step in steps] == list(range(jobs.VARIANT_STEPS))
    assert {(step["setting"], step["margin"]) for step in steps} == {("", 0.5)}
    assert told[-1]["type"] == "leaderboard.built"  # the waiting page reloads
    assert jobs.variant_progress(dataset.pk, "", 0.5) is None
    # The default leaderboard was left as it was; the new margin stands beside it.
    assert Snapshot.objects.get(pk=default.pk).built_at == default.built_at
    assert Snapshot.objects.variant(dataset, "", 0.5).get().newest
