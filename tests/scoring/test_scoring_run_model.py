"""ScoringRun and RunChunk: creation and chunking, who may commit a chunk, finishing once, current scores."""

import pytest

from scoring.genres.scorer import ScoreSettings
from scoring.imports import import_outputs
from scoring.jobs import run_in_process
from scoring.models import System
from scoring.models.runs import RunChunk, RunRefused, ScoringRun, latest_system_scores
from scoring.models.scores import SystemScore, TextScore
from tests.scoring.run_fixtures import ECHO_OUTPUTS, echo, jsonl

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


def create(dataset, metrics=("us",), chunk_texts=2, **settings):
    return ScoringRun.create(dataset, [echo()], metrics, ScoreSettings(**settings), chunk_texts=chunk_texts)


def test_a_run_is_cut_into_chunks_of_texts_in_dataset_order(dataset):
    run = create(dataset, metrics=["prf", "us"], chunk_texts=2)
    texts = list(dataset.texts.order_by("position").values_list("pk", flat=True))
    assert [chunk.text_ids for chunk in run.chunks.all()] == [texts[:2], texts[2:]]
    assert set(run.chunks.values_list("status", flat=True)) == {"pending"}
    assert run.status == "queued" and run.metrics == ["us", "prf"]  # scorer order
    # The topic count is resolved when the run is made: it is part of the provenance.
    assert run.score_settings["lda_topics"] == 2 and run.settings_object().lda_topics == 2


@pytest.mark.parametrize(
    "systems, metrics, chunk_texts, message",
    [
        ("echo", [], 50, "choose at least one metric"),
        ("echo", ["us", "bleu"], 50, "unknown metric(s) bleu"),
        ("none", ["us"], 50, "choose at least one system"),
        ("stranger", ["us"], 50, 'no outputs on dataset "tiny" for system(s) Stranger'),
        ("echo", ["us"], 0, "a chunk needs at least one text"),
    ],
)
def test_runs_that_cannot_work_are_refused(dataset, systems, metrics, chunk_texts, message):
    chosen = {"echo": [echo()], "none": [], "stranger": [System.objects.create(name="Stranger")]}[systems]
    with pytest.raises(RunRefused) as refusal:
        ScoringRun.create(dataset, chosen, metrics, ScoreSettings(), chunk_texts=chunk_texts)
    assert message in str(refusal.value)
    assert not ScoringRun.objects.exists() and not RunChunk.objects.exists()


def started(run):
    run.start()
    run.record_provenance({"embedder": "hashing"}, "a" * 64)
    return run


def test_only_the_job_holding_a_chunk_may_run_and_commit_it(dataset):
    run = started(create(dataset))
    chunk = run.chunks.first()
    chunk.hand_to("job-1")
    assert RunChunk.claim(chunk.pk, "job-2") is None  # not its chunk
    first = RunChunk.claim(chunk.pk, "job-1")
    assert first.status == "running" and first.attempts == 1
    assert RunChunk.claim(chunk.pk, "job-1") is None  # claimed once
    # The worker of job-1 is presumed dead; the chunk goes to job-2, which finishes it.
    chunk.hand_to("job-2")
    second = RunChunk.claim(chunk.pk, "job-2")
    assert second.attempts == 2
    assert second.complete([], {"requests": 3}) is True
    # job-1 was alive after all: its late commit is refused and changes nothing.
    assert first.complete([], {"requests": 99}) is False
    chunk.refresh_from_db()
    assert (chunk.status, chunk.requests, chunk.job_id) == ("done", 3, "job-2")
    chunk.hand_to("job-3")  # a finished chunk is never handed out again
    chunk.refresh_from_db()
    assert (chunk.status, chunk.job_id) == ("done", "job-2")


def test_a_run_finishes_once_when_its_last_chunk_is_done(dataset):
    run = started(create(dataset))
    first, last = run.chunks.all()
    for chunk in (first, last):
        chunk.hand_to(f"job-{chunk.index}")
        RunChunk.claim(chunk.pk, chunk.job_id)
    first.complete([], {})
    assert run.finish_if_complete() is False and run.status == "running"
    last.complete([], {})
    assert run.finish_if_complete() is True and run.status == "done" and run.finished_at
    assert run.finish_if_complete() is False


def test_progress_state_counts_committed_chunks(dataset):
    run = started(create(dataset))
    chunk = run.chunks.first()
    chunk.hand_to("job")
    RunChunk.claim(chunk.pk, "job").complete(
        [], {"requests": 4, "cache_hits": 2, "prompt_tokens": 100, "completion_tokens": 5, "cost_usd": 0.25}
    )
    state = run.progress_state()
    counted = ("chunks_done", "chunks_total", "percent", "requests", "cache_hits", "tokens")
    assert [state[key] for key in counted] == [1, 2, 50, 4, 2, 105]
    assert state["cost_usd"] == 0.25 and state["active"] and state["status"] == "running"


def test_a_change_of_settings_in_mid_run_is_refused(dataset):
    run = started(create(dataset))
    with pytest.raises(RuntimeError, match="start a new run instead"):
        run.record_provenance({"embedder": "minilm"}, "b" * 64)


def test_scores_of_an_output_uploaded_again_are_no_longer_current(dataset):
    run = run_in_process(create(dataset, metrics=["us"]))
    assert TextScore.objects.current().filter(run=run).count() == 3
    [row] = latest_system_scores(dataset, run.fingerprint)
    assert row.is_current and row.values["us"] == pytest.approx(1 / 3)
    changed = [dict(ECHO_OUTPUTS[0], triples=[["Marie Curie", "born in", "Poland"]])]
    import_outputs(jsonl(changed), file_name="again.jsonl", dataset="tiny", system_name="Echo")
    current = TextScore.objects.current().filter(run=run)
    assert current.count() == 2 and not current.filter(output__text__external_id="t1").exists()
    [row] = latest_system_scores(dataset, run.fingerprint)
    assert not row.is_current
    # Running again makes the scores current, under the same settings fingerprint.
    again = run_in_process(create(dataset, metrics=["us"]))
    assert again.fingerprint == run.fingerprint
    [row] = latest_system_scores(dataset, run.fingerprint)
    assert row.is_current and row.run == again
    assert SystemScore.objects.count() == 2


def test_different_settings_never_share_stored_scores(dataset):
    default = run_in_process(create(dataset, metrics=["us"]))
    strict = run_in_process(create(dataset, metrics=["us"], threshold=0.99))
    assert default.fingerprint != strict.fingerprint
    assert TextScore.objects.filter(metric="us").count() == 6
    assert latest_system_scores(dataset, default.fingerprint)[0].run == default
    assert latest_system_scores(dataset, strict.fingerprint)[0].run == strict


def test_the_heuristic_judge_is_recorded_as_such(dataset):
    run = run_in_process(create(dataset, metrics=["fs"]))
    assert run.heuristic_judge and run.provenance["judge_model"] == "content-word-overlap"
