"""An annotator saves judgements, and a token client lists datasets, while a big dataset is imported
in another thread on the app's SQLite backend: every request answers, and saves get in between
the import's batches (scoring.import_batches) instead of waiting for its end.

The benchmark with 200,000 texts, paced annotators and timings is ``python -m benchmarks.imports
--concurrent``; this test is sized to run in a few seconds.
"""

import json
import shutil
import threading

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse

from scoring import import_batches
from scoring.imports import import_dataset
from scoring.models import ApiToken, Dataset
from tests.annotation.annotator_fixtures import make_annotation_setup, make_user
from tests.scoring.worker_fixtures import sqlite_file_as_default

APP_SQLITE = "genres_site.sqlite_backend"
TEXTS = 3_000


@pytest.fixture
def gated_file_database(migrated_file, tmp_path, django_db_blocker):
    """A SQLite file as the default database, through the app's backend and its write gate."""
    path = tmp_path / "genres.sqlite3"
    shutil.copyfile(migrated_file, path)
    with django_db_blocker.unblock(), sqlite_file_as_default(path, engine=APP_SQLITE):
        yield path


def big_dataset_file():
    return json.dumps(
        {f"Text {number}: the valley holds the bridge.": [["valley", "holds", "bridge"]] for number in range(TEXTS)}
    ).encode()


class ImportThread(threading.Thread):
    """Imports the big dataset on a connection of its own, noting when it starts storing and ends."""

    def __init__(self, path):
        super().__init__()
        self.path, self.data = path, big_dataset_file()
        self.storing, self.done = threading.Event(), threading.Event()
        self.error = None

    def run(self):
        try:
            with sqlite_file_as_default(self.path, engine=APP_SQLITE):
                import_dataset(ContentFile(self.data), file_name="big.json", name="Big", on_progress=self.progress)
        except Exception as error:  # reported by the test
            self.error = error
        finally:
            self.done.set()

    def progress(self, stage, done, total):
        if stage == "storing":
            self.storing.set()


def test_saves_and_token_reads_answer_between_the_batches_of_a_big_import(gated_file_database, client, monkeypatch):
    monkeypatch.setattr(import_batches, "BATCH_ROWS", 250)  # as many batches as 24,000 texts make
    annotator = make_user("saver")
    assignments = make_annotation_setup([annotator]).assignments(annotator)
    reader = ApiToken.issue(make_user("reader"))[1]
    client.force_login(annotator)
    versions = {assignment.pk: 0 for assignment in assignments}
    replies, saved_while_storing = [], 0

    importer = ImportThread(gated_file_database)
    importer.start()
    saves = 0
    while not importer.done.is_set():
        assignment = assignments[saves % len(assignments)]
        label = ("left", "right")[saves // len(assignments) % 2]
        storing_before = importer.storing.is_set()
        reply = client.post(
            reverse("annotation:annotate_item", args=[assignment.public_id]),
            {"version": versions[assignment.pk], "seconds": "3", "ts": label},
            HTTP_ACCEPT="application/json",
        )
        listing = client.get("/api/datasets/", HTTP_AUTHORIZATION=f"Token {reader}")
        replies.append((reply.status_code, listing.status_code))
        if reply.status_code == 200:
            versions[assignment.pk] = reply.json()["version"]
        saved_while_storing += storing_before and not importer.done.is_set()
        saves += 1
    importer.join()

    assert importer.error is None
    assert Dataset.objects.get(name="Big").texts.count() == TEXTS
    assert replies and set(replies) == {(200, 200)}
    # Saves finished between the import's first batch and its last transaction: none waited for the end.
    assert saved_while_storing >= 3
