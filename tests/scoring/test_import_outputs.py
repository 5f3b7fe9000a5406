"""import_outputs: every output format, text matching, atomic refusals, lenient mode, re-uploads."""

import json

import pytest

from scoring.imports import ImportRefused, import_dataset, import_outputs
from scoring.models import Output, System, Upload
from tests.scoring.import_fixtures import (
    HOPPER,
    LOVELACE,
    TURING,
    as_file,
    last_failure,
    make_people_dataset,
    snapshot,
)

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

TRIPLES_JSON = json.dumps(
    {TURING: [["Turing", "born in", "London"]], HOPPER: [["Hopper", "wrote", "first compiler"]]}
).encode()
RAW_JSON = json.dumps(
    {
        TURING: '[INST] Extract triples. [/INST] [["Turing", "born in", "London"], ["Turing", "born"]]</s>',
        HOPPER: "<script>alert('reply')</script> No triples.",
    }
).encode()
JSONL = b"\n".join(
    [
        json.dumps({"id": "t1", "triples": [["Turing", "born in", "London"]]}).encode(),
        json.dumps({"text": HOPPER, "raw": 'ASSISTANT: ["Hopper", "wrote", "a compiler"]'}).encode(),
        json.dumps({"id": "t3", "text": LOVELACE, "triples": []}).encode(),
    ]
)
CSV = b"text_id,subject,relation,object\nt1,Turing,born in,London\nt2,,,\nt1,Turing,worked at,Bletchley Park\n"


@pytest.fixture
def dataset(db):
    return make_people_dataset()


def upload_outputs(dataset, data, system_name="GPT-4", **options):
    return import_outputs(as_file(data), file_name="outputs", dataset=dataset, system_name=system_name, **options)


def outputs_of(system_name):
    return list(
        Output.objects.filter(system__name=system_name).values_list(
            "text__external_id", "triples", "raw", "parse_warnings"
        )
    )


def test_triples_json_matches_texts_by_content_and_creates_the_system(dataset, admin_user):
    summary = upload_outputs(dataset, TRIPLES_JSON, family="GPT", user=admin_user)

    assert System.objects.get(name="GPT-4").family == "GPT"
    assert outputs_of("GPT-4") == [
        ("t1", [["Turing", "born in", "London"]], "", []),
        ("t2", [["Hopper", "wrote", "first compiler"]], "", []),
    ]
    assert set(Output.objects.filter(system__name="GPT-4").values_list("upload", flat=True)) == {summary.upload.pk}
    upload = summary.upload
    assert (upload.kind, upload.dataset_name, upload.system_name, upload.format, upload.uploaded_by) == (
        "outputs",
        "People",
        "GPT-4",
        "triples",
        admin_user,
    )
    assert summary.message == (
        'Imported 2 outputs of "GPT-4" on dataset "People": 2 triples, 0 parse warnings; 0 earlier outputs replaced.'
    )


def test_raw_replies_are_stored_with_their_parse_warnings(dataset):
    summary = upload_outputs(dataset, RAW_JSON)

    assert summary.upload.format == "raw"
    dropped = 'dropped ["Turing", "born"]: expected 3 items (subject, relation, object), got 2'
    assert outputs_of("GPT-4") == [
        ("t1", [["Turing", "born in", "London"]], json.loads(RAW_JSON)[TURING], [dropped]),
        ("t2", [], "<script>alert('reply')</script> No triples.", []),
    ]
    assert (summary.texts, summary.triples, summary.warnings) == (2, 1, 1)
    assert summary.warning_messages == [f'record 1 ("Alan Turing was born in London."): {dropped}']


def test_jsonl_names_texts_by_id_by_content_or_both(dataset):
    summary = upload_outputs(dataset, JSONL)

    assert summary.upload.format == "jsonl"
    assert outputs_of("GPT-4") == [
        ("t1", [["Turing", "born in", "London"]], "", []),
        ("t2", [["Hopper", "wrote", "a compiler"]], 'ASSISTANT: ["Hopper", "wrote", "a compiler"]', []),
        ("t3", [], "", []),
    ]


def test_csv_groups_rows_by_text_id_and_keeps_explicitly_empty_outputs(dataset):
    summary = upload_outputs(dataset, CSV)

    assert summary.upload.format == "csv"
    assert outputs_of("GPT-4") == [
        ("t1", [["Turing", "born in", "London"], ["Turing", "worked at", "Bletchley Park"]], "", []),
        ("t2", [], "", []),
    ]


