"""Import datasets and system outputs from uploaded files, all or nothing.

Both importers follow the same steps: refuse a file above ``GENRES_MAX_UPLOAD_BYTES`` by
its size before reading it, hash it, parse it with ``scoring.genres.formats`` (JSON Lines
line by line, without reading the file whole) and check every record, all before anything is
written. A new dataset, or the outputs of a new system, is then written in batches of short
transactions, hidden until the last one marks it complete (``scoring.import_batches``): on SQLite
each transaction holds the database's one write lock, and one transaction for a 200,000-text file
kept every annotator's save waiting for a minute. Outputs of a system that exists already replace
what readers see, so they are written in one transaction, as before.
``on_progress(stage, done, total)``, when given, hears how far reading ("reading", in bytes
or records) and storing ("storing", in rows) have gone; big uploads run in an RQ job that
reports it (``scoring.import_jobs``). Any problem raises ``ImportRefused`` with a message naming
the record and the reason; the database is left as it was except for an ``Upload`` row
recording the failure. Uploading the same file again is harmless and says so.
"""

import hashlib
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import DataError, IntegrityError, transaction
from django.dispatch import Signal
from django.utils import timezone

from scoring.genres import formats
from scoring.genres.triples import storable, unstorable_problem
from scoring.import_batches import ImportVanished, abandoned, discard, staged
from scoring.models import Dataset, Output, System, Text, Upload, text_hash
from scoring.sql import update_in_place
from scoring.upload_handlers import size_limit_message

# Sent inside the import's last transaction when it stored something, with ``dataset``: what reads
# the data (the leaderboards) listens, so that this app never imports it.
dataset_imported = Signal()
outputs_imported = Signal()

logger = logging.getLogger(__name__)


# on_progress(stage, done, total): "reading" then "storing", as an import goes.
StageProgress = Callable[[str, int, int], object]
# What an import writes, once its file is read and checked: in batches or in one transaction.
Write = Callable[[], "ImportSummary"]


class ImportRefused(Exception):
    """An import that changed nothing; the message names the record and the reason."""


def refused(reason: str) -> ImportRefused:
    return ImportRefused(f"{reason[:1].upper()}{reason[1:]}; nothing was imported.")


@dataclass
class ImportSummary:
    upload: Upload
    texts: int
    triples: int
    warnings: int
    unchanged: bool
    message: str
    # Each warning prefixed with the record it belongs to.
    warning_messages: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "texts": self.texts,
            "triples": self.triples,
            "warnings": self.warnings,
            "unchanged": self.unchanged,
            "upload": self.upload.pk,
        }

    def report(self, shown_warnings: int = 5) -> str:
        """The message and the first few warnings, as lines of text."""
        lines = [self.message]
        lines += [f"  - {warning}" for warning in self.warning_messages[:shown_warnings]]
        hidden = len(self.warning_messages) - shown_warnings
        if hidden > 0:
            lines.append(f"  … and {hidden} more warning{plural(hidden)}")
        return "\n".join(lines)


# Rows written per INSERT (and per progress report) while storing.
STORE_BATCH = 5000


def ignore_progress(stage: str, done: int, total: int) -> None:
    pass


