"""Big uploads are imported by an RQ job: the request answers at once with the upload and a URL
to follow; the job imports in one transaction, reports progress, and records the outcome."""

import json

import django_rq
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rq import SimpleWorker

from scoring.import_jobs import ENQUEUE_GRACE, QUEUE
from scoring.imports import import_dataset
from scoring.models import ApiToken, Dataset, Output, Text, Upload, UploadChunk
from tests.scoring.import_fixtures import DATASET_JSONL, as_file, make_people_dataset, snapshot

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

OUTPUTS_JSONL = b'{"id": "t1", "raw": "[[\\"Turing\\", \\"born in\\", \\"London\\"]]"}\n{"id": "t2", "triples": []}\n'


@pytest.fixture(autouse=True)
def jobs_for_every_file(settings):
    """Every file is big enough for a job."""
    settings.GENRES_IMPORT_JOB_BYTES = 1
    queue = django_rq.get_queue(QUEUE)
    queue.empty()
    yield
    queue.empty()


def run_jobs():
    # A worker that runs jobs in this process, so that it sees the test's database.
    queue = django_rq.get_queue(QUEUE)
    SimpleWorker([queue], connection=queue.connection).work(burst=True)


@pytest.fixture
def api_client(client, admin_user):
    client.defaults["HTTP_AUTHORIZATION"] = f"Token {ApiToken.issue(admin_user)[1]}"
    return client


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Runs a request as if its transaction committed: jobs are enqueued on commit."""

    def run(request, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return request(*args, **kwargs)

    return run


@pytest.fixture
def post_dataset(admin_client, committed):
    def post(content=DATASET_JSONL):
        return committed(
            admin_client.post,
            "/upload/",
            {"kind": "dataset", "dataset-name": "People", "dataset-file": SimpleUploadedFile("people.jsonl", content)},
        )

    return post


def test_the_upload_page_queues_a_big_file_and_shows_its_progress(admin_client, post_dataset):
    response = post_dataset()

    assert response.status_code == 302
    upload = Upload.objects.get()
    assert upload.outcome == Upload.Outcome.QUEUED and upload.kept_file().read() == DATASET_JSONL
    assert not Dataset.objects.exists()
    page = admin_client.get("/upload/").content.decode()
    assert "people.jsonl is being imported in the background" in page
    assert f'data-upload="{upload.pk}"' in page and "js/upload_progress.js" in page
    state = admin_client.get(f"/uploads/{upload.pk}/progress.json").json()
    assert (state["active"], state["stage"], state["outcome"]) == (True, "queued", "queued")


def test_the_job_imports_the_file_into_the_queued_upload_and_deletes_the_file(admin_client, admin_user, post_dataset):
    post_dataset()
    upload = Upload.objects.get()
    assert upload.chunks.exists()

    run_jobs()

    upload.refresh_from_db()
    assert (upload.outcome, upload.texts, upload.triples, upload.uploaded_by) == ("imported", 3, 2, admin_user)
    assert upload.sha256 and not UploadChunk.objects.exists()
    assert Text.objects.filter(dataset__name="People").count() == 3
    assert not (admin_client.get("/upload/").content.decode().count("data-upload="))
    state = admin_client.get(f"/uploads/{upload.pk}/progress.json").json()
    assert (state["active"], state["percent"], state["outcome"], state["texts"]) == (False, 100, "imported", 3)


def test_a_refused_file_fails_its_queued_upload_with_the_reason_and_stores_nothing(admin_client, post_dataset):
    before = snapshot()
    post_dataset(DATASET_JSONL + b'\n{"id": "t4", "text": "Lone \\ud800.", "triples": []}')

    run_jobs()

    upload = Upload.objects.get()
    assert upload.outcome == Upload.Outcome.FAILED
    assert 'Line 4: the "text" contains a lone surrogate' in upload.message
    assert snapshot() == before and not UploadChunk.objects.exists()


def test_a_file_kept_only_in_the_database_is_imported_by_a_worker_in_chunks(settings, committed):
    # No directory is shared: the queued file exists only as rows, several chunks of it here.
    lines = [json.dumps({"id": f"t{number}", "text": f"Text number {number}.", "triples": []}) for number in range(400)]
    content = "\n".join(lines).encode()
    settings.GENRES_MAX_UPLOAD_BYTES = len(content)
    chunk_bytes = len(content) // 3 + 1
    upload = Upload.objects.create(
        kind=Upload.Kind.DATASET, dataset_name="Many", file_name="many.jsonl", size=len(content), outcome="queued"
    )
    for index, start in enumerate(range(0, len(content), chunk_bytes)):
        UploadChunk.objects.create(upload=upload, index=index, data=content[start : start + chunk_bytes])
    committed(django_rq.get_queue(QUEUE).enqueue, "scoring.import_jobs.import_upload", upload.pk, {"name": "Many"})

    run_jobs()

    upload.refresh_from_db()
    assert (upload.outcome, upload.texts) == ("imported", 400)
    assert list(Text.objects.filter(dataset__name="Many").values_list("external_id", flat=True)[:2]) == ["t0", "t1"]
    assert not UploadChunk.objects.exists()


def test_a_queued_file_over_the_size_limit_fails_and_is_deleted(settings, post_dataset):
    post_dataset()
    settings.GENRES_MAX_UPLOAD_BYTES = len(DATASET_JSONL) - 1

    run_jobs()

    upload = Upload.objects.get()
    assert upload.outcome == Upload.Outcome.FAILED and "limit" in upload.message
    assert not Dataset.objects.exists() and not UploadChunk.objects.exists()


def test_the_api_answers_202_with_the_status_url_to_follow(api_client, committed):
    make_people_dataset()
    response = committed(
        api_client.post,
        "/api/datasets/People/outputs/",
        {"system": "GPT-4", "file": SimpleUploadedFile("gpt.jsonl", OUTPUTS_JSONL)},
    )

    assert response.status_code == 202
    queued = response.json()
    upload = Upload.objects.get(pk=queued["upload"])
    assert queued["status_url"] == f"/api/uploads/{upload.pk}/"
    assert (queued["outcome"], queued["active"]) == ("queued", True)

    run_jobs()

    done = api_client.get(queued["status_url"]).json()
    assert (done["outcome"], done["active"], done["texts"], done["triples"]) == ("imported", False, 2, 1)
    assert Output.objects.get(system__name="GPT-4", text__external_id="t1").triples == [["Turing", "born in", "London"]]


def test_an_unknown_upload_is_a_json_404(api_client):
    response = api_client.get("/api/uploads/999/")
    assert response.status_code == 404 and response.json() == {"error": "No upload 999."}


def test_an_upload_whose_job_is_gone_is_marked_failed_when_read(admin_client, post_dataset):
    post_dataset()
    django_rq.get_queue(QUEUE).empty()  # Redis lost the job
    upload = Upload.objects.get()
    # Just after it was queued, a missing job may be one not enqueued yet: that upload waits.
    assert admin_client.get(f"/uploads/{upload.pk}/progress.json").json()["outcome"] == "queued"
    Upload.objects.filter(pk=upload.pk).update(created_at=upload.created_at - ENQUEUE_GRACE)

    state = admin_client.get(f"/uploads/{upload.pk}/progress.json").json()

    assert (state["active"], state["outcome"]) == (False, "failed")
    assert "stopped before it finished: its job is gone" in Upload.objects.get().message
    assert not UploadChunk.objects.exists()


def test_small_files_are_still_imported_in_the_request(admin_client, settings, post_dataset):
    settings.GENRES_IMPORT_JOB_BYTES = len(DATASET_JSONL) + 1
    post_dataset()
    assert Upload.objects.get().outcome == Upload.Outcome.IMPORTED


def test_the_service_reports_reading_then_storing_up_to_the_totals():
    calls = []
    lines = b"\n".join(
        json.dumps({"id": f"t{number}", "text": f"Text {number}.", "triples": []}).encode() for number in range(2500)
    )
    import_dataset(
        as_file(lines, "many.jsonl"), file_name="many.jsonl", name="Many", on_progress=lambda *call: calls.append(call)
    )

    stages = [stage for stage, _, _ in calls]
    assert stages == sorted(stages, key=["reading", "storing"].index)
    assert calls[stages.index("storing") - 1] == ("reading", len(lines), len(lines))
    assert calls[-1] == ("storing", 2500, 2500)
