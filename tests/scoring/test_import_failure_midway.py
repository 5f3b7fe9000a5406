"""An import that fails after some of its batches committed leaves nothing behind; one whose process
died mid-way is deleted and started again by the heal pass (scoring.import_batches, import_jobs)."""

import json
from datetime import timedelta

import django_rq
import pytest
from django.db import IntegrityError, OperationalError
from django.utils import timezone
from rq import SimpleWorker
from rq.job import Job

from scoring import import_batches
from scoring.import_jobs import MAX_IMPORT_ATTEMPTS, QUEUE, heal_imports, job_id, queue_import, upload_state
from scoring.imports import ImportRefused, import_dataset, import_outputs
from scoring.models import Dataset, Output, System, Text, Upload
from tests.scoring.import_fixtures import as_file, make_people_dataset, snapshot

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

TEXTS = [f"Sentence {number}: the engine drives the pump." for number in range(9)]
DATASET_FILE = json.dumps({text: [["engine", "drives", "pump"]] for text in TEXTS}).encode()


@pytest.fixture(autouse=True)
def small_batches(monkeypatch):
    monkeypatch.setattr(import_batches, "BATCH_ROWS", 2)
    monkeypatch.setattr(import_batches, "PAUSE_SECONDS", 0)


@pytest.fixture
def empty_queue():
    queue = django_rq.get_queue(QUEUE)
    queue.empty()
    yield queue
    queue.empty()


def failing_batch(monkeypatch, number, error):
    """Make the ``number``-th batch's insert raise ``error``, after the earlier batches committed;
    the tables the batches went to, in order."""
    original, tables = import_batches.insert, []

    def insert(statement, rows):
        tables.append(statement.split()[2].strip('"'))
        if len(tables) == number:
            raise error
        return original(statement, rows)

    monkeypatch.setattr(import_batches, "insert", insert)
    return tables


def nothing_partial():
    return not Dataset.with_importing.filter(importing_at__isnull=False).exists() and not (
        System.with_importing.filter(importing_at__isnull=False).exists()
    )


def test_a_refused_text_batch_removes_the_batches_written_and_records_the_reason(monkeypatch):
    before = snapshot()
    tables = failing_batch(monkeypatch, 3, IntegrityError("UNIQUE constraint failed: text"))

    with pytest.raises(ImportRefused) as refusal:
        import_dataset(as_file(DATASET_FILE), file_name="engine.json", name="Engine")

    assert tables == ["scoring_text"] * 3  # two batches had committed
    assert "The database refused the import" in str(refusal.value) and "UNIQUE constraint failed" in str(refusal.value)
    assert snapshot() == before and nothing_partial()
    assert not Text.objects.exists() and not Dataset.with_importing.exists()
    failed = Upload.objects.get()
    assert failed.outcome == Upload.Outcome.FAILED and failed.message == str(refusal.value)


def test_a_failure_among_the_gold_outputs_fails_the_one_upload_row_and_keeps_nothing(monkeypatch):
    tables = failing_batch(monkeypatch, 7, OperationalError("disk I/O error"))

    with pytest.raises(OperationalError):
        import_dataset(as_file(DATASET_FILE), file_name="engine.json", name="Engine")

    assert tables == ["scoring_text"] * 5 + ["scoring_output"] * 2

    assert nothing_partial() and not Dataset.with_importing.exists()
    assert not Text.objects.exists() and not Output.objects.exists()
    # The upload was saved as running before the gold outputs, which refer to it: that row, with
    # no job or import behind it, is what the next status read turns to failed.
    upload = Upload.objects.get()
    assert upload_state(upload)["outcome"] == Upload.Outcome.FAILED
    assert "its job is gone" in Upload.objects.get().message


def test_a_new_system_whose_outputs_fail_mid_way_is_removed_with_them(monkeypatch):
    people = make_people_dataset()
    before = snapshot()
    outputs = json.dumps({text.content: [["x", "y", "z"]] for text in people.texts.all()}).encode()
    failing_batch(monkeypatch, 2, IntegrityError("FOREIGN KEY constraint failed"))

    with pytest.raises(ImportRefused):
        import_outputs(as_file(outputs), file_name="o.json", dataset=people, system_name="Broken")

    assert snapshot() == before and nothing_partial()
    assert not System.with_importing.filter(name="Broken").exists()
    assert Upload.objects.filter(system_name="Broken").get().outcome == Upload.Outcome.FAILED


