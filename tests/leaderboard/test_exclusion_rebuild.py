"""Leaving an annotator out of a campaign's ratings (the quality page) rebuilds the leaderboard,
whose human ratings then leave their judgements out; taking them back in restores them."""

import django_rq
import pytest
from django.contrib.auth import get_user_model
from rq import SimpleWorker

from annotation.services.campaigns import create_campaign
from annotation.services.quality_control import set_exclusion
from leaderboard import jobs
from leaderboard.metric_battles import DEFAULT_MARGIN
from leaderboard.models import Snapshot
from tests.annotation.campaign_factories import make_annotators, make_dataset
from tests.annotation.quality_fixtures import judge_everything, three_triples

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres_relevant]


def work():
    django_rq.get_worker(jobs.QUEUE, worker_class=SimpleWorker).work(burst=True)


def human_elo():
    snapshot = Snapshot.objects.get(newest=True, margin=DEFAULT_MARGIN)
    return {
        aspect: {system: row["rating"] for system, row in board.items()}
        for aspect, board in snapshot.data["human"]["ratings"]["elo"].items()
    }


def test_an_exclusion_rebuilds_the_leaderboard_without_the_annotator(leaderboard_queue):
    dataset, systems = make_dataset(texts=4, outputs=three_triples)
    first, second = make_annotators(2)
    campaign = create_campaign(
        name="qc",
        dataset=dataset,
        systems=systems,
        annotators=[first, second],
        seed=5,
        overlap_share=1.0,
        sample_size=4,
        attention_share=0.2,
    ).campaign
    judge_everything(first, campaign, "left")
    judge_everything(second, campaign, "right")
    work()
    with_both = human_elo()

    staff = get_user_model().objects.create_user("staff", is_staff=True)
    set_exclusion(campaign, second, excluded=True, changed_by=staff)
    assert leaderboard_queue.count == 1
    work()
    without_second = human_elo()
    assert without_second != with_both

    set_exclusion(campaign, second, excluded=False, changed_by=staff)
    work()
    assert human_elo() == with_both
