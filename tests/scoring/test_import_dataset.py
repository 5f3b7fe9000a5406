"""import_dataset: every dataset format, atomic refusals, the size limit, and repeated uploads."""

import json

import pytest
from django.core.files import File

from scoring.imports import ImportRefused, import_dataset
from scoring.models import Dataset, Output, System, Text, Upload
from tests.scoring.import_fixtures import DATASET_JSONL, as_file, last_failure, snapshot

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

TRIPLES_JSON = json.dumps(
    {
        "Marie Curie was born in Warsaw.": [["Marie Curie", "born in", "Warsaw"]],
        "Pierre Curie married Marie Curie in 1895.": [
            ["Pierre Curie", "married", "Marie Curie"],
            ["Pierre Curie", "married in", "1895"],
        ],
        "A sentence without gold triples.": [],
    },
    indent=2,
).encode()


def import_triples(data=TRIPLES_JSON, name="Curie", **options):
    return import_dataset(as_file(data), file_name="curie.json", name=name, **options)


def test_triples_json_creates_texts_gold_and_ground_truth_outputs(admin_user):
    summary = import_triples(level="document", domain="biomedical", description="Two physicists", user=admin_user)

    dataset = Dataset.objects.get(name="Curie")
    assert (dataset.level, dataset.domain, dataset.description) == ("document", "biomedical", "Two physicists")
    assert list(dataset.texts.values_list("position", "external_id", "content", "gold")) == [
        (0, "", "Marie Curie was born in Warsaw.", [["Marie Curie", "born in", "Warsaw"]]),
        (
            1,
            "",
            "Pierre Curie married Marie Curie in 1895.",
            [["Pierre Curie", "married", "Marie Curie"], ["Pierre Curie", "married in", "1895"]],
        ),
        (2, "", "A sentence without gold triples.", []),
    ]
    ground_truth = System.objects.get(is_ground_truth=True)
    assert list(Output.objects.filter(system=ground_truth).values_list("text__position", "triples", "upload")) == [
        (0, [["Marie Curie", "born in", "Warsaw"]], summary.upload.pk),
        (1, [["Pierre Curie", "married", "Marie Curie"], ["Pierre Curie", "married in", "1895"]], summary.upload.pk),
    ]
    assert (summary.texts, summary.triples, summary.warnings, summary.unchanged) == (3, 3, 0, False)
    assert summary.message == 'Imported dataset "Curie": 3 texts, 3 gold triples (2 with gold triples).'


def test_the_upload_is_recorded_with_hash_size_and_format(admin_user):
    import hashlib

    summary = import_triples(user=admin_user)

    upload = Upload.objects.get()
    assert upload == summary.upload
    assert (upload.kind, upload.dataset_name, upload.file_name, upload.format, upload.outcome) == (
        "dataset",
        "Curie",
        "curie.json",
        "triples",
        "imported",
    )
    assert (upload.sha256, upload.size) == (hashlib.sha256(TRIPLES_JSON).hexdigest(), len(TRIPLES_JSON))
    assert (upload.texts, upload.triples, upload.warnings, upload.uploaded_by) == (3, 3, 0, admin_user)


def test_text_hashes_are_stored_by_the_bulk_import():
    import_triples()

    text = Text.objects.get(position=0)
    content_sha256 = text.content_sha256
    text.save()
    assert text.content_sha256 == content_sha256


def test_jsonl_ids_become_external_ids():
    summary = import_dataset(as_file(DATASET_JSONL), file_name="people.jsonl", name="People")

    assert summary.upload.format == "jsonl"
    assert list(Text.objects.values_list("external_id", "gold")) == [
        ("t1", [["Alan Turing", "born in", "London"]]),
        ("t2", []),
        ("t3", [["Ada Lovelace", "worked with", "Charles Babbage"]]),
    ]


@pytest.mark.parametrize(("data", "format"), [(TRIPLES_JSON, "triples"), (DATASET_JSONL, "jsonl")])
def test_formats_can_be_forced(data, format):
    summary = import_dataset(as_file(data), file_name="file", name="Forced", format=format)

    assert summary.upload.format == format
    assert Text.objects.count() == 3


def test_html_and_script_are_stored_verbatim():
    content = "<script>alert('gotcha')</script> <b>bold</b> &amp;"
    data = json.dumps({content: [["<img src=x onerror=alert(1)>", "is", "&lt;harmless&gt;"]]}).encode()

    import_triples(data)

    text = Text.objects.get()
    assert (text.content, text.gold) == (content, [["<img src=x onerror=alert(1)>", "is", "&lt;harmless&gt;"]])


