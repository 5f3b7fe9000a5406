"""The build job stores every variant asked for as a snapshot, each part built once per job; pages
serve the last build with its as-of time and build nothing themselves."""

import json

import pytest
from django.urls import reverse

from annotation.models import Judgement
from leaderboard import contents, human, jobs
from leaderboard.models import Snapshot

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


def test_the_job_builds_the_default_and_the_variants_asked_for(dataset, monkeypatch):
    human_sides = []
    monkeypatch.setattr(human, "human_side", lambda data, built=human.human_side: human_sides.append(1) or built(data))
    jobs.ask_for_variant(dataset.pk, "", 0.5)
    jobs.ask_for_variant(dataset.pk, "unknown-setting", 0.2)
    jobs.build_leaderboards(dataset.pk)
    snapshots = {(snapshot.margin, snapshot.newest): snapshot for snapshot in Snapshot.objects.filter(dataset=dataset)}
    assert sorted(snapshots) == [(0.2, True), (0.5, True)]
    assert human_sides == [1]  # shared by both variants
    default = snapshots[0.2, True]
    assert default.summary["judgements"] == 60 and default.summary["runs"] == 1
    assert snapshots[0.5, True].summary is None
    assert json.loads(default.tables)["as_of"] == default.built_at.isoformat()
    # The unknown setting is forgotten, not asked for again.
    jobs.build_leaderboards(dataset.pk)
    assert Snapshot.objects.filter(dataset=dataset).count() == 2


def test_pages_serve_the_snapshot_with_its_as_of_and_build_nothing(admin_client, dataset, monkeypatch):
    jobs.build_leaderboards(dataset.pk)
    snapshot = Snapshot.objects.get(dataset=dataset)
    Judgement.objects.filter(aspect="ts").update(label="tie")  # not yet rebuilt
    monkeypatch.setattr(contents.Builder, "__init__", lambda *args: pytest.fail("built in a request"))

    page = admin_client.get(reverse("leaderboard:dataset", args=[dataset.name])).content.decode()
    assert f'<time id="as-of" datetime="{snapshot.built_at.isoformat()}">' in page
    assert "60 judgements from 1 campaign" in page
    data = admin_client.get(reverse("leaderboard:api_dataset", args=[dataset.name])).json()
    assert data["as_of"] == snapshot.built_at.isoformat()
    sections = admin_client.get(reverse("leaderboard:sections", args=[dataset.name])).json()
    assert sections["as_of"] == snapshot.built_at.isoformat()
    assert sorted(sections["plots"]) == [
        "aspects", "human_significance", "profile", "ratings", "replicates", "scatter", "significance", "win_rates",
    ]  # fmt: skip


def test_a_rebuild_replaces_the_snapshot(admin_client, dataset):
    jobs.build_leaderboards(dataset.pk)
    first = Snapshot.objects.get(dataset=dataset)
    Judgement.objects.filter(assignment__item__campaign__dataset=dataset).first().delete()
    jobs.build_leaderboards(dataset.pk)
    second = Snapshot.objects.get(dataset=dataset)
    assert second.built_at > first.built_at
    assert second.judgement_version != first.judgement_version and second.scores_version == first.scores_version
    page = admin_client.get(reverse("leaderboard:dataset", args=[dataset.name])).content.decode()
    assert "59 judgements from 1 campaign" in page


def test_new_judgements_keep_the_metric_battle_ratings(dataset, monkeypatch):
    rated = []
    rate = contents.rate_metric_battles
    monkeypatch.setattr(contents, "rate_metric_battles", lambda *args: rated.append(1) or rate(*args))
    jobs.build_leaderboards(dataset.pk)
    Judgement.objects.filter(assignment__item__campaign__dataset=dataset).first().delete()
    jobs.build_leaderboards(dataset.pk)
    assert rated == [1]
    assert Snapshot.objects.get(dataset=dataset).data["metric_ratings"]["elo"]["ts"]["alpha"]["rank"] == [1, 1]
