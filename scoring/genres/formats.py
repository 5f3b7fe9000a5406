"""Read uploaded files into records: one record per text, with its triples.

Four formats, told apart automatically or named by the caller:

- ``triples``: a JSON object mapping each text to its triples, ``{"<text>": [["s", "r", "o"], ...]}``
  (the files the GENRES authors published);
- ``raw``: a JSON object mapping each text to the model's whole reply, ``{"<text>": "<reply>"}``;
  ``postprocess`` turns each reply into triples;
- ``jsonl``: one JSON object a line, ``{"id": ..., "text": ..., "triples": [...]}``; for outputs
  ``"id"`` or ``"text"`` names the text and ``"raw"`` may hold a whole reply;
- ``csv``: a header ``text_id,subject,relation,object`` and one triple a row (outputs only);
  a row with a text id and three empty fields records an explicitly empty output.

Hostile input is refused like any other bad record: JSON nested deeper than the parser can
follow, whole numbers of more than ``MAX_NUMBER_DIGITS`` digits, and text that no database can
store (NUL characters, lone UTF-16 surrogates such as ``"\\ud800"``).

Strict by default: a malformed triple refuses the file with a ``FormatError`` naming the
record, the triple and the reason. With ``lenient=True`` such triples are dropped and kept
as parse warnings instead (for messy published files), as many per record as the
post-processor keeps per reply, and a count of the rest. Raw replies are always read leniently:
extracting what can be used from a messy reply is the post-processor's job.
"""

import codecs
import csv
import io
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from scoring.genres.postprocess import Warnings, extract_triples
from scoring.genres.rules import countable_malformed
from scoring.genres.triples import (
    clean_triple,
    storable,
    triple_problem,
    unstorable_problem,
)

