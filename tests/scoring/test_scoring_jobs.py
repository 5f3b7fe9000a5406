"""A scoring run through RQ (an in-process worker): chunks, stored scores, aggregates, provenance, cache."""

import pytest

from scoring.genres.judges.heuristic import HeuristicJudge
from scoring.genres.scorer import ScoreSettings
from scoring.jobs import enqueue_run
from scoring.models import System
from scoring.models.cache import CachedResponse
from scoring.models.runs import ScoringRun
from scoring.models.scores import SystemScore, TextScore
from tests.scoring.run_fixtures import ECHO_EXPECTED, GROUND_TRUTH_EXPECTED, echo, tiny_dataset, work

# transaction=True: jobs are enqueued when the transaction that asks for them commits.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres_relevant]


def start(dataset, systems, metrics=("ts", "us", "fs", "gs", "cs", "prf"), **options):
    run = ScoringRun.create(dataset, systems, metrics, ScoreSettings(), chunk_texts=2, **options)
    enqueue_run(run)
    work()
    run.refresh_from_db()
    return run


def test_a_run_scores_every_chunk_and_stores_aggregates_with_provenance():
    dataset = tiny_dataset()
    run = start(dataset, [System.ground_truth(), echo()])
    assert run.status == ScoringRun.Status.DONE
    assert run.started_at <= run.finished_at and run.error == ""
    assert list(run.chunks.values_list("status", "attempts")) == [("done", 1), ("done", 1)]
    assert run.provenance == {
        "embedder": "hashing",
        "embedder_model": "hashing-w1c3-d512-t0.5-s13",
        "threshold": 0.604,
        "embedding_mode": "sum",
        "judge": "heuristic",
        "judge_model": HeuristicJudge.model,
        "prompt_version": HeuristicJudge.prompt_version,
        "heuristic_judge": True,
        "lda_topics": 2,
        "lda_seed": 13,
        "relaxed_threshold": 0.5,
        "rules": "app",
    }
    assert len(run.fingerprint) == 64 and run.heuristic_judge
    scores = {score.system.name: score.values for score in SystemScore.objects.filter(run=run)}
    for system, expected in (("Echo", ECHO_EXPECTED), ("Ground truth", GROUND_TRUTH_EXPECTED)):
        for name, value in expected.items():
            assert scores[system][name] == pytest.approx(value), (system, name)
    assert 0 < scores["Echo"]["ts"] <= 2 / 3  # the empty second text scores 0
    # Five stored metrics per output: 3 Echo outputs and 2 Ground truth outputs.
    assert TextScore.objects.filter(run=run).count() == 5 * 6
    assert run.progress_state()["percent"] == 100


def test_per_triple_verdicts_are_stored():
    dataset = tiny_dataset()
    run = start(dataset, [echo()], metrics=["fs", "gs"])
    third = TextScore.objects.get(run=run, metric="gs", output__text__external_id="t3")
    assert [detail["n"] for detail in third.details] == [0, 0]
    fs = TextScore.objects.get(run=run, metric="fs", output__text__external_id="t1")
    assert fs.values == {"fs": 1.0} and fs.details[0]["supported"] is True
    assert "content words found" in fs.details[0]["reply"]


def test_metrics_not_asked_for_are_null_in_the_aggregates():
    dataset = tiny_dataset()
    run = start(dataset, [echo()], metrics=["us"])
    values = SystemScore.objects.get(run=run).values
    assert values["us"] == pytest.approx(1 / 3)
    assert values["ts"] is values["fs"] is values["precision"] is None
    assert values["triples_per_text"] == 1.0


def test_lda_is_trained_once_per_run_and_reused_by_the_next(tmp_path):
    dataset = tiny_dataset()
    first = start(dataset, [echo()], metrics=["ts"])
    models = list((tmp_path / "lda").iterdir())
    assert len(models) == 1
    second = start(dataset, [echo()], metrics=["ts"])
    assert list((tmp_path / "lda").iterdir()) == models
    first_ts = SystemScore.objects.get(run=first).values["ts"]
    assert SystemScore.objects.get(run=second).values["ts"] == first_ts


def test_local_embeddings_stay_in_the_process_and_a_second_run_gives_the_same_scores():
    # The OpenAI embedder's vectors go through the shared cache: test_openai_integration.
    dataset = tiny_dataset()
    first = start(dataset, [echo()], metrics=["us", "cs"])
    assert not CachedResponse.objects.exists() and first.progress_state()["cache_hits"] == 0
    first_values = first.system_scores.get().values
    second = start(dataset, [echo()], metrics=["us", "cs"])
    assert not CachedResponse.objects.exists()
    assert second.fingerprint == first.fingerprint
    assert second.system_scores.get().values == first_values


def test_a_later_run_with_the_same_settings_replaces_the_stored_scores():
    dataset = tiny_dataset()
    first = start(dataset, [echo()], metrics=["fs"])
    second = start(dataset, [echo()], metrics=["fs"])
    assert TextScore.objects.filter(metric="fs").count() == 3
    assert set(TextScore.objects.values_list("run", flat=True)) == {second.pk}
    assert first.system_scores.get().values == second.system_scores.get().values
