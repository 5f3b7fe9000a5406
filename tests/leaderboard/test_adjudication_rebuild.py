"""A resolution, and a campaign's switch to adjudicated labels, rebuild the leaderboard, whose
human ratings then use the resolutions."""

import django_rq
import pytest
from rq import SimpleWorker

from annotation import adjudication
from annotation.models import Campaign
from leaderboard import jobs
from leaderboard.metric_battles import DEFAULT_MARGIN
from leaderboard.models import Snapshot
from tests.annotation.adjudication_fixtures import make_disputed_campaign, make_people

pytestmark = pytest.mark.django_db(transaction=True)


def work():
    django_rq.get_worker(jobs.QUEUE, worker_class=SimpleWorker).work(burst=True)


def win_rates(aspect):
    """The share of points each system took against the other: {0.5} while every battle is a tie."""
    matrix = Snapshot.objects.get(newest=True, margin=DEFAULT_MARGIN).data["human"]["win_rates"][aspect]
    return {rate for row in matrix["rates"] for rate in row if rate is not None}


def test_adjudicated_labels_reach_the_leaderboard(leaderboard_queue):
    annotators, _, staff = make_people()
    campaign = make_disputed_campaign(annotators).campaign
    work()
    # Opposite sides on topical similarity merge into ties.
    assert win_rates("ts") == {0.5}

    for item in campaign.items.all():
        adjudication.resolve(item, "ts", "b", "", staff)
    assert leaderboard_queue.count == 1
    work()
    assert win_rates("ts") == {0.5}  # the campaign still rates the annotators' labels

    adjudication.set_rating_labels(campaign, Campaign.RatingLabels.ADJUDICATED)
    assert leaderboard_queue.count == 1
    work()
    assert win_rates("ts") == {0.0, 1.0}
