"""The practice round's file of items and its scoring (pure, no Django).

A practice file is a JSON array of objects, or JSON Lines with one object a line::

    {"text": "...", "a": [["s", "r", "o"], ...], "b": [...],
     "reference": {"ts": "a", "us": "tie", ...}, "reason": "..."}

``a`` is shown on the left, ``b`` on the right; ``reference`` gives the expected answer ("a",
"b" or "tie") of one or more aspects; ``reason`` says why, shown after each answer.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scoring.genres.formats import FormatError, checked_text, json_type, load_json, read_triples

ASPECTS = ("ts", "us", "fs", "gs", "cs")
ANSWERS = ("a", "b", "tie")
KEYS = {"text", "a", "b", "reference", "reason"}
MAX_FILE_BYTES = 1_000_000
MAX_ITEMS = 50
MAX_TEXT_CHARS = 20_000
MAX_TRIPLES = 200
MAX_REASON_CHARS = 2_000


@dataclass(frozen=True)
class PracticeRecord:
    text: str
    triples_a: list[list[str]]
    triples_b: list[list[str]]
    reference: dict[str, str]  # aspect -> "a", "b" or "tie"
    reason: str


def read_practice_file(data: bytes) -> list[PracticeRecord]:
    """The :class:`PracticeRecord` list of a practice file's bytes; ``FormatError`` naming the
    record and the reason otherwise."""
    return [practice_record(value, place) for value, place in file_values(data)]


def file_values(data: bytes) -> list[tuple[object, str]]:
    """The JSON values of a practice file (a JSON array, or JSON Lines), each with where it
    stands ("record 2", "line 5"); ``FormatError`` for a file too large, empty or too long."""
    if len(data) > MAX_FILE_BYTES:
        raise FormatError(f"the file is larger than {MAX_FILE_BYTES // 1_000_000} MB")
    try:
        content = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FormatError("the file is not UTF-8 text") from None
    stripped = content.strip()
    if not stripped:
        raise FormatError("the file is empty")
    if stripped.startswith("["):
        values = load_json(stripped, "")
        where = [f"record {number}" for number in range(1, len(values) + 1)]
    else:
        lines = [(number, line) for number, line in enumerate(content.splitlines(), start=1) if line.strip()]
        values = [load_json(line, f"line {number}") for number, line in lines]
        where = [f"line {number}" for number, _ in lines]
    if not values:
        raise FormatError("the file holds no practice items")
    if len(values) > MAX_ITEMS:
        raise FormatError(f"{len(values)} practice items: at most {MAX_ITEMS}")
    return list(zip(values, where, strict=True))


def record_object(value: object, where: str, keys: set[str]) -> tuple[dict[str, Any], str, str]:
    """A practice record's object with exactly ``keys``, its text and its reason, checked (a
    pairwise record here, a triple check's in ``annotation.triple_checks.practice``)."""
    if not isinstance(value, dict):
        raise FormatError(f"{where}: expected an object, got {json_type(value)}")
    missing, unknown = keys - set(value), set(value) - keys
    if missing:
        raise FormatError(f"{where}: missing {', '.join(sorted(missing))}")
    if unknown:
        raise FormatError(f"{where}: unknown key {', '.join(sorted(unknown))} (expected {', '.join(sorted(keys))})")
    text = checked_text(value["text"], where, "text")
    if len(text) > MAX_TEXT_CHARS:
        raise FormatError(f"{where}: the text is longer than {MAX_TEXT_CHARS:,} characters")
    reason = checked_text(value["reason"], where, "reason")
    if len(reason) > MAX_REASON_CHARS:
        raise FormatError(f"{where}: the reason is longer than {MAX_REASON_CHARS:,} characters")
    return value, text, reason


def practice_record(value: object, where: str) -> PracticeRecord:
    value, text, reason = record_object(value, where, KEYS)
    sides: dict[str, list[list[str]]] = {}
    for side in ("a", "b"):
        triples, _, _ = read_triples(value[side], f"{where}, {side}", lenient=False)
        if len(triples) > MAX_TRIPLES:
            raise FormatError(f"{where}, {side}: more than {MAX_TRIPLES} triples")
        sides[side] = triples
    reference = value["reference"]
    if not isinstance(reference, dict) or not reference:
        raise FormatError(f"{where}: reference must be an object of aspect codes and answers, with at least one")
    for aspect, answer in reference.items():
        if aspect not in ASPECTS:
            raise FormatError(f"{where}: unknown aspect {aspect[:20]!r} in reference (expected {', '.join(ASPECTS)})")
        if answer not in ANSWERS:
            raise FormatError(f'{where}: the reference answer of {aspect} must be "a", "b" or "tie"')
    return PracticeRecord(text, sides["a"], sides["b"], dict(reference), reason)


def matches(reference: Mapping[str, str], answers: Mapping[str, str]) -> int:
    """How many of the reference's aspects ``answers`` (aspect -> "a", "b" or "tie") matched."""
    return sum(answers.get(aspect) == answer for aspect, answer in reference.items())


def passed(correct: int, total: int, pass_mark: float) -> bool:
    """Whether an attempt with ``correct`` of ``total`` reference answers reaches ``pass_mark`` (0–1)."""
    return total > 0 and correct / total >= pass_mark - 1e-9