def import_dataset(
    source: Any,
    *,
    file_name: str,
    name: str,
    level: str = "sentence",
    domain: str = "general",
    description: str = "",
    user: User | None = None,
    format: str = "auto",
    upload: Upload | None = None,
    on_progress: StageProgress = ignore_progress,
) -> ImportSummary:
    """Create dataset ``name`` with the texts and gold triples of ``source``.

    Gold triples also become the outputs of the "Ground truth" system, so the gold can be
    scored and judged like any other system. ``upload`` is the queued Upload a job imports.
    """
    upload = upload or new_upload(Upload.Kind.DATASET, source, file_name, name, "", user, format)

    def prepare() -> Write:
        data = read_source(source, upload)
        check_storable({"dataset name": name, "description": description})
        check_not_importing(Dataset, name, f'dataset "{name}"')
        if Dataset.objects.filter(name=name).exists():
            previous = last_import(upload)
            if previous and previous.sha256 == upload.sha256:
                return lambda: unchanged(upload, previous, f'Dataset "{name}" already holds this file')
            raise refused(f'dataset "{name}" already exists with other content; import this file under another name')
        parsed = parse(formats.read_dataset, data, format, progress=reading(on_progress))
        for record in parsed.records:
            check_external_id(record)
        dataset = Dataset(name=name, level=level, domain=domain, description=description)
        check_model(dataset, f'dataset "{name}"')
        return lambda: write(dataset, parsed)

    def write(dataset: Dataset, parsed: formats.ParsedFile) -> ImportSummary:
        records = parsed.records
        with staged(dataset) as batches:
            texts = (
                Text(
                    dataset=dataset,
                    position=position,
                    external_id=record.text_id,
                    content=record.text,
                    content_sha256=text_hash(record.text),
                    gold=record.triples,
                )
                for position, record in enumerate(records)
            )
            batches.store(Text, texts, len(records), on_progress)
            text_pks = dict(Text.objects.filter(dataset=dataset).values_list("position", "pk"))
            with_gold = [position for position, record in enumerate(records) if record.triples]
            count(upload, parsed)
            upload.message = (
                f'Imported dataset "{name}": {upload.texts} text{plural(upload.texts)}, '
                f"{upload.triples} gold triple{plural(upload.triples)} ({len(with_gold)} with gold triples)."
            )
            upload.save_running()
            ground_truth = System.ground_truth()
            gold_outputs = (
                Output(
                    system=ground_truth, text_id=text_pks[position], triples=records[position].triples, upload=upload
                )
                for position in with_gold
            )
            batches.store(Output, gold_outputs, len(with_gold), ignore_progress)
            with batches.finishing():
                upload.record_imported()
                dataset_imported.send(sender=Dataset, dataset=dataset)
            upload.outcome = Upload.Outcome.IMPORTED
        return summary(upload, parsed)

    return attempt(upload, prepare)


def import_outputs(
    source: Any,
    *,
    file_name: str,
    dataset: Dataset | str,
    system_name: str,
    format: str = "auto",
    user: User | None = None,
    lenient: bool = False,
    family: str = "",
    upload: Upload | None = None,
    on_progress: StageProgress = ignore_progress,
) -> ImportSummary:
    """Store the outputs of system ``system_name`` on ``dataset`` (a Dataset or its name).

    Creates the system when new. Texts the file mentions get their output replaced; the
    outputs of other texts stay as they were. ``upload`` is the queued Upload a job imports.
    """
    dataset_name = dataset.name if isinstance(dataset, Dataset) else str(dataset)
    upload = upload or new_upload(Upload.Kind.OUTPUTS, source, file_name, dataset_name, system_name, user, format)

    def prepare() -> Write:
        data = read_source(source, upload)
        target = dataset if isinstance(dataset, Dataset) else Dataset.objects.filter(name=dataset_name).first()
        if target is None:
            raise refused(f'there is no dataset "{dataset_name}"')
        check_storable({"system name": system_name, "family": family})
        system = system_for_upload(system_name, family)
        previous = last_import(upload)
        if system.pk and previous and previous.sha256 == upload.sha256 and previous.outputs.exists():
            already = f'"{system_name}" already has these outputs on dataset "{dataset_name}"'
            return lambda: unchanged(upload, previous, already)
        parsed = parse(formats.read_outputs, data, format, lenient=lenient, progress=reading(on_progress))
        text_pks = resolve_texts(target, parsed.records)
        return lambda: write(target, system, parsed, text_pks)

    def write(target: Dataset, system: System, parsed: formats.ParsedFile, text_pks: list[int]) -> ImportSummary:
        if system.pk is None:  # replaces nothing: written in batches, hidden until complete
            with staged(system) as batches:
                describe(target, system, parsed, 0)
                upload.save_running()
                created, _ = outputs_to_store(system, {}, upload, parsed, text_pks)
                batches.store(Output, created, len(created), on_progress)
                with batches.finishing():
                    upload.record_imported()
                    outputs_imported.send(sender=Output, dataset=target)
                upload.outcome = Upload.Outcome.IMPORTED
            return summary(upload, parsed)
        with transaction.atomic():
            system.save()
            existing = {output.text_id: output for output in Output.objects.filter(system=system, text__dataset=target)}
            describe(target, system, parsed, sum(text_pk in existing for text_pk in text_pks))
            upload.save()
            created, replaced = outputs_to_store(system, existing, upload, parsed, text_pks)
            store(Output.objects.bulk_create, created, on_progress)
            store(update_outputs, replaced, on_progress)
            outputs_imported.send(sender=Output, dataset=target)
        return summary(upload, parsed)

    def describe(target: Dataset, system: System, parsed: formats.ParsedFile, replacing: int) -> None:
        count(upload, parsed)
        upload.message = (
            f'Imported {upload.texts} output{plural(upload.texts)} of "{system.name}" on dataset "{target.name}": '
            f"{upload.triples} triple{plural(upload.triples)}, "
            f"{upload.warnings} parse warning{plural(upload.warnings)}; "
            f"{replacing} earlier output{plural(replacing)} replaced."
        )

    return attempt(upload, prepare)


