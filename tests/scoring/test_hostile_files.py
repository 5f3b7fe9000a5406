"""Hostile files are refused on every import path: the reason named, a failed Upload, nothing stored.

Each file once gave an unhandled 500 (or stored text PostgreSQL cannot hold); the same refusal
must come from the upload page, the JSON API, the import commands and load_demo's manifest.
"""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from scoring.models import ApiToken, Upload
from tests.scoring.import_fixtures import TURING, make_people_dataset, snapshot

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

DEEP = "[" * 1000 + "]" * 1000
# Each file, and the words of its refusal. The escapes are JSON's: the files are valid JSON.
HOSTILE_DATASETS = {
    "nested 1,000 deep": ('{"A text.": ' + DEEP + "}", "nested too deeply"),
    "nested 1,000 deep, JSON Lines": ('{"id": "a", "text": "A text.", "triples": ' + DEEP + "}", "nested too deeply"),
    "an id of 5,000 digits": ('{"id": ' + "7" * 5000 + ', "text": "A text.", "triples": []}', "5,000 digits"),
    "a lone surrogate in a text": ('{"Lone \\ud800 surrogate.": []}', "lone surrogate \\ud800"),
    "a lone surrogate in a triple": ('{"A text.": [["a\\udfff", "b", "c"]]}', "lone surrogate \\udfff"),
    "a NUL in a text": ('{"id": "a", "text": "A\\u0000text.", "triples": []}', "NUL character"),
    "a NUL byte in the file": ('{"A\x00text.": []}', "Invalid control character"),
}
HOSTILE_OUTPUTS = {
    "nested 1,000 deep": ("{" + json.dumps(TURING) + ": " + DEEP + "}", "nested too deeply"),
    "an id of 5,000 digits": ('{"id": ' + "7" * 5000 + ', "triples": []}', "5,000 digits"),
    "a lone surrogate in a triple": (
        "{" + json.dumps(TURING) + ': [["a\\udfff", "b", "c"]]}',
        "lone surrogate \\udfff",
    ),
    "a lone surrogate in a raw reply": ('{"id": "t1", "raw": "[[\\"a\\ud800\\""}', "lone surrogate \\ud800"),
    "a NUL in a raw reply": ('{"id": "t1", "raw": "x\\u0000"}', "NUL character"),
}


def assert_refused_and_recorded(before, reason):
    assert snapshot() == before
    failure = Upload.objects.get(outcome=Upload.Outcome.FAILED)
    assert reason in failure.message and "nothing was imported" in failure.message
    return failure


@pytest.fixture
def api_key(admin_user):
    return ApiToken.issue(admin_user)[1]


@pytest.mark.parametrize("content, reason", HOSTILE_DATASETS.values(), ids=HOSTILE_DATASETS)
def test_the_upload_page_refuses_a_hostile_dataset(admin_client, content, reason):
    before = snapshot()
    response = admin_client.post(
        "/upload/",
        {"kind": "dataset", "dataset-name": "Hostile", "dataset-file": SimpleUploadedFile("x.json", content.encode())},
    )
    assert response.status_code == 400
    assert reason in response.content.decode()
    assert_refused_and_recorded(before, reason)


@pytest.mark.parametrize("content, reason", HOSTILE_OUTPUTS.values(), ids=HOSTILE_OUTPUTS)
def test_the_upload_page_refuses_hostile_outputs(admin_client, content, reason):
    make_people_dataset()
    before = snapshot()
    response = admin_client.post(
        "/upload/",
        {
            "kind": "outputs",
            "outputs-dataset": "People",
            "outputs-system": "Hostile",
            "outputs-file": SimpleUploadedFile("x.json", content.encode()),
        },
    )
    assert response.status_code == 400
    assert reason in response.content.decode()
    assert_refused_and_recorded(before, reason)


API_CASES = [
    pytest.param("/api/datasets/", {"name": "Hostile"}, content, reason, id=f"dataset, {name}")
    for name, (content, reason) in HOSTILE_DATASETS.items()
] + [
    pytest.param("/api/datasets/People/outputs/", {"system": "Hostile"}, content, reason, id=f"outputs, {name}")
    for name, (content, reason) in HOSTILE_OUTPUTS.items()
]


@pytest.mark.parametrize("url, fields, content, reason", API_CASES)
def test_the_api_refuses_a_hostile_file_in_json(client, api_key, url, fields, content, reason):
    make_people_dataset()
    before = snapshot()
    response = client.post(
        url, {**fields, "file": SimpleUploadedFile("x.json", content.encode())}, HTTP_AUTHORIZATION=f"Token {api_key}"
    )
    assert response.status_code == 400
    assert reason in response.json()["error"]
    assert_refused_and_recorded(before, reason)


