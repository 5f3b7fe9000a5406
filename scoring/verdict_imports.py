"""Importing per-triple verdicts produced elsewhere, and reading them back for the recorded judge.

``import_verdicts`` stores one system's verdicts on a dataset under a source name, all or
nothing: a file with one bad record (or naming a text the dataset lacks) changes nothing and
the refusal names the record. A new import replaces what that source held for the system on
the dataset for the aspects the file covers.

A triple that occurs twice in a text is judged twice: each occurrence keeps its own verdict
(the authors' judge ran at temperature 0.3 on each occurrence, and sometimes answered
differently; those triples are reported). A verdict on an item with an element that is neither
a string nor a number is skipped and reported: no judge of this app is asked about such an item.
"""

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from django.db import transaction

from scoring.genres.judges.recorded import RecordedVerdict, triple_key
from scoring.genres.triples import clean_triple, triple_problem
from scoring.genres.verdict_formats import (
    VerdictFormatError,
    parse_authors_factualness,
    parse_authors_granularity,
    parse_jsonl,
)
from scoring.models import Dataset, ImportedVerdict, Output, System, Text, text_hash


@dataclass(frozen=True)
class VerdictImport:
    source: str
    system: str
    verdicts: dict[str, int]  # aspect -> number stored
    texts: int
    disagreeing: list[str] = field(default_factory=list)  # "label: aspect triple", each occurrence its own verdict
    unjudgeable: list[str] = field(default_factory=list)  # gs verdicts on items no judge is asked about


def _load_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as verdict_file:
            return json.load(verdict_file)
    except (ValueError, RecursionError) as error:
        raise VerdictFormatError(f"{path}: not a JSON file ({error})") from None


def _text_finder(dataset: Dataset) -> Callable[[str], Text | None]:
    """text reference -> Text: an exact id first, else the text itself (stripped, as the dataset
    import stores it); None when unknown."""
    texts = list(Text.objects.filter(dataset=dataset))
    by_label = {text.label: text for text in texts}
    by_hash = {text.content_sha256: text for text in texts}
    return lambda reference: by_label.get(reference) or by_hash.get(text_hash(reference.strip()))


def read_verdicts(
    dataset: Dataset, system: System, layout: str, path: str, triples_path: str | None = None
) -> tuple[list[tuple[Text, RecordedVerdict]], list[str]]:
    """(Text, RecordedVerdict) pairs of a verdict file, and the skipped unjudgeable items (see
    ``parse_authors_granularity``); VerdictFormatError names the bad record."""
    find_text = _text_finder(dataset)
    unjudgeable: list[str] = []
    if layout == "jsonl":
        with open(path, encoding="utf-8") as verdict_file:
            verdicts = parse_jsonl(verdict_file)
    elif layout == "authors-gs":
        verdicts, unjudgeable = parse_authors_granularity(_load_json(path))
    elif triples_path:  # authors-fs aligned with the triples the authors judged
        given = _load_json(triples_path)
        if not isinstance(given, dict):
            raise VerdictFormatError(f"{triples_path}: an object from each text to its triples is expected")
        verdicts = parse_authors_factualness(_load_json(path), given.get)
    else:  # authors-fs aligned with the system's stored triples
        stored = dict(Output.objects.filter(system=system, text__dataset=dataset).values_list("text_id", "triples"))

        def triples_of(reference: str) -> list[list[str]] | None:
            text = find_text(reference)
            return stored.get(text.pk) if text else None

        verdicts = parse_authors_factualness(_load_json(path), triples_of)
    pairs = []
    for verdict in verdicts:
        text = find_text(verdict.text)
        if text is None:
            raise VerdictFormatError(f'the text "{verdict.text[:60]}" is not in dataset "{dataset.name}"')
        pairs.append((text, verdict))
    return pairs, unjudgeable


def verdict_rows(
    pairs: Iterable[tuple[Text, RecordedVerdict]], source: str, system: System
) -> tuple[list[ImportedVerdict], list[str]]:
    """One row per verdict, a triple judged again in a text being its next occurrence; and the
    triples whose occurrences got different verdicts (reported: each keeps its own)."""
    rows: dict[tuple[int, str, str, int], ImportedVerdict] = {}
    disagreeing: dict[tuple[int, str, str], str] = {}
    for text, verdict in pairs:
        if triple_problem(list(verdict.triple)) is None:
            # Stripped as the output import stores a triple, so that the scorer's lookup finds it.
            verdict = replace(verdict, triple=tuple(clean_triple(verdict.triple)))
        key = triple_key(verdict.triple)
        triple_hash = hashlib.sha256(key.encode("utf-8")).hexdigest()
        occurrence = 0
        while (text.pk, verdict.aspect, triple_hash, occurrence) in rows:
            first = rows[text.pk, verdict.aspect, triple_hash, 0]
            if (first.supported, first.reply, first.sub_triples) != (
                verdict.supported,
                verdict.reply,
                verdict.sub_triples,
            ):
                disagreeing[text.pk, verdict.aspect, triple_hash] = f"{text.label}: {verdict.aspect} {key}"
            occurrence += 1
        rows[text.pk, verdict.aspect, triple_hash, occurrence] = ImportedVerdict(
            source=source,
            system=system,
            text=text,
            aspect=verdict.aspect,
            triple=list(verdict.triple),
            triple_hash=triple_hash,
            supported=verdict.supported,
            reply=verdict.reply,
            sub_triples=verdict.sub_triples,
            occurrence=occurrence,
        )
    return list(rows.values()), list(disagreeing.values())


@transaction.atomic
def import_verdicts(
    dataset: Dataset,
    system: System,
    source: str,
    layout: str,
    path: str,
    triples_path: str | None = None,
) -> VerdictImport:
    pairs, unjudgeable = read_verdicts(dataset, system, layout, path, triples_path)
    rows, disagreeing = verdict_rows(pairs, source, system)
    aspects = sorted({row.aspect for row in rows})
    ImportedVerdict.objects.filter(source=source, system=system, text__dataset=dataset, aspect__in=aspects).delete()
    ImportedVerdict.objects.bulk_create(rows, batch_size=2000)
    counts = {aspect: sum(1 for row in rows if row.aspect == aspect) for aspect in aspects}
    texts = len({row.text_id for row in rows})
    return VerdictImport(source, system.name, counts, texts, disagreeing, unjudgeable)


def recorded_verdicts(source: str, system: System, text_ids: Iterable[int]) -> list[RecordedVerdict]:
    """The RecordedVerdicts of ``source`` on ``system``'s outputs of these texts."""
    rows = ImportedVerdict.objects.filter(source=source, system=system, text_id__in=text_ids).select_related("text")
    return [
        RecordedVerdict(
            row.aspect, row.text.content, tuple(row.triple), row.supported, row.reply, row.sub_triples, row.occurrence
        )
        for row in rows
    ]