def new_upload(
    kind: str,
    source: Any,
    file_name: str,
    dataset_name: str,
    system_name: str,
    user: User | None,
    format: str,
) -> Upload:
    # Field lengths and characters are enforced here so that even a refusal of absurd input
    # (a file name that is not valid Unicode, say) can be recorded.
    return Upload(
        kind=kind,
        dataset_name=storable(dataset_name[:100]),
        system_name=storable(system_name[:100]),
        file_name=storable(file_name[:255]),
        uploaded_by=user,
        format=format[:20],
        size=getattr(source, "size", 0) or 0,
    )


def reading(on_progress: StageProgress) -> formats.Progress:
    return lambda done, total: on_progress("reading", done, total)


def store(write: Callable[[list[Any]], object], rows: list[Any], on_progress: StageProgress) -> None:
    """``write`` each batch of ``rows``, reporting progress after each."""
    for start in range(0, len(rows), STORE_BATCH):
        write(rows[start : start + STORE_BATCH])
        on_progress("storing", min(start + STORE_BATCH, len(rows)), len(rows))


def attempt(upload: Upload, prepare: Callable[[], Write]) -> ImportSummary:
    """Read and check the file (``prepare``), then write it; on refusal record a failed Upload and re-raise.

    A queued upload's row exists before the writing and is the one that records the failure.
    What ``prepare`` read may change before the writing begins (another import of the same
    dataset, say): the database's constraints refuse the write then, as an IntegrityError.
    A staged import deletes what it wrote before the refusal is recorded (``scoring.import_batches``).
    """
    queued_pk = upload.pk
    try:
        write = prepare()
        return write()
    except ImportVanished as error:
        refusal = refused(str(error))
        record_failure(upload, refusal, queued_pk)
        raise refusal from error
    except IntegrityError as error:
        refusal = refused(f"the database refused the import (another import may have run at once): {error}")
        record_failure(upload, refusal, queued_pk)
        raise refusal from error
    except DataError as error:
        # The checks before storing are meant to leave nothing for the database to refuse.
        refusal = refused(f"the database refused a value of the file: {error}")
        record_failure(upload, refusal, queued_pk)
        raise refusal from error
    except ImportRefused as refusal:
        record_failure(upload, refusal, queued_pk)
        raise


