"""Big imports as RQ jobs: the request stores the file and answers at once; a worker imports it.

    queue_import(...)  ->  Upload (queued) with the file kept in the database (UploadChunk rows)
                       ->  import_upload (on any worker, on any machine): running, then the import
                           service in one transaction, progress reported as it goes; the Upload
                           ends imported, unchanged or failed (with the reason), and the file is deleted

Progress reaches the upload page's websocket group (``scoring.progress``) and the job's meta in
Redis, which the JSON status views read: the import writes a new dataset or system hidden until
its last batch (``scoring.import_batches``). An Upload whose job is gone from Redis, or ended
without finishing it, is marked failed when its status is next read. ``heal_imports`` (the workers'
heal pass) deletes what an import killed mid-way had written and queues its job again, up to
MAX_IMPORT_ATTEMPTS times, from the file still kept in the database.
"""

import logging
import time
from datetime import timedelta
from typing import Any

import django_rq
from django.conf import settings
from django.contrib.auth.models import User
from django.core.files import File
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from rq import get_current_job
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from scoring.import_batches import abandoned, discard, still_writing
from scoring.imports import ImportRefused, import_dataset, import_outputs, new_upload, record_failure
from scoring.models import Dataset, System, Upload
from scoring.progress import publish_upload_progress

logger = logging.getLogger(__name__)

QUEUE = "default"
# Progress is published at most this often (and at each change of stage).
PUBLISH_EVERY_SECONDS = 0.5
STAGE_LABELS = {"queued": "Waiting for a worker", "reading": "Reading the file", "storing": "Storing"}
ENDED_JOB_STATES = {JobStatus.FINISHED, JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED}
# The job is enqueued when the transaction that saved its queued Upload commits: a reader may
# see the upload a moment before its job exists.
ENQUEUE_GRACE = timedelta(seconds=60)
# Times an import killed mid-way is started again before its upload fails.
MAX_IMPORT_ATTEMPTS = 3


def runs_as_job(source: object) -> bool:
    """Whether a file of this size is imported by a job rather than in the request."""
    return (getattr(source, "size", 0) or 0) >= settings.GENRES_IMPORT_JOB_BYTES


def job_id(upload: Upload) -> str:
    return f"import-upload-{upload.pk}"


def queue_import(kind: str, source: File, *, file_name: str, user: User | None, **options: Any) -> Upload:
    """Store ``source`` with a queued Upload and enqueue its import; ``options`` go to the import service.

    ``options`` hold what the service of ``kind`` takes besides the file: for a dataset, name, level,
    domain, description and format; for outputs, dataset (its name), system_name, family, format, lenient.
    """
    dataset_name = options["name"] if kind == Upload.Kind.DATASET else options["dataset"]
    upload = new_upload(
        kind, source, file_name, dataset_name, options.get("system_name", ""), user, options.get("format", "auto")
    )
    upload.outcome = Upload.Outcome.QUEUED
    upload.message = "Queued for import."
    with transaction.atomic():  # The upload is never queued with half its file.
        upload.save()
        upload.keep_file(source)
    django_rq.get_queue(QUEUE).enqueue(import_upload, upload.pk, options, job_id=job_id(upload))
    return upload


class JobProgress:
    """Reports an import's progress: in the job's meta (for the status views) and to the page's socket."""

    def __init__(self, upload: Upload, job: Job | None) -> None:
        self.upload, self.job = upload, job
        self.stage: str | None = None
        self.published_at = 0.0

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage == self.stage and now - self.published_at < PUBLISH_EVERY_SECONDS and done < total:
            return
        self.stage, self.published_at = stage, now
        progress = {"stage": stage, "done": done, "total": total}
        if self.job is not None:
            self.job.meta["progress"] = progress
            self.job.save_meta()
        publish_upload_progress(self.upload.pk, upload_state(self.upload, progress))


def import_upload(upload_id: int, options: dict[str, Any]) -> None:
    """The job: import the queued upload's file with the import service, then delete the file."""
    upload = Upload.objects.get(pk=upload_id)
    if not upload.in_progress:
        return  # Imported already: a second copy of the job has nothing to do.
    Upload.objects.filter(pk=upload.pk).update(outcome=Upload.Outcome.RUNNING)
    upload.outcome = Upload.Outcome.RUNNING
    progress = JobProgress(upload, get_current_job())
    importer = import_dataset if upload.kind == Upload.Kind.DATASET else import_outputs
    try:
        with upload.kept_file() as source:
            importer(
                source,
                file_name=upload.file_name,
                user=upload.uploaded_by,
                upload=upload,
                on_progress=progress,
                **options,
            )
    except ImportRefused:
        pass  # The service recorded the refusal in the upload.
    except Exception as error:
        logger.exception("Import of upload %s failed", upload.pk)
        refusal = ImportRefused(f"The import failed unexpectedly ({type(error).__name__}); nothing was imported.")
        record_failure(upload, refusal, upload.pk)
    finally:
        upload.forget_file()
    upload.refresh_from_db()
    publish_upload_progress(upload.pk, upload_state(upload))