@pytest.fixture
def abandoned_import(django_capture_on_commit_callbacks):
    """Makes the state a worker killed mid-way leaves: a running upload with its file kept, a dataset
    marked importing whose last batch is long past, some texts and gold outputs written."""

    def make(queue_it=True):
        with django_capture_on_commit_callbacks(execute=True):  # jobs are enqueued on commit
            upload = queue_import(
                Upload.Kind.DATASET, as_file(DATASET_FILE), file_name="engine.json", user=None, name="Engine"
            )
        return abandon(upload, queue_it)

    return make


def abandon(upload, queue_it):
    if not queue_it:
        Job.fetch(job_id(upload), connection=django_rq.get_connection(QUEUE)).delete()
    Upload.objects.filter(pk=upload.pk).update(outcome=Upload.Outcome.RUNNING)
    dataset = Dataset.with_importing.create(name="Engine", importing_at=timezone.now() - timedelta(minutes=10))
    texts = Text.objects.bulk_create(
        Text(dataset=dataset, position=position, content=text, content_sha256=str(position))
        for position, text in enumerate(TEXTS[:4])
    )
    Output.objects.bulk_create(Output(system=System.ground_truth(), text=text) for text in texts)
    return upload


def test_the_heal_pass_deletes_an_abandoned_import_and_starts_it_again_from_the_kept_file(
    empty_queue, abandoned_import, django_capture_on_commit_callbacks
):
    upload = abandoned_import()

    with django_capture_on_commit_callbacks(execute=True):  # the heal pass runs outside any transaction
        assert heal_imports() == 1

    assert nothing_partial() and not Text.objects.exists()
    upload.refresh_from_db()
    assert (upload.outcome, upload.message) == (Upload.Outcome.QUEUED, "Queued again for import.")
    assert empty_queue.fetch_job(job_id(upload)).meta["attempts"] == 2
    SimpleWorker([empty_queue], connection=empty_queue.connection).work(burst=True)
    upload.refresh_from_db()
    assert upload.outcome == Upload.Outcome.IMPORTED
    assert Dataset.objects.get(name="Engine").texts.count() == len(TEXTS)
    assert not upload.chunks.exists()


def test_an_abandoned_import_whose_job_is_lost_fails_its_upload(empty_queue, abandoned_import):
    upload = abandoned_import(queue_it=False)

    assert heal_imports() == 0

    upload.refresh_from_db()
    assert upload.outcome == Upload.Outcome.FAILED
    assert upload.message == (
        "The import stopped mid-way (its job is lost); nothing was imported. Upload the file again."
    )
    assert nothing_partial() and not Text.objects.exists() and not upload.chunks.exists()


def test_an_import_killed_at_every_attempt_stops_being_restarted(empty_queue, abandoned_import):
    upload = abandoned_import()
    job = empty_queue.fetch_job(job_id(upload))
    job.meta["attempts"] = MAX_IMPORT_ATTEMPTS
    job.save_meta()

    assert heal_imports() == 0

    upload.refresh_from_db()
    assert upload.outcome == Upload.Outcome.FAILED
    assert f"it was stopped {MAX_IMPORT_ATTEMPTS} times" in upload.message


def test_a_live_import_is_left_alone_and_an_abandoned_one_gives_way_to_a_new_import(empty_queue, abandoned_import):
    Dataset.with_importing.create(name="Live", importing_at=timezone.now())
    abandoned_import(queue_it=False)
    Upload.objects.update(outcome=Upload.Outcome.FAILED)  # its status was read: failed, job gone

    summary = import_dataset(as_file(DATASET_FILE), file_name="again.json", name="Engine")

    assert summary.texts == len(TEXTS) and Dataset.objects.get(name="Engine").texts.count() == len(TEXTS)
    assert heal_imports() == 0
    assert Dataset.with_importing.get(name="Live").importing_at is not None
