"""Rebuilds are debounced: at most one build queued per dataset, and a change during a build makes
exactly one more build after it."""

import django_rq
import pytest
from rq import SimpleWorker

from annotation.models import Assignment
from annotation.services.judgements import save_judgements
from leaderboard import jobs
from tests.annotation.campaign_factories import make_campaign
from tests.factories import make_dataset

# Builds are queued when the transaction that asks for them commits.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres_relevant]


@pytest.fixture
def campaign():
    return make_campaign(texts=6, annotators=2, overlap_share=0.0)[0]


@pytest.fixture
def builds(monkeypatch):
    """The datasets built, in order."""
    built = []
    original = jobs.build_snapshots

    def counting(dataset, asked=()):
        built.append(dataset.pk)
        return original(dataset, asked)

    monkeypatch.setattr(jobs, "build_snapshots", counting)
    return built


def work():
    django_rq.get_worker(jobs.QUEUE, worker_class=SimpleWorker).work(burst=True)


def test_a_burst_of_saves_queues_one_build(campaign, leaderboard_queue, builds):
    assignments = list(Assignment.objects.filter(item__campaign=campaign))
    for assignment in assignments:
        save_judgements(assignment, {"ts": "left", "us": "tie"}, expected_version=assignment.version, seconds=1)
    assert leaderboard_queue.count == 1
    work()
    assert builds == [campaign.dataset_id]
    assert leaderboard_queue.count == 0


def test_a_change_during_a_build_makes_exactly_one_more(campaign, leaderboard_queue, builds, monkeypatch):
    dataset_id = campaign.dataset_id
    original = jobs.build_snapshots

    def changed_meanwhile(dataset, asked=()):
        built = original(dataset, asked)
        if len(builds) == 1:
            for _ in range(5):  # several changes committed while the first build runs
                jobs.schedule_rebuild(dataset_id)
        return built

    monkeypatch.setattr(jobs, "build_snapshots", changed_meanwhile)
    jobs.schedule_rebuild(dataset_id)
    jobs.schedule_rebuild(dataset_id)
    assert leaderboard_queue.count == 1
    work()
    assert builds == [dataset_id, dataset_id]
    assert leaderboard_queue.count == 0


def test_each_dataset_has_its_own_queue_slot(leaderboard_queue):
    first, second = make_dataset(name="one")[0].pk, make_dataset(name="two")[0].pk
    for dataset_id in (first, second, first, second):
        jobs.schedule_rebuild(dataset_id)
    assert leaderboard_queue.count == 2
