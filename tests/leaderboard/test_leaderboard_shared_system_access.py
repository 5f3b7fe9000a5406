"""Systems are shared by datasets: an annotator of an open campaign gets a 403 on every leaderboard
route of any dataset that names one of the campaign's systems, not only on the campaign's own."""

import pytest
from asgiref.sync import async_to_sync
from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.urls import reverse

from annotation.models import Campaign, CampaignAnnotator
from annotation.services.campaigns import create_campaign
from genres_site.routing import websocket_urlpatterns
from leaderboard.exports import CSV_TABLES
from tests.annotation.campaign_factories import make_annotators
from tests.factories import make_dataset
from tests.leaderboard.leaderboard_fixtures import build_all, scored_dataset

pytestmark = pytest.mark.django_db


@pytest.fixture
def study():
    """``toy`` scores alpha, beta, gamma; an open campaign on ``other`` judges alpha (shared) and delta."""
    scored_dataset(name="toy")
    other, systems = make_dataset(name="other", texts=2, systems=("alpha", "delta"))
    make_dataset(name="unrelated", texts=2, systems=("epsilon", "zeta"))
    (annotator,) = make_annotators(1, prefix="blind")
    create_campaign(
        name="blind study", dataset=other, systems=systems, annotators=[annotator], seed=1, overlap_share=0.0,
        sample_size=2,
    )  # fmt: skip
    build_all()
    return annotator


def routes(name):
    return {
        "page": reverse("leaderboard:dataset", args=[name]),
        "sections": reverse("leaderboard:sections", args=[name]),
        "json": reverse("leaderboard:api_dataset", args=[name]),
        **{f"{table} csv": reverse("leaderboard:csv", args=[name, table]) for table in CSV_TABLES},
    }


@pytest.mark.parametrize("active", [True, False], ids=["active", "removed"])
def test_every_route_of_a_dataset_sharing_a_system_is_refused(client, study, active):
    CampaignAnnotator.objects.filter(annotator=study).update(active=active)
    client.force_login(study)
    for name in ("toy", "other"):
        for route, address in routes(name).items():
            response = client.get(address)
            assert response.status_code == 403, (name, route)
            assert b"alpha" not in response.content
    for route, address in routes("unrelated").items():
        assert client.get(address).status_code == 200, route


def test_the_index_leaves_them_out_with_their_summaries(client, study):
    client.force_login(study)
    html = client.get(reverse("leaderboard:index")).content.decode()
    assert reverse("leaderboard:dataset", args=["unrelated"]) in html
    for name in ("toy", "other"):
        assert reverse("leaderboard:dataset", args=[name]) not in html
    assert "2 datasets naming the systems of an open campaign you annotate are not listed" in html


def test_staff_and_researchers_are_unaffected(client, admin_client, study, django_user_model):
    client.force_login(django_user_model.objects.create_user("researcher"))
    for reader in (client, admin_client):
        for route, address in routes("toy").items():
            assert reader.get(address).status_code == 200, route


def test_a_closed_campaign_lifts_the_rule(client, study):
    Campaign.objects.update(is_open=False)
    client.force_login(study)
    assert client.get(routes("toy")["page"]).status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_websocket_refuses_them(study, admin_user):
    application = AuthMiddlewareStack(URLRouter(websocket_urlpatterns))

    async def connect(user):
        connection = WebsocketCommunicator(application, "/ws/leaderboard/toy/")
        connection.scope["user"] = user
        connected, code = await connection.connect()
        await connection.disconnect()
        return connected, code

    assert async_to_sync(connect)(study) == (False, 4403)
    assert async_to_sync(connect)(admin_user)[0]