AUTO = "auto"
TRIPLES = "triples"
RAW = "raw"
JSONL = "jsonl"
CSV = "csv"
DOCUMENT = "document"  # triples or raw: one JSON object keyed by text
DATASET_FORMATS = (TRIPLES, JSONL)
OUTPUT_FORMATS = (TRIPLES, RAW, JSONL, CSV)
FORMAT_NAMES = {
    TRIPLES: "triples JSON",
    RAW: "raw generations JSON",
    JSONL: "JSON Lines",
    CSV: "CSV",
}
CSV_HEADER = ["text_id", "subject", "relation", "object"]
PREVIEW_CHARS = 40
JSON_TYPES = {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number"}
# Whole numbers longer than this are refused while parsing: no id needs more, and Python refuses
# to convert numbers of over 4,300 digits to and from text.
MAX_NUMBER_DIGITS = 100


# progress(done, total): how far reading has come.
Progress = Callable[[int, int], object]
# A file's bytes, or a binary file open at its start.
Data = bytes | IO[bytes]


class FormatError(ValueError):
    """A file that cannot be imported; the message is the sentence shown to the user."""


@dataclass
class Record:
    """One text of an uploaded file.

    ``where`` locates it for messages ('record 3 ("The Eiffel Tower was…")', 'line 7').
    A record names its text by content (``text``), by id (``text_id``), or both.
    """

    where: str
    text: str = ""
    text_id: str = ""
    triples: list[list[str]] = field(default_factory=list)
    raw: str = ""
    warnings: list[str] = field(default_factory=list)
    malformed: list[list[Any]] = field(default_factory=list)  # dropped items the reference rules count


@dataclass
class ParsedFile:
    format: str
    records: list[Record]


def read_dataset(data: Data, format: str = AUTO, *, progress: Progress | None = None) -> ParsedFile:
    """Texts and gold triples from a triples JSON or JSON Lines file (always strict)."""
    return read(data, format, allowed=DATASET_FORMATS, for_outputs=False, lenient=False, progress=progress)


def read_outputs(
    data: Data, format: str = AUTO, *, lenient: bool = False, progress: Progress | None = None
) -> ParsedFile:
    """A system's triples per text, from any of the four formats."""
    return read(data, format, allowed=OUTPUT_FORMATS, for_outputs=True, lenient=lenient, progress=progress)


def read(
    data: Data,
    format: str,
    *,
    allowed: tuple[str, ...],
    for_outputs: bool,
    lenient: bool,
    progress: Progress | None = None,
) -> ParsedFile:
    """The records of ``data``: the file's bytes, or a binary file open at its start.

    A JSON Lines file is read line by line from a file, never whole; other formats are read
    whole. ``progress(done, total)``, when given, is called as records are read: in bytes for
    a JSON Lines file, in records otherwise.
    """
    if format != AUTO and format not in allowed:
        raise FormatError(f'unknown format "{format}"; choose one of: {", ".join((AUTO, *allowed))}')
    report: Progress = progress or (lambda done, total: None)
    if not isinstance(data, bytes):
        if format == JSONL or (format == AUTO and JSONL in allowed and file_is_jsonl(data)):
            records = parse_jsonl(file_lines(data, report), for_outputs=for_outputs, lenient=lenient)
            return checked_records(JSONL, records)
        data = data.read()
    text = decode(data)
    document = None
    if format == AUTO:
        format = detect_layout(text)
        if format == DOCUMENT:
            document = load_document(text)
            # The first value tells triples (a list) from raw replies (a string).
            format = RAW if document and isinstance(next(iter(document.values())), str) else TRIPLES
        if format not in allowed:
            raise FormatError(
                f"this file looks like {FORMAT_NAMES[format]}, which cannot be imported here; "
                f"use {' or '.join(FORMAT_NAMES[name] for name in allowed)}"
            )
    if format == JSONL:
        records = parse_jsonl(text_lines(text, report), for_outputs=for_outputs, lenient=lenient)
    elif format == CSV:
        records = parse_csv(text, lenient=lenient)
    else:
        records = parse_json_document(document or load_document(text), format, lenient=lenient, progress=report)
    return checked_records(format, records)


def checked_records(format: str, records: list[Record]) -> ParsedFile:
    if not records:
        raise FormatError("the file holds no texts")
    check_each_text_once(records)
    return ParsedFile(format, records)


PROGRESS_EVERY = 1000  # records between two progress calls


def text_lines(text: str, progress: Progress) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a whole text."""
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if number % PROGRESS_EVERY == 0:
            progress(number, len(lines))
        yield number, line
    progress(len(lines), len(lines))


def file_lines(handle: IO[bytes], progress: Progress) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a binary file, decoded one line at a time."""
    handle.seek(0, io.SEEK_END)
    total = handle.tell()
    handle.seek(0)
    offset = 0
    # readline, not iteration: some file wrappers split lines at "\r" too.
    for number, raw in enumerate(iter(handle.readline, b""), start=1):
        skipped = len(codecs.BOM_UTF8) if number == 1 and raw.startswith(codecs.BOM_UTF8) else 0
        try:
            line = raw[skipped:].decode("utf-8")
        except UnicodeDecodeError as error:
            raise not_utf8(offset + skipped + error.start, number, raw[skipped + error.start]) from None
        offset += len(raw)
        if number % PROGRESS_EVERY == 0:
            progress(offset, total)
        yield number, line
    progress(total, total)


def file_is_jsonl(handle: IO[bytes]) -> bool:
    """Whether ``detect_layout`` would call the file JSON Lines, from its first line and what follows.

    Leaves the file at its start. Anything unusual (no UTF-8, an empty file) says no: the file is
    then read whole, and the whole-file path explains the problem.
    """
    try:
        first_line = b""
        while not first_line.strip():
            first_line = handle.readline()
            if not first_line:
                return False
        follows = handle.read(64 * 1024).strip()
        text = first_line.decode("utf-8-sig").strip()
    except UnicodeDecodeError:
        return False
    finally:
        handle.seek(0)
    return text.startswith("{") and looks_like_jsonl(text, bool(follows))


def decode(data: bytes) -> str:
    """The file as text; a byte that is not UTF-8 is named by offset and line."""
    skipped = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return data[skipped:].decode("utf-8")
    except UnicodeDecodeError as error:
        offset = skipped + error.start
        raise not_utf8(offset, data.count(b"\n", 0, offset) + 1, data[offset]) from None


def not_utf8(offset: int, line: int, byte: int) -> FormatError:
    return FormatError(
        f"the file is not UTF-8 text: byte {offset} (line {line}) is 0x{byte:02x}; save it as UTF-8 and upload it again"
    )


def detect_layout(text: str) -> str:
    """JSONL, CSV, or DOCUMENT (a JSON object keyed by text: triples or raw).

    JSON Lines when the first line is a whole JSON object and either more lines follow (a
    document cannot end there) or it names its text with a string "text" or "id"; a
    document otherwise, or when the file is a JSON array (to say it has the wrong shape).
    CSV when the first line is the CSV header.
    """
    stripped = text.strip()
    if not stripped:
        raise FormatError("the file is empty")
    first_line = stripped.split("\n", 1)[0].strip()
    if stripped[0] == "[":
        return DOCUMENT  # A JSON array: loading it as a document explains the expected shape.
    if stripped[0] != "{":
        if [cell.strip().lower() for cell in first_line.split(",")] == CSV_HEADER:
            return CSV
        raise FormatError(
            f"cannot tell the format: expected a JSON object, JSON Lines, or CSV with the header {','.join(CSV_HEADER)}"
        )
    return JSONL if looks_like_jsonl(first_line, "\n" in stripped) else DOCUMENT


def looks_like_jsonl(first_line: str, more_follows: bool) -> bool:
    """Whether a file starting with ``first_line`` (which starts with "{") is JSON Lines."""
    try:
        first = json.loads(first_line, parse_int=bounded_int)
    except TooManyDigits as error:
        raise FormatError(f"line 1: {error}") from None
    except RecursionError:
        raise FormatError("line 1: the JSON is nested too deeply") from None
    except ValueError:
        return False  # A pretty-printed document: its first line is not a whole object.
    return isinstance(first, dict) and (
        more_follows or any(isinstance(first.get(key), (str, int)) for key in ("text", "id"))
    )


def load_json(text: str, where: str) -> Any:
    """A parsed JSON value; invalid JSON, and a key given twice in the outer object, are named by position."""
    repeats: dict[int, tuple[str, int, int] | None] = {}

    def keep_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        value = dict(pairs)
        if len(value) < len(pairs):
            repeats[id(value)] = first_repeat(pairs)
        return value

    try:
        value = json.loads(text, object_pairs_hook=keep_pairs, parse_int=bounded_int)
    except TooManyDigits as error:
        place = where or f"line {text.count(chr(10), 0, text.find(error.digits)) + 1}"
        raise FormatError(f"{place}: {error}") from None
    except json.JSONDecodeError as error:
        place = f"{where}: " if where else ""
        line = "" if where else f"line {error.lineno}, "
        raise FormatError(f"{place}invalid JSON at {line}column {error.colno}: {error.msg}") from None
    except RecursionError:
        raise FormatError(f"{where or 'the file'}: the JSON is nested too deeply") from None
    # Repeats in inner objects need no message of their own: no format allows objects there.
    if (repeat := repeats.get(id(value))) is not None:
        key, first, second = repeat
        if where:
            raise FormatError(f'{where}: the key "{preview(key)}" is given twice')
        raise FormatError(
            f'record {second} ("{preview(key)}"): the same text is already record {first}; '
            "each text may appear only once"
        )
    return value


class TooManyDigits(ValueError):
    def __init__(self, digits: str) -> None:
        super().__init__(
            f"a number of {len(digits):,} digits ({digits[:12]}…); whole numbers may have at most {MAX_NUMBER_DIGITS}"
        )
        self.digits = digits


def bounded_int(digits: str) -> int:
    """``json``'s parse_int: refuses a huge number by its length, before converting it."""
    if len(digits.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise TooManyDigits(digits)
    return int(digits)


def first_repeat(pairs: Iterable[tuple[str, Any]]) -> tuple[str, int, int] | None:
    """The first key given twice, with the 1-based positions of its two entries."""
    first_seen: dict[str, int] = {}
    for number, (key, _) in enumerate(pairs, start=1):
        if key in first_seen:
            return key, first_seen[key], number
        first_seen[key] = number
    return None


def load_document(text: str) -> dict[str, Any]:
    document = load_json(text, "")
    if not isinstance(document, dict):
        raise FormatError(
            'expected a JSON object mapping each text to its triples or reply, like {"<text>": [...]}, '
            f"but the file holds {json_type(document)}"
        )
    return document


def parse_json_document(document: dict[str, Any], format: str, *, lenient: bool, progress: Progress) -> list[Record]:
    records = []
    for number, (content, value) in enumerate(document.items(), start=1):
        if number % PROGRESS_EVERY == 0:
            progress(number, len(document))
        record = Record(where=f'record {number} ("{preview(content)}")')
        record.text = checked_text(content, record.where, "text")
        if format == RAW:
            record.raw = checked_reply(value, record.where)
            record.triples, record.warnings = extract_triples(record.raw)
        else:
            record.triples, record.warnings, record.malformed = read_triples(value, record.where, lenient=lenient)
        records.append(record)
    return records


def parse_jsonl(lines: Iterable[tuple[int, str]], *, for_outputs: bool, lenient: bool) -> list[Record]:
    """The records of ``(line number, line)`` pairs."""
    records = []
    for number, line in lines:
        if not line.strip():
            continue
        where = f"line {number}"
        entry = load_json(line, where)
        if not isinstance(entry, dict):
            raise FormatError(
                f'{where}: expected an object like {{"text": ..., "triples": [...]}}, got {json_type(entry)}'
            )
        record = Record(where=where)
        if "text" in entry:
            record.text = checked_text(entry["text"], where, '"text"')
        elif not for_outputs:
            raise FormatError(f'{where}: "text" is missing')
        if "id" in entry:
            record.text_id = checked_id(entry["id"], where)
        elif not record.text:
            raise FormatError(f'{where}: give the text as "text" or its id as "id"')
        if "raw" in entry and not for_outputs:
            raise FormatError(f'{where}: a dataset holds gold "triples", not a "raw" reply')
        if "raw" in entry:
            record.raw = checked_reply(entry["raw"], where)
        if "triples" in entry:
            record.triples, record.warnings, record.malformed = read_triples(entry["triples"], where, lenient=lenient)
        elif record.raw:
            record.triples, record.warnings = extract_triples(record.raw)
        elif for_outputs:
            raise FormatError(f'{where}: give the output as "triples" (a list) or "raw" (the reply)')
        records.append(record)
    return records


def parse_csv(text: str, *, lenient: bool) -> list[Record]:
    reader = csv.reader(io.StringIO(text, newline=""))
    records: dict[str, Record] = {}
    warnings: dict[str, Warnings] = {}
    try:
        header = [cell.strip().lower() for cell in next(reader, [])]
        if header != CSV_HEADER:
            raise FormatError(f'line 1: expected the header {",".join(CSV_HEADER)}, got "{preview(",".join(header))}"')
        for row in reader:
            where = f"line {reader.line_num}"
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(CSV_HEADER):
                raise FormatError(f"{where}: expected 4 fields ({', '.join(CSV_HEADER)}), got {len(row)}")
            text_id, *triple = row
            text_id = checked_id(text_id, where)
            named = f'{where} (text_id "{preview(text_id)}")'
            # A text's record is named by its first row; its warnings name their own rows.
            record = records.setdefault(text_id, Record(where=named, text_id=text_id))
            if not any(element.strip() for element in triple):
                continue  # The text's output is explicitly empty.
            problem = triple_problem(triple)
            if problem and not lenient:
                raise FormatError(f"{named}: {problem}")
            if problem:
                warnings.setdefault(text_id, Warnings()).add(
                    lambda where, problem: f"{where}: triple dropped: {problem}", where, problem
                )
            else:
                record.triples.append(clean_triple(triple))
    except csv.Error as error:
        raise FormatError(f"line {reader.line_num}: not valid CSV: {error}") from None
    for text_id, dropped in warnings.items():
        records[text_id].warnings = dropped.as_list()
    return list(records.values())


def read_triples(value: object, where: str, *, lenient: bool) -> tuple[list[list[str]], list[str], list[list[Any]]]:
    """Valid triples of a record, warnings for those dropped in lenient mode, and the dropped
    items that the reference rules count (``rules.countable_malformed``)."""
    if not isinstance(value, list):
        raise FormatError(f"{where}: expected a list of triples, got {json_type(value)}")
    triples: list[list[str]] = []
    warnings = Warnings()
    malformed: list[list[Any]] = []
    for number, item in enumerate(value, start=1):
        problem = triple_problem(item)
        if problem is None:
            triples.append(clean_triple(item))
        elif lenient:
            warnings.add(lambda number, problem: f"triple {number} dropped: {problem}", number, problem)
            if countable_malformed(item):
                malformed.append(list(item))
        else:
            raise FormatError(f"{where}, triple {number}: {problem}")
    return triples, warnings.as_list(), malformed


def checked_text(value: object, where: str, name: str) -> str:
    if not isinstance(value, str):
        raise FormatError(f"{where}: the {name} must be a string, got {json_type(value)}")
    if not value.strip():
        raise FormatError(f"{where}: the {name} is empty")
    if problem := unstorable_problem(value):
        raise FormatError(f"{where}: the {name} {problem}")
    return value.strip()


def checked_reply(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise FormatError(f"{where}: expected the model's reply as a string, got {json_type(value)}")
    if problem := unstorable_problem(value):
        raise FormatError(f"{where}: the reply {problem}")
    return value


def checked_id(value: object, where: str) -> str:
    # Booleans are ints to Python, but never an id.
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise FormatError(f"{where}: the id must be a string or a whole number, got {json_type(value)}")
    return checked_text(str(value), where, "id")


def check_each_text_once(records: Iterable[Record]) -> None:
    """Refuse a second record for one text (texts compare after trimming surrounding space)."""
    for attribute, name in (("text", "text"), ("text_id", "id")):
        first_places: dict[str, str] = {}
        for record in records:
            key = getattr(record, attribute)
            if key in first_places:
                raise FormatError(
                    f"{record.where}: the same {name} as {first_places[key]}; each text may appear only once"
                )
            if key:
                first_places[key] = record.where


def json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return JSON_TYPES.get(type(value), type(value).__name__)


def preview(text: object) -> str:
    """The start of a text, on one line, to name a record in messages (which must be storable too)."""
    shown = storable(" ".join(str(text).split()))
    return shown if len(shown) <= PREVIEW_CHARS else shown[: PREVIEW_CHARS - 1].rstrip() + "…"
