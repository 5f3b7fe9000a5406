"""Failures of imports, scoring runs and judge requests are logged with fields naming what failed
(LOG_FORMAT=json keeps them as keys), not only stored on their rows."""

import logging

import pytest

from scoring.genres.openai_backend import OpenAIService, RetryPolicy
from scoring.genres.scorer import ScoreSettings
from scoring.imports import ImportRefused, import_dataset
from scoring.jobs import fail_run
from scoring.models import ScoringRun, Upload
from tests.scoring.import_fixtures import as_file
from tests.scoring.run_fixtures import echo, tiny_dataset

pytestmark = pytest.mark.django_db


def test_a_refused_import_is_logged_with_its_upload(caplog):
    with caplog.at_level(logging.WARNING, logger="scoring.imports"), pytest.raises(ImportRefused):
        import_dataset(as_file(b'{"a text": [["only two", "elements"]]}'), file_name="bad.json", name="Bad")
    (record,) = [record for record in caplog.records if getattr(record, "event", None) == "import_refused"]
    upload = Upload.objects.get()
    assert (record.upload, record.dataset, record.kind) == (upload.pk, "Bad", Upload.Kind.DATASET)
    assert "bad.json" in record.getMessage() and upload.message in record.getMessage()


def test_a_failed_run_is_logged_with_its_id(caplog):
    run = ScoringRun.create(tiny_dataset(), [echo()], ["us"], ScoreSettings(), chunk_texts=2)
    with caplog.at_level(logging.ERROR, logger="scoring.jobs"):
        fail_run(run.pk, "preparing the run failed: OSError: disk full")
    (record,) = [record for record in caplog.records if getattr(record, "event", None) == "run_failed"]
    assert record.run == run.pk and "disk full" in record.getMessage()


def test_a_request_that_fails_for_good_is_logged(caplog):
    service = OpenAIService(
        base_url="http://127.0.0.1:9/v1", api_key="test", retry=RetryPolicy(max_attempts=1, timeout=2)
    )

    async def call(client):
        return await client.models.list()

    with caplog.at_level(logging.WARNING, logger="scoring.genres.openai_backend"):
        (answer,) = service.run([call])
    assert "after 1 attempt" in answer.error
    assert [record.event for record in caplog.records if hasattr(record, "event")] == ["request_failed"]
