"""The practice round of a triple check: its file and its scoring (pure, no Django).

A file is a JSON array of objects, or JSON Lines with one object a line (as the pairwise
practice file, ``annotation.practice``)::

    {"text": "...", "triple": ["s", "r", "o"], "supported": false, "facts": 1, "reason": "..."}

``supported`` and ``facts`` (1 to 5) are the reference answers of the two questions; ``reason``
says why, shown after each answer. An attempt scores one point per question answered as the
reference, and passes at the campaign's pass mark of the 2 × items points.
"""

from dataclasses import dataclass

from annotation.practice import file_values, record_object
from annotation.triple_checks.statistics import FACT_COUNTS
from scoring.genres.formats import FormatError, read_triples

KEYS = {"text", "triple", "supported", "facts", "reason"}
QUESTIONS_PER_ITEM = 2


@dataclass(frozen=True)
class TriplePracticeRecord:
    text: str
    triple: list[str]
    supported: bool
    facts: int
    reason: str


def read_triple_practice_file(data: bytes) -> list[TriplePracticeRecord]:
    """The records of a triple check's practice file; ``FormatError`` naming the record and the reason."""
    return [practice_record(value, where) for value, where in file_values(data)]


def practice_record(value: object, where: str) -> TriplePracticeRecord:
    value, text, reason = record_object(value, where, KEYS)
    triples, _, _ = read_triples([value["triple"]], f"{where}, triple", lenient=False)
    if not isinstance(value["supported"], bool):
        raise FormatError(f"{where}: supported must be true or false")
    facts = value["facts"]
    if not isinstance(facts, int) or isinstance(facts, bool) or facts not in FACT_COUNTS:
        raise FormatError(f"{where}: facts must be a whole number from {FACT_COUNTS[0]} to {FACT_COUNTS[-1]}")
    return TriplePracticeRecord(text, triples[0], value["supported"], facts, reason)


def points(reference: tuple[bool, int], answer: tuple[bool, int]) -> int:
    """Questions of one practice triple answered as the reference: 0, 1 or 2."""
    return sum(given == expected for given, expected in zip(answer, reference, strict=True))


def total_points(items: int) -> int:
    return QUESTIONS_PER_ITEM * items
