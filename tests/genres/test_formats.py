"""Reading the four file formats into records: detection, forcing, and every kind of bad input."""

import json

import pytest

from scoring.genres.formats import FormatError, read_dataset, read_outputs

TRIPLES_JSON = json.dumps(
    {
        "The Eiffel Tower was completed in 1889 in Paris, France.": [
            ["Eiffel Tower", "completed in", "1889"],
            ["Eiffel Tower", "located in", "Paris"],
        ],
        "Nothing to see here.": [],
    },
    indent=2,
).encode()

RAW_JSON = json.dumps(
    {
        "The Eiffel Tower was completed in 1889 in Paris, France.": (
            '[INST] Extract triples [/INST] [["Eiffel Tower", "completed in", "1889"], ["Eiffel Tower", "in"]]</s>'
        ),
        "Nothing to see here.": "There are no triples in this text.",
    }
).encode()

JSONL = b"\n".join(
    [
        b'{"id": "t1", "text": "Alan Turing was born in London.", "triples": [["Alan Turing", "born in", "London"]]}',
        b"",
        b'{"id": 2, "text": "Grace Hopper wrote COBOL.", "triples": []}',
    ]
)

CSV = (
    b"text_id,subject,relation,object\r\n"
    b"t1,Alan Turing,born in,London\r\n"
    b"t2,,,\r\n"
    b"t1,Alan Turing,studied at,Cambridge\r\n"
)


def records_of(parsed):
    return [(record.where, record.text, record.text_id, record.triples, record.warnings) for record in parsed.records]


def test_triples_json_is_detected():
    parsed = read_outputs(TRIPLES_JSON)

    assert parsed.format == "triples"
    assert records_of(parsed) == [
        (
            'record 1 ("The Eiffel Tower was completed in 1889…")',
            "The Eiffel Tower was completed in 1889 in Paris, France.",
            "",
            [["Eiffel Tower", "completed in", "1889"], ["Eiffel Tower", "located in", "Paris"]],
            [],
        ),
        ('record 2 ("Nothing to see here.")', "Nothing to see here.", "", [], []),
    ]


def test_raw_json_is_detected_and_replies_are_post_processed():
    parsed = read_outputs(RAW_JSON)

    assert parsed.format == "raw"
    first, second = parsed.records
    assert first.raw.startswith("[INST]")
    assert first.triples == [["Eiffel Tower", "completed in", "1889"]]
    assert first.warnings == ['dropped ["Eiffel Tower", "in"]: expected 3 items (subject, relation, object), got 2']
    assert (second.triples, second.warnings) == ([], [])


def test_jsonl_is_detected_with_ids_and_blank_lines():
    parsed = read_outputs(JSONL)

    assert parsed.format == "jsonl"
    assert records_of(parsed) == [
        ("line 1", "Alan Turing was born in London.", "t1", [["Alan Turing", "born in", "London"]], []),
        ("line 3", "Grace Hopper wrote COBOL.", "2", [], []),
    ]


def test_jsonl_output_named_by_id_only_with_a_raw_reply():
    parsed = read_outputs(b'{"id": "t1", "raw": "ASSISTANT: [\\"a\\", \\"b\\", \\"c\\"]"}')

    assert parsed.format == "jsonl"
    assert records_of(parsed) == [("line 1", "", "t1", [["a", "b", "c"]], [])]
    assert parsed.records[0].raw == 'ASSISTANT: ["a", "b", "c"]'


def test_jsonl_with_triples_and_raw_keeps_the_given_triples_and_the_reply():
    parsed = read_outputs(b'{"text": "T", "triples": [["x", "y", "z"]], "raw": "[\\"a\\", \\"b\\", \\"c\\"]"}')

    assert parsed.records[0].triples == [["x", "y", "z"]]
    assert parsed.records[0].raw == '["a", "b", "c"]'


def test_csv_is_detected_rows_are_grouped_and_empty_rows_record_empty_outputs():
    parsed = read_outputs(CSV)

    assert parsed.format == "csv"
    assert records_of(parsed) == [
        (
            'line 2 (text_id "t1")',
            "",
            "t1",
            [["Alan Turing", "born in", "London"], ["Alan Turing", "studied at", "Cambridge"]],
            [],
        ),
        ('line 3 (text_id "t2")', "", "t2", [], []),
    ]