@pytest.mark.parametrize("content, reason", HOSTILE_DATASETS.values(), ids=HOSTILE_DATASETS)
def test_import_dataset_refuses_a_hostile_file(tmp_path, content, reason):
    path = tmp_path / "hostile.json"
    path.write_bytes(content.encode())
    before = snapshot()
    with pytest.raises(CommandError, match=r"hostile\.json: ") as refusal:
        call_command("import_dataset", str(path), "--name", "Hostile")
    assert reason in str(refusal.value)
    assert_refused_and_recorded(before, reason)


@pytest.mark.parametrize("content, reason", HOSTILE_OUTPUTS.values(), ids=HOSTILE_OUTPUTS)
def test_import_outputs_refuses_a_hostile_file(tmp_path, content, reason):
    make_people_dataset()
    path = tmp_path / "hostile.json"
    path.write_bytes(content.encode())
    before = snapshot()
    with pytest.raises(CommandError, match=r"hostile\.json: ") as refusal:
        call_command("import_outputs", str(path), "--dataset", "People", "--system", "Hostile")
    assert reason in str(refusal.value)
    assert_refused_and_recorded(before, reason)


@pytest.mark.parametrize("content, reason", HOSTILE_DATASETS.values(), ids=HOSTILE_DATASETS)
def test_load_demo_refuses_a_hostile_dataset_of_its_manifest(tmp_path, content, reason):
    (tmp_path / "hostile.json").write_bytes(content.encode())
    manifest = {"datasets": [{"file": "hostile.json", "name": "Hostile"}], "outputs": []}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(CommandError, match=r"hostile\.json: ") as refusal:
        call_command("load_demo", "--manifest", str(tmp_path / "manifest.json"), "--no-scores")
    assert reason in str(refusal.value)
    # load_demo is one transaction: its refusal leaves the database as it was, the record included.
    assert snapshot() == {"datasets": [], "texts": [], "systems": [], "outputs": [], "uploads": []}


@pytest.mark.parametrize("manifest, reason", [("[" * 1000 + "]" * 1000, "nested too deeply"), ("7" * 5000, "digits")])
def test_load_demo_refuses_a_hostile_manifest(tmp_path, manifest, reason):
    (tmp_path / "manifest.json").write_text(manifest, encoding="utf-8")
    with pytest.raises(CommandError, match=f"cannot read the manifest .*{reason}"):
        call_command("load_demo", "--manifest", str(tmp_path / "manifest.json"), "--no-scores")


def test_a_name_beside_the_file_that_cannot_be_stored_is_refused(tmp_path):
    path = tmp_path / "people.jsonl"
    path.write_text('{"id": "a", "text": "A text.", "triples": []}', encoding="utf-8")
    with pytest.raises(CommandError, match="The description contains a lone surrogate"):
        call_command("import_dataset", str(path), "--name", "People", "--description", "bad \udcff byte")
    assert_refused_and_recorded(snapshot(), "lone surrogate")


def test_a_file_name_that_is_not_unicode_is_recorded_with_the_refusal(tmp_path):
    # A file name with a byte that is not UTF-8 reaches Python as a lone surrogate.
    path = tmp_path / "bad-\udcff.json"
    path.write_bytes(b'{"A\\u0000": []}')
    with pytest.raises(CommandError, match="NUL character"):
        call_command("import_dataset", str(path), "--name", "People")
    assert Upload.objects.get().file_name == "bad-\ufffd.json"


HEADER = b"text,system_a,system_b,aspect,annotator,winner\n"


@pytest.mark.parametrize(
    "content, reason",
    [
        (HEADER + b"A\x00,alpha,beta,ts,carol,a\n", r"unknown text 'A\\x00'"),
        (HEADER + b"7" * 5000 + b",alpha,beta,ts,carol,a\n", "unknown text"),
        (HEADER + b"\xed\xa0\x80,alpha,beta,ts,carol,a\n", "not UTF-8"),
    ],
    ids=["a NUL byte", "a reference of 5,000 digits", "an encoded lone surrogate"],
)
def test_import_judgements_refuses_a_hostile_file(tmp_path, content, reason):
    make_people_dataset()
    path = tmp_path / "study.csv"
    path.write_bytes(content)
    before = snapshot()
    with pytest.raises(CommandError, match=reason):
        call_command("import_judgements", str(path), "--dataset", "People")
    assert snapshot() == before