BAD_FILES = [
    (
        b'{"Marie Curie was born in Warsaw.": [["Marie Curie", "born in", "Warsaw"]]',
        "Invalid JSON at line 1, column 75: Expecting .,. delimiter",
    ),
    (
        b'[["Marie Curie", "born in", "Warsaw"]]',
        "Expected a JSON object mapping each text to its triples or reply.*holds an array",
    ),
    (
        b'{"One.": [], "Two.": [["Marie Curie", "born in"]]}',
        r'Record 2 \("Two\."\), triple 1: expected 3 items \(subject, relation, object\), got 2',
    ),
    (b'{"One.": [["a", "b", "c", "d"]]}', r'Record 1 \("One\."\), triple 1: expected 3 items .*got 4'),
    (b'{"One.": [["a", ["b"], "c"]]}', r'Record 1 \("One\."\), triple 1: relation is list, not a string'),
    (b'{"One.": [["a", "b", ""]]}', r'Record 1 \("One\."\), triple 1: object is empty'),
    (b'{"One.": [], "Two.": [], "One.": []}', r'Record 3 \("One\."\): the same text is already record 1'),
    (b'{"One.": [], "Caf\xe9.": []}', r"not UTF-8 text: byte 17 \(line 1\) is 0xe9"),
    (b'{"id": "a", "text": "One."}\n{"id": "a", "text": "Two."}', "Line 2: the same id as line 1"),
    (
        b"text_id,subject,relation,object\nt1,a,b,c\n",
        "This file looks like CSV, which cannot be imported here; use triples JSON or JSON Lines",
    ),
    (json.dumps({"text": "One.", "id": "x" * 201}).encode(), "Line 1: the id is longer than 200 characters"),
]


@pytest.mark.parametrize(("data", "message"), BAD_FILES)
def test_a_bad_file_changes_nothing_and_names_the_record_and_reason(data, message):
    import_dataset(as_file(DATASET_JSONL), file_name="people.jsonl", name="People")
    before = snapshot()

    with pytest.raises(ImportRefused, match=message) as refusal:
        import_triples(data)

    assert str(refusal.value).endswith("; nothing was imported.")
    assert snapshot() == before
    failure = last_failure()
    assert (failure.kind, failure.dataset_name, failure.message) == ("dataset", "Curie", str(refusal.value))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"name": "bad/name"}, r'Dataset "bad/name" is not valid \(name: Use letters, digits'),
        ({"level": "paragraph"}, r"level: Value 'paragraph' is not a valid choice"),
        ({"domain": "legal"}, r"domain: Value 'legal' is not a valid choice"),
    ],
)
def test_invalid_dataset_settings_are_refused(options, message):
    with pytest.raises(ImportRefused, match=message):
        import_triples(**{"name": "Curie", **options})

    assert snapshot()["texts"] == []
    assert last_failure().outcome == "failed"


def test_same_file_again_is_harmless_and_says_so():
    first = import_triples()
    before = snapshot()

    again = import_triples()

    assert again.unchanged
    assert (again.texts, again.triples, again.warnings) == (3, 3, 0)
    assert again.message.startswith('Dataset "Curie" already holds this file (imported ')
    assert again.message.endswith("; nothing changed.")
    assert again.upload.outcome == "unchanged" and again.upload.pk != first.upload.pk
    after = snapshot()
    assert after["uploads"] == before["uploads"] + [(again.upload.pk, "unchanged")]
    assert {key: value for key, value in after.items() if key != "uploads"} == {
        key: value for key, value in before.items() if key != "uploads"
    }


def test_a_different_file_under_an_existing_name_is_refused():
    import_triples()
    before = snapshot()

    with pytest.raises(ImportRefused, match='Dataset "Curie" already exists with other content'):
        import_triples(DATASET_JSONL)

    assert snapshot() == before


class UnreadableFile(File):
    """A file that fails the test if anything reads it."""

    def read(self, *args, **kwargs):
        raise AssertionError("the file was read")


def test_a_file_above_the_size_limit_is_refused_before_it_is_read(settings, tmp_path):
    settings.GENRES_MAX_UPLOAD_BYTES = 10 * 1024 * 1024
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # sparse: 50 MB on paper, nothing on disk

    with path.open("rb") as handle, pytest.raises(ImportRefused) as refusal:
        import_dataset(UnreadableFile(handle), file_name="huge.json", name="Huge")

    assert str(refusal.value) == "The file is larger than the upload limit of 10 MB (50.0 MB); nothing was imported."
    assert snapshot()["datasets"] == []
    failure = last_failure()
    assert (failure.size, failure.sha256, failure.message) == (50 * 1024 * 1024, "", str(refusal.value))


def test_a_file_whose_size_was_misreported_is_cut_off_while_reading(settings):
    settings.GENRES_MAX_UPLOAD_BYTES = 100
    source = as_file(TRIPLES_JSON)
    source.size = 10

    with pytest.raises(ImportRefused, match="larger than the upload limit"):
        import_dataset(source, file_name="curie.json", name="Curie")

    assert snapshot()["datasets"] == []
