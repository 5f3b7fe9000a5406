"""The leaderboard websocket: told when a build lands (what it changed, as of when), not on each
save; closed to those who may not read the leaderboard."""

import django_rq
import pytest
from asgiref.sync import async_to_sync
from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from rq import SimpleWorker

from annotation.models import Assignment
from annotation.services.campaigns import create_campaign
from annotation.services.judgements import save_judgements
from genres_site.routing import websocket_urlpatterns
from leaderboard.jobs import QUEUE, build_snapshots
from leaderboard.models import Snapshot
from scoring.models.runs import RunChunk, ScoringRun
from tests.annotation.campaign_factories import make_annotators, make_campaign
from tests.factories import make_dataset
from tests.leaderboard.leaderboard_fixtures import FINGERPRINT, PROVENANCE

# The consumer reads the database from another thread, and builds are queued on commit.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres_relevant]
application = AuthMiddlewareStack(URLRouter(websocket_urlpatterns))


@pytest.fixture
def campaign():
    campaign, _annotators = make_campaign(texts=2, annotators=1, overlap_share=0.0)
    build_snapshots(campaign.dataset)
    return campaign


def communicator(dataset, user):
    connection = WebsocketCommunicator(application, f"/ws/leaderboard/{dataset.name}/")
    connection.scope["user"] = user
    return connection


def save_one(campaign):
    assignment = Assignment.objects.filter(item__campaign=campaign).first()
    save_judgements(assignment, {"ts": "left", "us": "tie"}, expected_version=assignment.version, seconds=3)


def finish_run(dataset):
    run = ScoringRun.objects.create(
        dataset=dataset, metrics=["us"], score_settings={}, status=ScoringRun.Status.RUNNING,
        provenance=PROVENANCE, fingerprint=FINGERPRINT,
    )  # fmt: skip
    RunChunk.objects.create(run=run, index=0, text_ids=[], status=RunChunk.Status.DONE)
    assert run.finish_if_complete()


@database_sync_to_async
def run_leaderboard_worker():
    django_rq.get_worker(QUEUE, worker_class=SimpleWorker).work(burst=True)


def as_of(dataset):
    return Snapshot.objects.get(dataset=dataset).built_at.isoformat()


def test_saved_judgements_reach_the_page_once_built(campaign, admin_user):
    async def scenario():
        connection = communicator(campaign.dataset, admin_user)
        assert (await connection.connect())[0]
        await database_sync_to_async(save_one)(campaign)
        # Saving only schedules the build: nothing new to show yet.
        assert await connection.receive_nothing(timeout=0.3)
        await run_leaderboard_worker()
        built = await connection.receive_json_from(timeout=5)
        assert built == {"changes": ["judgements"], "as_of": await database_sync_to_async(as_of)(campaign.dataset)}
        # Two judgements saved, one build, one message.
        assert await connection.receive_nothing(timeout=0.3)
        await connection.disconnect()

    async_to_sync(scenario)()


def test_a_finished_run_reaches_the_page_once_built(campaign, admin_user):
    async def scenario():
        connection = communicator(campaign.dataset, admin_user)
        assert (await connection.connect())[0]
        await database_sync_to_async(finish_run)(campaign.dataset)
        await run_leaderboard_worker()
        assert (await connection.receive_json_from(timeout=5))["changes"] == ["scores"]
        await connection.disconnect()

    async_to_sync(scenario)()


def test_other_datasets_stay_quiet(campaign, admin_user):
    dataset, systems = make_dataset(name="other", texts=2, systems=("delta", "epsilon"))
    other_campaign = create_campaign(
        name="other study", dataset=dataset, systems=systems, annotators=make_annotators(1, "other"), seed=1,
        overlap_share=0.0, sample_size=2,
    ).campaign  # fmt: skip

    async def scenario():
        connection = communicator(campaign.dataset, admin_user)
        assert (await connection.connect())[0]
        await database_sync_to_async(save_one)(other_campaign)
        await run_leaderboard_worker()
        assert await connection.receive_nothing(timeout=0.5)
        await connection.disconnect()

    async_to_sync(scenario)()


def test_an_annotator_of_the_open_campaign_is_refused(campaign):
    annotator = campaign.annotators.first()

    async def scenario():
        connection = communicator(campaign.dataset, annotator)
        connected, code = await connection.connect()
        await connection.disconnect()
        assert not connected
        assert code == 4403

    async_to_sync(scenario)()


@pytest.mark.parametrize("public", [False, True])
def test_anonymous_visitors_only_when_public(campaign, settings, public):
    settings.GENRES_PUBLIC_LEADERBOARD = public

    async def scenario():
        connection = communicator(campaign.dataset, AnonymousUser())
        connected, _ = await connection.connect()
        await connection.disconnect()
        assert connected is public

    async_to_sync(scenario)()
