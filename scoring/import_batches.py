"""Writing a big import in short transactions, hidden until it is complete.

One transaction for a whole 200,000-text dataset held SQLite's one write lock for about a
minute, and every annotator's save waited as long. An import that creates a dataset, or a new
system, now writes it like this:

    staged(dataset)              one short transaction: the row, with ``importing_at`` set
      .store(model, instances)   a transaction per batch (about BATCH_SECONDS), each refreshing ``importing_at``
      .finishing()               one short transaction: the upload's record, ``importing_at`` cleared

Each batch's parameters are prepared before its transaction (``scoring.sql.insert_params``), so a
transaction holds the lock for the database's own work: an INSERT run for each row of its batch.

Between two batches the write gate (``genres_site.sqlite_backend``) lets the writers waiting for
it in. Until the last transaction the default managers (``scoring.models.catalogue.CompleteManager``)
hide the row from every list, form, page, leaderboard and API reply, so nothing can score,
judge or compare it half-written. The file was read and checked whole before ``staged`` begins;
should a batch still fail, the partial rows are deleted, in batches too, before the refusal is
recorded. A process killed mid-way leaves a row whose ``importing_at`` stops moving: once it is
ABANDONED_AFTER old, ``scoring.import_jobs.heal_imports`` (the workers' heal pass) deletes it and
starts the import again, and the next import of the same name deletes it too.
"""

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from itertools import islice
from typing import Any

from django.db import connection, models, transaction
from django.utils import timezone

from scoring.models import Dataset, Output, System, Text, Upload
from scoring.sql import insert_params, insert_statement

logger = logging.getLogger(__name__)

# Rows written per transaction, at most and at first (a few tens of ms of SQLite's work). Each
# batch is then resized to last about BATCH_SECONDS: halved when slower (down to MIN_BATCH_ROWS),
# doubled when under half of it. A worker runs niced, and on a machine too busy to give it its CPU
# the same batch holds the lock many times longer; smaller batches keep that wait short.
BATCH_ROWS = 2000
MIN_BATCH_ROWS = 100
BATCH_SECONDS = 0.1
# After each batch the import sleeps this long, so that a writer the write gate has just woken
# takes the lock before the import's next batch does (its wake-up is not instant on a busy machine).
PAUSE_SECONDS = 0.01
# An import whose last batch is older than this is dead. A batch takes well under a second, the
# steps between them a few, but a niced worker on a saturated machine was seen 20 times slower.
ABANDONED_AFTER = timedelta(minutes=5)

Staged = Dataset | System


class ImportVanished(Exception):
    """The staged row was deleted while the import wrote it: it was taken for abandoned."""


class StagedImport:
    """The batches of one import into a ``staged`` dataset or system (see the module's doc)."""

    def __init__(self, instance: Staged) -> None:
        self.instance = instance
        self.batches, self.longest = 0, 0.0  # batches written, and the longest one's seconds

    def store(
        self,
        model: type[models.Model],
        instances: Iterable[Any],
        total: int,
        on_progress: Callable[[str, int, int], object],
    ) -> None:
        """Insert the ``total`` ``instances`` a batch per transaction, reporting ``on_progress("storing",
        done, total)`` after each. Each batch's instances are made (``instances`` may be a generator)
        and its parameters prepared just before its transaction, so the import beats all along."""
        statement, fields = insert_statement(model)
        remaining, done, size = iter(instances), 0, BATCH_ROWS
        while params := insert_params(fields, islice(remaining, size)):
            began = time.monotonic()
            with transaction.atomic():
                self.beat()
                insert(statement, params)
            seconds = time.monotonic() - began
            done, self.batches, self.longest = done + len(params), self.batches + 1, max(self.longest, seconds)
            size = next_size(size, seconds)
            on_progress("storing", done, total)
            time.sleep(PAUSE_SECONDS)

    def beat(self) -> None:
        if not self.rows().update(importing_at=timezone.now()):
            raise ImportVanished(f"{self.instance} was removed as an abandoned import while it was written")

    @contextmanager
    def finishing(self) -> Iterator[None]:
        """The import's last transaction: what the block writes, and the row made visible."""
        with transaction.atomic():
            if not self.rows().update(importing_at=None):
                raise ImportVanished(f"{self.instance} was removed as an abandoned import while it was written")
            yield
        self.instance.importing_at = None
        logger.info(
            "Imported %s in %d batches, the longest %.0f ms", self.instance, self.batches, 1000 * self.longest,
            extra={"event": "import_batches", "batches": self.batches, "longest_ms": round(1000 * self.longest)},
        )  # fmt: skip

    def rows(self) -> models.QuerySet[Any]:
        return type(self.instance).with_importing.filter(pk=self.instance.pk, importing_at__isnull=False)


def next_size(size: int, seconds: float) -> int:
    """The rows of the next batch, after one of ``size`` rows took ``seconds``."""
    if seconds > BATCH_SECONDS:
        return min(BATCH_ROWS, max(MIN_BATCH_ROWS, size // 2))
    if seconds < BATCH_SECONDS / 2:
        return min(BATCH_ROWS, size * 2)
    return size


def insert(statement: str, rows: list[list[Any]]) -> None:
    with connection.cursor() as cursor:
        cursor.executemany(statement, rows)


@contextmanager
def staged(instance: Staged) -> Iterator[StagedImport]:
    """Save the new ``instance`` hidden, hand its batches to the block; delete what it wrote if it fails."""
    instance.importing_at = timezone.now()
    instance.save()
    try:
        yield StagedImport(instance)
    except BaseException:
        if instance.importing_at is not None:
            try:
                discard(instance)
            except Exception:
                # The database is away: the heal pass deletes the rows once they are abandoned.
                logger.exception("Could not delete the partial import of %s", instance)
        raise


def discard(instance: Staged) -> None:
    """Delete a partial import: its outputs and texts, a batch per transaction, then its row."""
    if isinstance(instance, Dataset):
        delete_in_batches(Output.objects.filter(text__dataset=instance))
        delete_in_batches(Text.objects.filter(dataset=instance))
    else:
        delete_in_batches(Output.objects.filter(system=instance))
    type(instance).with_importing.filter(pk=instance.pk, importing_at__isnull=False).delete()


def delete_in_batches(rows: models.QuerySet[Any]) -> None:
    while pks := list(rows.values_list("pk", flat=True)[:BATCH_ROWS]):
        with transaction.atomic():
            rows.model._base_manager.filter(pk__in=pks).delete()


def abandoned(model: type[Dataset] | type[System]) -> models.QuerySet[Any]:
    return model.with_importing.filter(importing_at__lt=timezone.now() - ABANDONED_AFTER)


def still_writing(upload: Upload) -> bool:
    """Whether the dataset or new system ``upload`` names is being written by a live import."""
    model, name = (Dataset, upload.dataset_name) if upload.kind == Upload.Kind.DATASET else (System, upload.system_name)
    return model.with_importing.filter(name=name, importing_at__gte=timezone.now() - ABANDONED_AFTER).exists()
