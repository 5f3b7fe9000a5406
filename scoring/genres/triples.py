"""What a triple is.

A triple is exactly three non-empty strings ``[subject, relation, object]``. Anything else
is not a triple: parsers drop it and record a parse warning (see ``postprocess``), and
strict importers refuse the file, naming the record and this reason.
"""

import re
from collections.abc import Sequence

# A triple as parsed: [subject, relation, object], each a non-empty string.
Triple = Sequence[str]
TRIPLE_LENGTH = 3
# PostgreSQL cannot store NUL in text, nor a lone UTF-16 surrogate (not a character: it has no
# UTF-8 form); SQLite's driver cannot write the latter either. Both are refused on every database.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
REPLACEMENT_CHARACTER = "\ufffd"


def unstorable_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored (a NUL character, a lone surrogate), or None when it can."""
    match = UNSTORABLE.search(text)
    if match is None:
        return None
    if match.group() == "\x00":
        return f"contains a NUL character (at character {match.start() + 1}), which cannot be stored"
    return (
        f"contains a lone surrogate \\u{ord(match.group()):04x} (at character {match.start() + 1}), "
        "which is not a Unicode character and cannot be stored"
    )


def storable(text: str) -> str:
    """``text`` with every character that cannot be stored replaced by U+FFFD, for messages."""
    return UNSTORABLE.sub(REPLACEMENT_CHARACTER, text)


def triple_problem(item: object) -> str | None:
    """The reason ``item`` is not a valid triple, or None when it is one."""
    if not isinstance(item, (list, tuple)):
        return f"expected a list of three strings, got {type(item).__name__}"
    if len(item) != TRIPLE_LENGTH:
        return f"expected 3 items (subject, relation, object), got {len(item)}"
    # One search over the three strings clears the usual triple; only a hit looks element by element.
    all_storable = all(isinstance(element, str) for element in item) and not UNSTORABLE.search("".join(item))
    for role, element in zip(("subject", "relation", "object"), item, strict=True):
        if not isinstance(element, str):
            return f"{role} is {type(element).__name__}, not a string"
        if not element.strip():
            return f"{role} is empty"
        if not all_storable and (problem := unstorable_problem(element)):
            # Refused here rather than failing mid-import, so every database behaves alike.
            return f"{role} {problem}"
    return None


def validate_triples(value: object) -> None:
    """Raise ValueError naming the first bad triple of a list of triples."""
    if not isinstance(value, list):
        raise ValueError(f"expected a list of triples, got {type(value).__name__}")
    for index, item in enumerate(value, start=1):
        problem = triple_problem(item)
        if problem:
            raise ValueError(f"triple {index}: {problem}")


def clean_triple(item: Triple) -> list[str]:
    """A valid triple as a list of stripped strings."""
    return [element.strip() for element in item]