@pytest.mark.parametrize(
    ("data", "format"),
    [(TRIPLES_JSON, "triples"), (RAW_JSON, "raw"), (JSONL, "jsonl"), (CSV, "csv")],
)
def test_each_format_can_be_forced_and_matches_detection(data, format):
    forced = read_outputs(data, format)

    assert forced.format == format
    assert records_of(forced) == records_of(read_outputs(data))


def test_forcing_the_wrong_format_names_the_problem():
    with pytest.raises(
        FormatError, match=r'record 1 \("The Eiffel Tower.*"\): expected the model\'s reply as a string, got an array'
    ):
        read_outputs(TRIPLES_JSON, "raw")


def test_one_line_triples_document_is_not_mistaken_for_jsonl():
    assert read_outputs(b'{"text": [["a", "b", "c"]]}').format == "triples"


def test_byte_order_mark_is_ignored():
    assert read_outputs(b"\xef\xbb\xbf" + TRIPLES_JSON).format == "triples"


def test_datasets_read_triples_json_and_jsonl_as_gold():
    assert read_dataset(TRIPLES_JSON).records[0].triples[0] == ["Eiffel Tower", "completed in", "1889"]
    assert read_dataset(JSONL).records[1].text_id == "2"


def test_dataset_jsonl_without_triples_means_no_gold():
    assert read_dataset(b'{"text": "Only a text."}').records[0].triples == []


@pytest.mark.parametrize(("data", "kind"), [(RAW_JSON, "raw generations JSON"), (CSV, "CSV")])
def test_datasets_refuse_raw_and_csv_files(data, kind):
    with pytest.raises(FormatError, match=f"this file looks like {kind}, which cannot be imported here"):
        read_dataset(data)


def test_dataset_jsonl_refuses_a_raw_reply():
    with pytest.raises(FormatError, match='line 1: a dataset holds gold "triples", not a "raw" reply'):
        read_dataset(b'{"text": "T", "raw": "[]"}')


def test_unknown_format_name():
    with pytest.raises(FormatError, match='unknown format "xml"; choose one of: auto, triples, jsonl'):
        read_dataset(TRIPLES_JSON, "xml")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"A text": [["a", "b", "c"]],}', "invalid JSON at line 1, column 30: Expecting property name"),
        (b'{"id": 1, "triples": []}\n{"id": 2, "triples": [}', "line 2: invalid JSON at column 23"),
        (b'[["a", "b", "c"]]', "expected a JSON object mapping each text to its triples or reply.*holds an array"),
        (b"just some words", "cannot tell the format: expected a JSON object, JSON Lines, or CSV"),
        (b"  \n ", "the file is empty"),
        (b"{}", "the file holds no texts"),
        (b'{"A": [["a", "b"]]}', r'record 1 \("A"\), triple 1: expected 3 items \(subject, relation, object\), got 2'),
        (b'{"A": [], "B": [["a", "b", "c", "d"]]}', r'record 2 \("B"\), triple 1: expected 3 items .*got 4'),
        (b'{"A": [["a", "b", "c"], ["a", 7, "c"]]}', r'record 1 \("A"\), triple 2: relation is int, not a string'),
        (b'{"A": [["a", "b", null]]}', r"triple 1: object is NoneType, not a string"),
        (b'{"A": [[" ", "b", "c"]]}', r'record 1 \("A"\), triple 1: subject is empty'),
        (b'{"A": ["a b c"]}', r"triple 1: expected a list of three strings, got str"),
        (b'{"A": {"s": "a"}}', r'record 1 \("A"\): expected a list of triples, got an object'),
        (b'{"A": [["a", "b", "c\\u0000"]]}', r"triple 1: object contains a NUL character"),
        (b'{" ": []}', r'record 1 \(""\): the text is empty'),
        (b'{"A": [], "B": [], "A": [["a", "b", "c"]]}', r'record 3 \("A"\): the same text is already record 1'),
        (b'{"A": [], " A ": []}', r'record 2 \("A"\): the same text as record 1 \("A"\)'),
        (b'{"text": "A", "triples": []}\n{"text": "A", "triples": []}', "line 2: the same text as line 1"),
        (b'{"id": "x", "triples": []}\n{"id": "x", "triples": []}', "line 2: the same id as line 1"),
        (b'{"text": "A", "text": "B", "triples": []}', 'line 1: the key "text" is given twice'),
        (b'{"text": "A", "triples": []}\n["A", []]', "line 2: expected an object like .*got an array"),
        (b'{"text": "A"}', 'line 1: give the output as "triples" \\(a list\\) or "raw" \\(the reply\\)'),
        (b'{"triples": []}\n{"triples": []}', 'line 1: give the text as "text" or its id as "id"'),
        (b'{"id": true, "triples": []}', "line 1: the id must be a string or a whole number, got true/false"),
        (b'{"text": 5, "triples": []}\n', 'line 1: the "text" must be a string, got a number'),
        (b"text_id,subject,relation\nt1,a,b\n", "cannot tell the format"),
        (
            b"text_id,subject,relation,object\nt1,a,b\n",
            r"line 2: expected 4 fields \(text_id, subject, relation, object\), got 3",
        ),
        (b"text_id,subject,relation,object\n,a,b,c\n", "line 2: the id is empty"),
        (b"text_id,subject,relation,object\nt1,a,b,c\nt1,a,,c\n", r'line 3 \(text_id "t1"\): relation is empty'),
        (b'text_id,subject,relation,object\nt1,"a,b,c\n', r"line 2: expected 4 fields .*got 2"),
    ],
)
def test_bad_input_names_the_record_and_the_reason(data, message):
    with pytest.raises(FormatError, match=message):
        read_outputs(data)


