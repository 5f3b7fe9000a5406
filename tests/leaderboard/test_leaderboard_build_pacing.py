"""Builds are paced (a pause as long as the last build's CPU time, within bounds) and reuse the GENRES-side parts
(scores and their figures) while the scores are unchanged, so a new judgement costs only the human side."""

import json

import pytest

from annotation.models import Judgement
from leaderboard import contents, jobs, metrics
from leaderboard.models import Snapshot
from tests.leaderboard.leaderboard_fixtures import ranked_dataset

pytestmark = pytest.mark.postgres_relevant


def test_no_pause_before_the_first_build_or_after_a_quiet_spell():
    assert jobs.pause_before_build(None, now=100.0) == 0
    assert jobs.pause_before_build((50.0, 1.0), now=100.0) == 0


def test_the_pause_lasts_as_long_as_the_last_build_used_the_cpu():
    assert jobs.pause_before_build((100.0, 1.5), now=100.3) == pytest.approx(1.2)


def test_the_pause_after_a_cheap_build_is_at_least_the_floor():
    assert jobs.pause_before_build((100.0, 0.2), now=100.3) == pytest.approx(jobs.MIN_PAUSE - 0.3)


def test_the_pause_is_bounded_so_a_change_still_shows_within_seconds():
    assert jobs.pause_before_build((100.0, 30.0), now=100.0) == jobs.MAX_PAUSE


def test_a_build_records_when_it_ended_and_its_cpu_time(db, monkeypatch):
    dataset = ranked_dataset()
    slept = []
    monkeypatch.setattr(jobs.time, "sleep", slept.append)
    jobs.build_leaderboards(dataset.pk)
    _finished_at, cpu_seconds = json.loads(jobs.queue().connection.get(jobs._last_build_key(dataset.pk)))
    assert cpu_seconds > 0
    jobs.build_leaderboards(dataset.pk)  # right after: waits its turn
    assert len(slept) == 1 and 0 < slept[0] <= min(jobs.MAX_PAUSE, max(jobs.MIN_PAUSE, cpu_seconds))


@pytest.mark.django_db
def test_a_new_judgement_reuses_the_scores_and_their_figures(monkeypatch):
    dataset = ranked_dataset()
    monkeypatch.setattr(jobs.time, "sleep", lambda seconds: None)
    read, drawn = [], []
    metric_scores, figures_of_scores = metrics.metric_scores, contents.figures_of_scores
    monkeypatch.setattr(metrics, "metric_scores", lambda *args: read.append(1) or metric_scores(*args))
    monkeypatch.setattr(contents, "figures_of_scores", lambda *args: drawn.append(1) or figures_of_scores(*args))
    jobs.build_leaderboards(dataset.pk)
    first = Snapshot.objects.get(dataset=dataset)
    Judgement.objects.filter(assignment__item__campaign__dataset=dataset).first().delete()
    jobs.build_leaderboards(dataset.pk)
    second = Snapshot.objects.get(dataset=dataset)
    assert read == [1] and drawn == [1]
    assert second.data["scores"] == first.data["scores"]
    assert json.loads(second.plots)["profile"] == json.loads(first.plots)["profile"]
    assert second.data["human"]["judgements"] == first.data["human"]["judgements"] - 1
