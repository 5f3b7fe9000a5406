"""A run's scorer (text index, topic model, embedder, judge) is built once per process and reused by its chunks."""

import pytest
from rq import SimpleWorker

from scoring import jobs
from scoring.genres.scorer import ScoreSettings
from scoring.jobs import build_run_scorer_for, enqueue_run, queue, run_chunk, run_in_process, run_scorer
from scoring.models import System
from scoring.models.runs import RunChunk, ScoringRun
from tests.scoring.run_fixtures import echo, tiny_dataset

pytestmark = pytest.mark.django_db


@pytest.fixture
def builds(monkeypatch):
    """Every RunScorer and topic model built from now on, counted; no scorer kept from another test."""
    counted = {"scorers": 0, "topic_models": 0}
    scorer_init, for_texts = jobs.RunScorer.__init__, jobs.TopicModel.for_texts

    def counting_scorer_init(self, run):
        counted["scorers"] += 1
        scorer_init(self, run)

    def counting_for_texts(texts, *args, **kwargs):
        counted["topic_models"] += 1
        return for_texts(texts, *args, **kwargs)

    monkeypatch.setattr(jobs.RunScorer, "__init__", counting_scorer_init)
    monkeypatch.setattr(jobs.TopicModel, "for_texts", counting_for_texts)
    jobs._run_scorer.cache_clear()
    yield counted
    jobs._run_scorer.cache_clear()


def new_run(metrics=("ts", "us", "cs", "prf")):
    return ScoringRun.create(tiny_dataset(), [System.ground_truth(), echo()], metrics, ScoreSettings(), chunk_texts=1)


def test_an_in_process_run_builds_its_scorer_once_for_all_its_chunks(builds):
    run = run_in_process(new_run())
    assert run.status == ScoringRun.Status.DONE and run.chunks.count() == 3
    assert builds == {"scorers": 1, "topic_models": 1}


def test_a_shared_scorer_reports_to_each_chunk_only_what_was_spent_since_the_last_report(builds):
    built = run_scorer(new_run())
    built.usage()
    built.cache.hits += 5  # what one chunk found in the request cache
    assert built.usage()["cache_hits"] == 5
    assert built.usage()["cache_hits"] == 0  # the next chunk found nothing yet


def test_another_run_gets_a_scorer_of_its_own(builds):
    run_in_process(new_run())
    second = ScoringRun.create(ScoringRun.objects.get().dataset, [echo()], ["us"], ScoreSettings(), chunk_texts=1)
    run_in_process(second)
    assert builds["scorers"] == 2


@pytest.mark.django_db(transaction=True)
def test_a_worker_builds_the_scorer_before_its_jobs_and_the_chunks_reuse_it(builds):
    # What HealingWorker does before forking each work horse, and then the chunk jobs themselves.
    run = new_run()
    enqueue_run(run)
    worker = SimpleWorker([queue()], connection=queue().connection)
    worker.work(burst=True, max_jobs=1)  # the preparation: trains the topic model, queues the chunks
    jobs._run_scorer.cache_clear()  # a worker process that did not prepare the run
    before = dict(builds)
    for job in queue().get_jobs():
        build_run_scorer_for(job)
    assert builds["scorers"] == before["scorers"] + 1
    for chunk in run.chunks.all():
        run_chunk(chunk.pk, chunk.job_id)
    assert builds["scorers"] == before["scorers"] + 1
    assert set(RunChunk.objects.filter(run=run).values_list("status", flat=True)) == {"done"}
    queue().empty()


@pytest.mark.django_db(transaction=True)
def test_building_before_a_job_that_is_no_chunk_does_nothing(builds):
    run = new_run()
    enqueue_run(run)
    (job,) = queue().get_jobs()
    build_run_scorer_for(job)
    assert builds["scorers"] == 0
    queue().empty()