def live_progress(upload: Upload) -> dict[str, Any] | None:
    """The progress the upload's job last reported, or None; marks the upload failed when its job ended without it."""
    try:
        job = Job.fetch(job_id(upload), connection=django_rq.get_connection(QUEUE))
    except NoSuchJobError:
        job = None
    just_queued = upload.outcome == Upload.Outcome.QUEUED and timezone.now() - upload.created_at < ENQUEUE_GRACE
    if job is None and (just_queued or still_writing(upload)):
        return None  # its job is about to be queued, or it is imported by a command (no job)
    if job is None or job.get_status(refresh=False) in ENDED_JOB_STATES:
        upload.refresh_from_db()
        if upload.in_progress:
            reason = "its job is gone" if job is None else f"its job ended ({job.get_status(refresh=False)})"
            refusal = ImportRefused(f"The import stopped before it finished: {reason}; nothing was imported.")
            record_failure(upload, refusal, upload.pk)
            upload.forget_file()
        return None
    return job.meta.get("progress")


def upload_state(upload: Upload, progress: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the status views and the page's socket say about an upload, as JSON-ready values."""
    if upload.in_progress and progress is None:
        progress = live_progress(upload)
    progress = progress or {"stage": "queued", "done": 0, "total": 0}
    active = upload.in_progress
    total = progress["total"]
    return {
        "upload": upload.pk,
        "kind": upload.kind,
        "file_name": upload.file_name,
        "dataset": upload.dataset_name,
        "system": upload.system_name,
        "outcome": upload.outcome,
        "outcome_label": upload.get_outcome_display(),
        "active": active,
        "stage": progress["stage"] if active else "done",
        "stage_label": STAGE_LABELS.get(progress["stage"], "") if active else upload.get_outcome_display(),
        "done": progress["done"],
        "total": total,
        "percent": (round(100 * progress["done"] / total) if total else 0) if active else 100,
        "texts": upload.texts,
        "triples": upload.triples,
        "warnings": upload.warnings,
        "message": upload.message,
        "status_url": reverse("scoring:api_upload", args=[upload.pk]),
    }


def heal_imports() -> int:
    """Delete each dataset and system an import abandoned mid-way, and start that import again
    (or fail its upload when its job is lost or has had its attempts); the number started again."""
    restarted = 0
    for instance in [*abandoned(Dataset), *abandoned(System)]:
        logger.warning(
            "Deleting %s, an import abandoned mid-way", instance,
            extra={"event": "import_abandoned", type(instance).__name__.lower(): instance.name},
        )  # fmt: skip
        discard(instance)
        named = {"dataset_name": instance.name} if isinstance(instance, Dataset) else {"system_name": instance.name}
        for upload in Upload.objects.filter(outcome=Upload.Outcome.RUNNING, **named):
            restarted += restart_import(upload)
    return restarted


def restart_import(upload: Upload) -> int:
    """Queue the killed import of ``upload`` again from its kept file; 1 if queued, 0 if it failed instead."""
    try:
        job = Job.fetch(job_id(upload), connection=django_rq.get_connection(QUEUE))
    except NoSuchJobError:
        job = None
    attempts = job.meta.get("attempts", 1) if job else MAX_IMPORT_ATTEMPTS
    if job is None or attempts >= MAX_IMPORT_ATTEMPTS or not upload.chunks.exists():
        why = "its job is lost" if job is None else f"it was stopped {attempts} times"
        refusal = ImportRefused(f"The import stopped mid-way ({why}); nothing was imported. Upload the file again.")
        record_failure(upload, refusal, upload.pk)
        upload.forget_file()
        return 0
    Upload.objects.filter(pk=upload.pk).update(outcome=Upload.Outcome.QUEUED, message="Queued again for import.")
    django_rq.get_queue(QUEUE).enqueue(import_upload, *job.args, job_id=job_id(upload), meta={"attempts": attempts + 1})
    return 1