def record_failure(upload: Upload, refusal: Exception, queued_pk: int | None = None) -> None:
    # Saved after the rollback, so the audit trail keeps the attempt and nothing else: as a new
    # row, or in the row of a queued upload, which the rollback left as it was, or in the row a
    # staged import saved as running before its batches (no transaction holds it).
    if upload.outcome != Upload.Outcome.RUNNING:
        upload.pk = queued_pk
    upload.outcome = Upload.Outcome.FAILED
    upload.message = storable(str(refusal))
    upload.texts = upload.triples = upload.warnings = 0
    upload.save()
    logger.warning(
        "Import of %s refused: %s", upload.file_name, upload.message,
        extra={"event": "import_refused", "upload": upload.pk, "dataset": upload.dataset_name, "kind": upload.kind},
    )  # fmt: skip


def read_source(source: Any, upload: Upload) -> Any:
    """The file, hashed and back at its start; refused by its size before reading, and again if it grows while read.

    Hashed chunk by chunk and not kept: the parser reads it again, JSON Lines line by line.
    """
    limit = settings.GENRES_MAX_UPLOAD_BYTES
    if upload.size > limit:
        raise ImportRefused(size_limit_message(upload.size))
    digest, received = hashlib.sha256(), 0
    for chunk in source.chunks():
        received += len(chunk)
        if received > limit:
            raise ImportRefused(size_limit_message(received))
        digest.update(chunk)
    upload.size, upload.sha256 = received, digest.hexdigest()
    source.seek(0)
    return source


def parse(
    reader: Callable[..., formats.ParsedFile], data: formats.Data, format: str, **options: Any
) -> formats.ParsedFile:
    try:
        return reader(data, format, **options)
    except formats.FormatError as error:
        raise refused(str(error)) from None


def last_import(upload: Upload) -> Upload | None:
    """The latest successful import of the same kind for the same dataset (and system)."""
    return (
        Upload.objects.filter(
            kind=upload.kind,
            dataset_name=upload.dataset_name,
            system_name=upload.system_name,
            outcome=Upload.Outcome.IMPORTED,
        )
        .order_by("-created_at", "-pk")
        .first()
    )


def unchanged(upload: Upload, previous: Upload, what: str) -> ImportSummary:
    upload.outcome = Upload.Outcome.UNCHANGED
    upload.format = previous.format
    upload.texts, upload.triples, upload.warnings = previous.texts, previous.triples, previous.warnings
    upload.message = f"{what} (imported {previous.created_at:%Y-%m-%d %H:%M} UTC); nothing changed."
    upload.save()
    return ImportSummary(upload, upload.texts, upload.triples, upload.warnings, True, upload.message)


def count(upload: Upload, parsed: formats.ParsedFile) -> None:
    upload.outcome = Upload.Outcome.IMPORTED
    upload.format = parsed.format
    upload.texts = len(parsed.records)
    upload.triples = sum(len(record.triples) for record in parsed.records)
    upload.warnings = sum(len(record.warnings) for record in parsed.records)


def plural(number: int) -> str:
    return "" if number == 1 else "s"


def summary(upload: Upload, parsed: formats.ParsedFile) -> ImportSummary:
    warning_messages = [f"{record.where}: {warning}" for record in parsed.records for warning in record.warnings]
    return ImportSummary(upload, upload.texts, upload.triples, upload.warnings, False, upload.message, warning_messages)


def check_model(instance: Any, what: str) -> None:
    try:
        instance.full_clean(validate_unique=False)
    except ValidationError as error:
        reasons = "; ".join(
            f"{field_name}: {' '.join(messages)}" for field_name, messages in error.message_dict.items()
        )
        raise refused(f"{what} is not valid ({reasons})") from None


def check_storable(values: Mapping[str, str]) -> None:
    """Refuse names and descriptions given beside the file that no database can store."""
    for what, value in values.items():
        if problem := unstorable_problem(value):
            raise refused(f"the {what} {problem}")


