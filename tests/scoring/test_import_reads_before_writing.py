"""A big file is read and checked before the import's write transaction begins: on SQLite that
transaction holds the one write lock, and every other writer (an annotator's save) waits for it."""

import pytest
from django.db import connection

from scoring.genres import formats
from scoring.imports import ImportRefused, import_dataset, import_outputs
from scoring.models import Dataset
from tests.scoring.import_fixtures import DATASET_JSONL, as_file

# Not wrapped in a test transaction: the import's own transaction is what is looked at.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres_relevant]


@pytest.fixture
def parsing_in_transaction(monkeypatch):
    """Whether each parse of the test ran inside a transaction."""
    seen = []

    def watched(read):
        def parse(*args, **kwargs):
            seen.append(connection.in_atomic_block)
            return read(*args, **kwargs)

        return parse

    monkeypatch.setattr(formats, "read_dataset", watched(formats.read_dataset))
    monkeypatch.setattr(formats, "read_outputs", watched(formats.read_outputs))
    return seen


def test_files_are_parsed_before_the_write_transaction(parsing_in_transaction):
    import_dataset(as_file(DATASET_JSONL, "d.jsonl"), file_name="d.jsonl", name="Curie")
    outputs = b'{"id": "t1", "triples": [["Alan Turing", "born in", "London"]]}\n'
    import_outputs(as_file(outputs, "o.jsonl"), file_name="o.jsonl", dataset="Curie", system_name="Echo")

    assert parsing_in_transaction == [False, False]


def test_a_bad_record_still_changes_nothing(parsing_in_transaction):
    bad = DATASET_JSONL + b'\n{"id": "t9", "text": "Ada", "triples": [["Ada", "", "x"], 5]}\n'
    with pytest.raises(ImportRefused):
        import_dataset(as_file(bad, "d.jsonl"), file_name="d.jsonl", name="Curie")
    assert not Dataset.objects.exists()
