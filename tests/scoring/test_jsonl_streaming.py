"""JSON Lines files are read line by line from the file, with the same records and messages as
when they are read whole."""

import io

import pytest

from scoring.genres.formats import FormatError, read_dataset, read_outputs
from tests.scoring.import_fixtures import DATASET_JSONL


def test_a_file_gives_the_records_its_bytes_give():
    from_file = read_dataset(io.BytesIO(b"\xef\xbb\xbf" + DATASET_JSONL + b"\n\n"))
    assert from_file == read_dataset(b"\xef\xbb\xbf" + DATASET_JSONL + b"\n\n")
    assert from_file.format == "jsonl"
    assert [record.where for record in from_file.records] == ["line 1", "line 2", "line 3"]


def test_a_byte_that_is_not_utf8_is_named_by_offset_and_line_as_in_the_whole_file():
    data = DATASET_JSONL + b'\n{"id": "t4", "text": "caf\xe9", "triples": []}'
    with pytest.raises(FormatError) as whole:
        read_dataset(data)
    with pytest.raises(FormatError) as streamed:
        read_dataset(io.BytesIO(data))
    assert str(streamed.value) == str(whole.value)
    assert "(line 4)" in str(streamed.value)


def test_reading_progress_is_reported_in_bytes():
    calls = []
    data = b"".join(b'{"id": "%d", "triples": []}\n' % number for number in range(2500))
    read_outputs(io.BytesIO(data), progress=lambda *call: calls.append(call))
    size = len(data)
    assert calls[-1] == (size, size)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_other_formats_are_read_whole_from_a_file():
    assert read_outputs(io.BytesIO(b'{"A text.": [["a", "b", "c"]]}')).records[0].triples == [["a", "b", "c"]]
    csv = b"text_id,subject,relation,object\nt1,a,b,c\n"
    assert read_outputs(io.BytesIO(csv)).format == "csv"