def test_csv_header_is_checked_when_csv_is_forced():
    with pytest.raises(
        FormatError, match='line 1: expected the header text_id,subject,relation,object, got "id,s,r,o"'
    ):
        read_outputs(b"id,s,r,o\n", "csv")


def test_non_utf8_bytes_are_named_by_offset_and_line():
    data = b'{"A": [],\n "Caf\xe9": []}'

    with pytest.raises(FormatError, match=r"not UTF-8 text: byte 15 \(line 2\) is 0xe9"):
        read_outputs(data)


def test_lenient_mode_drops_bad_triples_with_warnings():
    data = b'{"A": [["a", "b"], ["a", "b", "c"], ["a", "b", "c", "d"], ["", "b", "c"]]}'

    (record,) = read_outputs(data, lenient=True).records

    assert record.triples == [["a", "b", "c"]]
    assert record.warnings == [
        "triple 1 dropped: expected 3 items (subject, relation, object), got 2",
        "triple 3 dropped: expected 3 items (subject, relation, object), got 4",
        "triple 4 dropped: subject is empty",
    ]


def test_lenient_csv_names_the_line_of_each_dropped_row():
    data = b"text_id,subject,relation,object\nt1,a,b,c\nt1,a,,c\n"

    (record,) = read_outputs(data, lenient=True).records

    assert record.triples == [["a", "b", "c"]]
    assert record.warnings == ["line 3: triple dropped: relation is empty"]


def test_lenient_mode_still_refuses_a_wrong_shape():
    with pytest.raises(FormatError, match=r'record 1 \("A"\): expected a list of triples, got a string'):
        read_outputs(b'{"A": "x", "B": []}', "triples", lenient=True)


def test_html_in_texts_and_triples_is_kept_verbatim():
    data = json.dumps({"<script>alert('x')</script> & co": [["<b>bold</b>", "is", "&amp;"]]}).encode()

    (record,) = read_outputs(data).records

    assert record.text == "<script>alert('x')</script> & co"
    assert record.triples == [["<b>bold</b>", "is", "&amp;"]]


def test_line_separators_inside_jsonl_strings_do_not_split_lines():
    data = '{"text": "first\u2028second", "triples": []}\n{"text": "third", "triples": []}'.encode()

    assert [record.text for record in read_outputs(data).records] == ["first\u2028second", "third"]