def test_csv_names_texts_without_ids_by_position():
    import_dataset(as_file(json.dumps({"First.": [], "Second.": []}).encode()), file_name="d.json", name="Plain")

    upload_outputs("Plain", b"text_id,subject,relation,object\n#2,a,b,c\n")

    assert list(Output.objects.filter(system__name="GPT-4").values_list("text__content", "triples")) == [
        ("Second.", [["a", "b", "c"]])
    ]


@pytest.mark.parametrize(
    ("data", "format"), [(TRIPLES_JSON, "triples"), (RAW_JSON, "raw"), (JSONL, "jsonl"), (CSV, "csv")]
)
def test_each_format_can_be_forced(dataset, data, format):
    summary = upload_outputs(dataset, data, format=format)

    assert summary.upload.format == format
    assert Output.objects.filter(system__name="GPT-4").count() == summary.texts


def test_the_dataset_can_be_given_by_name(dataset):
    upload_outputs("People", TRIPLES_JSON)

    assert Output.objects.filter(system__name="GPT-4", text__dataset=dataset).count() == 2


BAD_FILES = [
    (
        json.dumps({"Nobody wrote this text.": []}).encode(),
        r'Record 1 \("Nobody wrote this text\."\): the text "Nobody wrote this text\." is not in dataset "People"',
    ),
    (b'{"id": "t9", "triples": []}', r'Line 1: dataset "People" has no text with id "t9"'),
    (
        json.dumps({"id": "t1", "text": HOPPER, "triples": []}).encode(),
        r'Line 1: the id "t1" belongs to another text of dataset "People"',
    ),
    (
        json.dumps({"id": "t1", "triples": []}).encode() + b"\n" + json.dumps({"text": TURING, "triples": []}).encode(),
        "Line 2: the same text as line 1",
    ),
    (
        b"text_id,subject,relation,object\nt1,a,b,c\nt7,a,b,c\n",
        r'Line 3 \(text_id "t7"\): dataset "People" has no text with id "t7"',
    ),
    (
        json.dumps({TURING: [["Turing", "born in"]]}).encode(),
        r"Record 1 \(\"Alan Turing was born in London\.\"\), triple 1: expected 3 items .*got 2",
    ),
    (json.dumps({TURING: [["Turing", "born in", "London", "UK"]]}).encode(), r"triple 1: expected 3 items .*got 4"),
    (json.dumps({TURING: [["Turing", 1912, "London"]]}).encode(), "triple 1: relation is int, not a string"),
    (json.dumps({TURING: [["Turing", "born in", "  "]]}).encode(), "triple 1: object is empty"),
    (
        b'{"Alan Turing was born in London.": [], "Alan Turing was born in London.": []}',
        r"Record 2 .*: the same text is already record 1",
    ),
    (b'{"Alan Turing was born in London.": "\xff"}', r"not UTF-8 text: byte 37 \(line 1\) is 0xff"),
    (b'{"Alan Turing was born in London.": [', "Invalid JSON at line 1, column 38: Expecting value"),
    (b'"just a string"', "Cannot tell the format"),
]


@pytest.mark.parametrize(("data", "message"), BAD_FILES)
def test_a_bad_file_changes_nothing_and_names_the_record_and_reason(dataset, data, message):
    upload_outputs(dataset, TRIPLES_JSON)
    before = snapshot()

    with pytest.raises(ImportRefused, match=message) as refusal:
        upload_outputs(dataset, data)

    assert snapshot() == before
    failure = last_failure()
    assert (failure.kind, failure.dataset_name, failure.system_name, failure.message) == (
        "outputs",
        "People",
        "GPT-4",
        str(refusal.value),
    )


def test_a_refused_file_does_not_create_its_system(dataset):
    with pytest.raises(ImportRefused, match="is not in dataset"):
        upload_outputs(dataset, json.dumps({"Unknown text.": []}).encode(), system_name="New system")

    assert not System.objects.filter(name="New system").exists()


