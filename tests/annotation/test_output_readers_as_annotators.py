"""Issue 23, finding 2: a user who may read outputs must not annotate, and an annotator may not read them.

A researcher (the view-output permission) made annotator saw an item, opened the text's page and
read which system wrote each side. Now no one who may read outputs or leaderboards by their role
is offered or accepted as an annotator, and an annotator of an open campaign, whatever their
role, gets 403 from the pages that name the systems they judge, as from the leaderboards.
"""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from annotation.forms import CampaignCreateForm
from annotation.models import CampaignAnnotator
from annotation.services.campaigns import add_annotator, toggle_open
from annotation.services.errors import CampaignError
from scoring.genres.scorer import ScoreSettings
from scoring.models import Output
from scoring.models.runs import ScoringRun
from tests.annotation.annotator_fixtures import make_annotation_setup, make_user
from tests.factories import make_dataset

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


@pytest.fixture
def researcher():
    user = make_user("researcher")
    user.user_permissions.add(Permission.objects.get(content_type__app_label="scoring", codename="view_output"))
    return user


@pytest.mark.parametrize("flags", [{"is_staff": True}, {"is_superuser": True}, {}])
def test_the_campaign_form_offers_no_one_who_may_read_outputs(researcher, flags):
    reader = make_user("reader", **flags) if flags else researcher
    make_user("blind")
    offered = [user.username for user in CampaignCreateForm().fields["annotators"].queryset]
    assert offered == ["blind"]
    assert reader.username not in offered


def test_creating_a_campaign_with_a_researcher_is_refused_by_name(researcher):
    with pytest.raises(CampaignError, match="researcher may read system outputs"):
        make_annotation_setup([make_user("blind"), researcher])


def test_adding_a_researcher_is_refused_by_name(researcher):
    setup = make_annotation_setup([make_user("blind")])
    with pytest.raises(CampaignError, match="researcher may read system outputs"):
        add_annotator(setup.campaign, researcher)
    assert not CampaignAnnotator.objects.filter(annotator=researcher).exists()


@pytest.fixture
def researcher_annotating(researcher):
    """A researcher already annotating an open campaign, as data from before the rule holds it."""
    setup = make_annotation_setup([make_user("blind")])
    CampaignAnnotator.objects.create(campaign=setup.campaign, annotator=researcher)
    return setup


def test_an_annotator_who_may_read_outputs_gets_403_on_the_pages_naming_the_systems(
    client, researcher, researcher_annotating
):
    client.force_login(researcher)
    dataset = researcher_annotating.campaign.dataset
    text = Output.objects.filter(text__dataset=dataset).first().text
    text_page = reverse("scoring:text", args=[dataset.name, text.pk])
    dataset_page = reverse("scoring:dataset", args=[dataset.name])
    assert client.get(text_page).status_code == 403
    assert client.get(dataset_page).status_code == 403
    assert client.get(reverse("leaderboard:dataset", args=[dataset.name])).status_code == 403

    run = ScoringRun.create(dataset, researcher_annotating.systems, ("us",), ScoreSettings(), chunk_texts=2)
    run_pages = [reverse("scoring:run", args=[run.pk]), reverse("scoring:run_progress", args=[run.pk])]
    assert [client.get(url).status_code for url in run_pages] == [403, 403]

    toggle_open(researcher_annotating.campaign)  # closed: the systems need not stay blind any more
    assert client.get(text_page).status_code == 200
    assert client.get(dataset_page).status_code == 200
    assert [client.get(url).status_code for url in run_pages] == [200, 200]


def test_the_form_posted_with_a_researcher_names_them(admin_client, researcher):
    dataset, systems = make_dataset("Posted", texts=2, systems=("one", "two"))
    response = admin_client.post(
        reverse("annotation:campaign_create"),
        {
            "name": "posted",
            "dataset": dataset.pk,
            "systems": [system.pk for system in systems],
            "sample_size": 2,
            "seed": 1,
            "annotators": [researcher.pk],
            "overlap_percent": 0,
        },
    )
    assert response.status_code == 200
    assert "researcher may read system outputs" in response.content.decode()