def check_not_importing(model: type[Dataset] | type[System], name: str, what: str) -> None:
    """Refuse a name another import is writing now; delete it first when that import was abandoned."""
    writing = model.with_importing.filter(name=name, importing_at__isnull=False).first()
    if writing is None:
        return
    if not abandoned(model).filter(pk=writing.pk).exists():
        raise refused(f"{what} is being imported right now; try again once that import has finished")
    discard(writing)


def outputs_to_store(
    system: System, existing: dict[int, Output], upload: Upload, parsed: formats.ParsedFile, text_pks: list[int]
) -> tuple[list[Output], list[Output]]:
    """The outputs of ``parsed`` to create and those replacing one of ``existing`` (text pk -> output)."""
    now = timezone.now()
    created: list[Output] = []
    replaced: list[Output] = []
    for record, text_pk in zip(parsed.records, text_pks, strict=True):
        output = existing.get(text_pk) or Output(system=system, text_id=text_pk)
        output.triples, output.raw, output.parse_warnings = record.triples, record.raw, record.warnings
        output.malformed = record.malformed
        output.upload, output.updated_at = upload, now
        (replaced if output.pk else created).append(output)
    return created, replaced


def check_external_id(record: formats.Record) -> None:
    limit = Text._meta.get_field("external_id").max_length
    if limit is not None and len(record.text_id) > limit:
        raise refused(f"{record.where}: the id is longer than {limit} characters")


def system_for_upload(name: str, family: str) -> System:
    """The system the outputs belong to, unsaved when new; never the Ground truth system."""
    check_not_importing(System, name, f'system "{name}"')
    system = System.objects.filter(name=name).first()
    if (system and system.is_ground_truth) or name.strip().lower() == System.GROUND_TRUTH.lower():
        raise refused(
            f'"{name}" holds the gold triples of each dataset; import gold triples with the dataset, '
            "and system outputs under another name"
        )
    if system is None:
        system = System(name=name, family=family)
        check_model(system, f'system name "{name}"')
    elif family and not system.family:
        system.family = family
    return system


def update_outputs(outputs: Iterable[Output]) -> None:
    update_in_place(Output, outputs, ["triples", "raw", "parse_warnings", "malformed", "upload", "updated_at"])


def resolve_texts(dataset: Dataset, records: Iterable[formats.Record]) -> list[int]:
    """The primary key of the text each record names, by content or by id; unknown texts refuse the file."""
    texts = Text.objects.filter(dataset=dataset).only("pk", "content_sha256", "external_id", "position")
    by_hash: dict[str, int] = {}
    by_label: dict[str, int] = {}
    for text in texts:
        by_hash[text.content_sha256] = text.pk
        by_label[text.label] = text.pk
    pks: list[int] = []
    first_places: dict[int | None, str] = {}
    for record in records:
        pk_by_text = by_hash.get(text_hash(record.text)) if record.text else None
        pk_by_id = by_label.get(record.text_id) if record.text_id else None
        if record.text and pk_by_text is None:
            reason = f'the text "{formats.preview(record.text)}" is not in dataset "{dataset.name}"'
        elif record.text_id and pk_by_id is None:
            reason = f'dataset "{dataset.name}" has no text with id "{formats.preview(record.text_id)}"'
        elif record.text and record.text_id and pk_by_text != pk_by_id:
            reason = f'the id "{formats.preview(record.text_id)}" belongs to another text of dataset "{dataset.name}"'
        elif (pk_by_text or pk_by_id) in first_places:
            reason = f"the same text as {first_places[pk_by_text or pk_by_id]}; each text may appear only once"
        else:
            reason = None
        if reason:
            raise refused(f"{record.where}: {reason}")
        pk = pk_by_text or pk_by_id
        assert pk is not None  # a record naming no known text was refused above
        first_places[pk] = record.where
        pks.append(pk)
    return pks
