"""Reading per-triple verdicts produced elsewhere, in three layouts (see docs/formats.md):

- ``jsonl``: one object a line, ``{"text": ..., "triple": [s, r, o], "aspect": "fs" | "gs",
  "verdict": ...}``; an fs verdict is true or false, a gs verdict the judge's reply (a string)
  or the number of sub-triples (an integer);
- ``authors-fs``: the GENRES authors' factualness results, ``{text: {"results": [bool, ...]}}``,
  the booleans aligned with that text's triples (which the caller supplies);
- ``authors-gs``: their granularity results, ``{text: {triple as JSON: reply}}``; a number
  as an element is read as its JSON text (``rules.judged_item``), an item with another
  non-string element (which no judge here is asked about) is skipped and reported, not refused.

``text`` is a reference the caller resolves (the authors key by the text itself). Every parser
returns ``RecordedVerdict`` records or raises ``VerdictFormatError`` naming the record: a file
is taken whole or not at all.
"""

import json
from collections.abc import Callable, ItemsView, Iterable, Sequence
from typing import Any

from scoring.genres.judges.recorded import RecordedVerdict
from scoring.genres.rules import judged_item
from scoring.genres.triples import Triple

LAYOUTS = ("jsonl", "authors-fs", "authors-gs")
ASPECTS = ("fs", "gs")


class VerdictFormatError(ValueError):
    """A verdict file that cannot be read; the message names the record and the reason."""


def _storable(text: str, where: str) -> str:
    """``text``, unless a database could not store it (NUL, a lone surrogate)."""
    if "\x00" in text:
        raise VerdictFormatError(f"{where}: a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise VerdictFormatError(f"{where}: a lone surrogate (not a character)") from None
    return text


def _triple(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(element, str) for element in value):
        raise VerdictFormatError(f"{where}: a triple is a list of strings, not {json.dumps(value)[:80]}")
    return tuple(_storable(element, where) for element in value)


def parse_jsonl(lines: Iterable[str]) -> list[RecordedVerdict]:
    verdicts = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            record = json.loads(line)
        except (ValueError, RecursionError) as error:
            raise VerdictFormatError(f"{where}: not JSON ({error})") from None
        if not isinstance(record, dict) or not {"text", "triple", "aspect", "verdict"} <= record.keys():
            raise VerdictFormatError(f"{where}: an object with text, triple, aspect and verdict is expected")
        text, aspect, verdict = record["text"], record["aspect"], record["verdict"]
        if not isinstance(text, str) or not text:
            raise VerdictFormatError(f"{where}: text must be a non-empty string (the text's id or the text itself)")
        triple = _triple(record["triple"], where)
        if aspect == "fs" and isinstance(verdict, bool):
            verdicts.append(RecordedVerdict("fs", text, triple, supported=verdict))
        elif aspect == "gs" and isinstance(verdict, str):
            verdicts.append(RecordedVerdict("gs", text, triple, reply=_storable(verdict, where)))
        elif aspect == "gs" and isinstance(verdict, int) and not isinstance(verdict, bool) and verdict >= 0:
            verdicts.append(RecordedVerdict("gs", text, triple, sub_triples=verdict))
        elif aspect not in ASPECTS:
            raise VerdictFormatError(f"{where}: aspect must be fs or gs, not {json.dumps(aspect)[:40]}")
        else:
            expected = "true or false" if aspect == "fs" else "the judge's reply or a number of sub-triples"
            raise VerdictFormatError(f"{where}: an {aspect} verdict is {expected}, not {json.dumps(verdict)[:40]}")
    return verdicts


def _per_text(data: object, layout: str) -> ItemsView[str, Any]:
    if not isinstance(data, dict):
        raise VerdictFormatError(f"{layout}: the file holds one object keyed by text, not a {type(data).__name__}")
    return data.items()


def parse_authors_factualness(
    data: object, triples_of: Callable[[str], Sequence[Triple] | None]
) -> list[RecordedVerdict]:
    """``triples_of(text)``: that text's triples, which the booleans are aligned with (None: unknown text)."""
    verdicts = []
    for text, entry in _per_text(data, "authors-fs"):
        where = f"text {text[:60]!r}"
        results = entry.get("results") if isinstance(entry, dict) else None
        if not isinstance(results, list) or not all(isinstance(result, bool) for result in results):
            raise VerdictFormatError(f'{where}: "results" must be a list of true/false')
        triples = triples_of(text)
        if triples is None:
            raise VerdictFormatError(f"{where}: no such text, or no triples given for it")
        if len(triples) != len(results):
            raise VerdictFormatError(
                f"{where}: {len(results)} verdicts for {len(triples)} triples; give the triples they were "
                "judged on (--triples)"
            )
        verdicts += [
            RecordedVerdict("fs", text, judged_item(triple) or tuple(triple), supported=result)
            for triple, result in zip(triples, results, strict=True)
        ]
    return verdicts


def parse_authors_granularity(data: object) -> tuple[list[RecordedVerdict], list[str]]:
    """The verdicts, and the keys (``text: triple``) of items that are not three strings, which
    the authors judged but no judge of this app is asked about: skipped and reported."""
    verdicts: list[RecordedVerdict] = []
    unjudgeable: list[str] = []
    for text, replies in _per_text(data, "authors-gs"):
        where = f"text {text[:60]!r}"
        if not isinstance(replies, dict):
            raise VerdictFormatError(f"{where}: an object from each triple (as JSON) to the judge's reply is expected")
        for key, reply in replies.items():
            try:
                parsed = json.loads(key)
            except (ValueError, RecursionError):
                raise VerdictFormatError(f"{where}: the key {key[:60]!r} is not a triple in JSON") from None
            judged = judged_item(parsed) if isinstance(parsed, list) else None
            if isinstance(parsed, list) and len(parsed) == 3 and judged is None:
                unjudgeable.append(f"{text[:60]!r}: {key[:80]}")
                continue
            triple = _triple(list(judged) if judged else parsed, f"{where}, triple {key[:60]}")
            if not isinstance(reply, str):
                raise VerdictFormatError(f"{where}, triple {key[:60]}: the reply must be a string")
            verdicts.append(RecordedVerdict("gs", text, triple, reply=_storable(reply, f"{where}, triple {key[:60]}")))
    return verdicts, unjudgeable
