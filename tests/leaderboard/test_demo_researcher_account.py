"""The demo's researcher: reads datasets, outputs and leaderboards; cannot upload, start runs,
run campaigns or annotate (in no campaign, so the annotator's start page has nothing for them)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.models import Assignment
from scoring.models import Dataset

pytestmark = pytest.mark.django_db


@pytest.fixture
def researcher(client, unscored_demo):
    client.force_login(get_user_model().objects.get(username="researcher"))
    return client


def test_the_researcher_reads_outputs_and_leaderboards(researcher):
    dataset = Dataset.objects.order_by("name").first()
    assert researcher.get(reverse("scoring:home")).status_code == 200
    assert researcher.get(reverse("scoring:dataset", args=[dataset.name])).status_code == 200
    text = dataset.texts.order_by("position").first()
    assert researcher.get(reverse("scoring:text", args=[dataset.name, text.pk])).status_code == 200
    # The leaderboard answers (built or being built), never refuses the researcher.
    assert researcher.get(reverse("leaderboard:dataset", args=[dataset.name])).status_code == 200


def test_the_researcher_cannot_upload_score_or_run_campaigns(researcher):
    dataset = Dataset.objects.order_by("name").first()
    assert researcher.get(reverse("scoring:upload")).status_code == 403
    assert researcher.get(reverse("scoring:run_new", args=[dataset.name])).status_code == 403
    assert researcher.get(reverse("annotation:campaign_create")).status_code in (302, 403)


def test_the_researcher_has_nothing_to_annotate(researcher):
    user = get_user_model().objects.get(username="researcher")
    assert not Assignment.objects.filter(annotator=user).exists()
    assert "Continue" not in researcher.get(reverse("annotation:annotate_home")).content.decode()