@pytest.mark.parametrize(
    ("system_name", "message"),
    [
        ("Ground truth", '"Ground truth" holds the gold triples of each dataset'),
        ("ground TRUTH", '"ground TRUTH" holds the gold triples of each dataset'),
        ("<b>bad</b>", r'System name "<b>bad</b>" is not valid \(name: Use letters'),
    ],
)
def test_refused_system_names(dataset, system_name, message):
    before = snapshot()

    with pytest.raises(ImportRefused, match=message):
        upload_outputs(dataset, TRIPLES_JSON, system_name=system_name)

    assert snapshot() == before


def test_an_unknown_dataset_is_refused_and_recorded():
    with pytest.raises(ImportRefused, match=r'There is no dataset "Missing"; nothing was imported\.'):
        upload_outputs("Missing", TRIPLES_JSON)

    assert last_failure().dataset_name == "Missing"


def test_lenient_mode_drops_bad_triples_and_stores_the_warnings(dataset):
    data = json.dumps({TURING: [["Turing", "born in"], ["Turing", "born in", "London"], ["", "x", "y"]]}).encode()

    summary = upload_outputs(dataset, data, lenient=True)

    assert outputs_of("GPT-4") == [
        (
            "t1",
            [["Turing", "born in", "London"]],
            "",
            [
                "triple 1 dropped: expected 3 items (subject, relation, object), got 2",
                "triple 3 dropped: subject is empty",
            ],
        )
    ]
    assert (summary.triples, summary.warnings, summary.upload.warnings) == (1, 2, 2)
    assert summary.message.endswith("1 triple, 2 parse warnings; 0 earlier outputs replaced.")


def test_same_file_twice_is_harmless_and_says_so(dataset):
    upload_outputs(dataset, TRIPLES_JSON)
    before = snapshot()

    again = upload_outputs(dataset, TRIPLES_JSON)

    assert again.unchanged and again.upload.outcome == "unchanged"
    assert again.message.startswith('"GPT-4" already has these outputs on dataset "People" (imported ')
    assert again.message.endswith("; nothing changed.")
    after = snapshot()
    assert after.pop("uploads") == [*before.pop("uploads"), (again.upload.pk, "unchanged")]
    assert after == before


def test_the_same_file_for_another_system_is_imported(dataset):
    upload_outputs(dataset, TRIPLES_JSON)

    other = upload_outputs(dataset, TRIPLES_JSON, system_name="LLaMA-2 70B")

    assert not other.unchanged
    assert len(outputs_of("LLaMA-2 70B")) == 2


def test_a_reupload_replaces_the_outputs_of_the_texts_it_mentions(dataset):
    first = upload_outputs(dataset, TRIPLES_JSON)
    second_file = json.dumps({HOPPER: [["Hopper", "invented", "COBOL"]], LOVELACE: []}).encode()

    second = upload_outputs(dataset, second_file)

    assert second.message.endswith("1 earlier output replaced.")
    assert outputs_of("GPT-4") == [
        ("t1", [["Turing", "born in", "London"]], "", []),
        ("t2", [["Hopper", "invented", "COBOL"]], "", []),
        ("t3", [], "", []),
    ]
    uploads = dict(Output.objects.filter(system__name="GPT-4").values_list("text__external_id", "upload"))
    assert uploads == {"t1": first.upload.pk, "t2": second.upload.pk, "t3": second.upload.pk}
    assert Output.objects.get(system__name="GPT-4", text__external_id="t2").updated_at > (
        Output.objects.get(system__name="GPT-4", text__external_id="t1").updated_at
    )


def test_going_back_to_an_earlier_file_imports_it_again(dataset):
    upload_outputs(dataset, TRIPLES_JSON)
    upload_outputs(dataset, json.dumps({TURING: []}).encode())

    back = upload_outputs(dataset, TRIPLES_JSON)

    assert not back.unchanged
    assert outputs_of("GPT-4")[0] == ("t1", [["Turing", "born in", "London"]], "", [])


def test_outputs_above_the_size_limit_are_refused(dataset, settings):
    settings.GENRES_MAX_UPLOAD_BYTES = 1024 * 1024
    before = snapshot()

    with pytest.raises(ImportRefused, match=r"larger than the upload limit of 1 MB \(2\.0 MB\)"):
        upload_outputs(dataset, b" " * (2 * 1024 * 1024))

    assert snapshot() == before
    assert Upload.objects.filter(outcome="failed", kind="outputs").count() == 1
