"""python manage.py import_dataset FILE --name NAME: texts and gold triples, all or nothing."""

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.files import File
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from scoring.genres import formats
from scoring.imports import ImportRefused, ImportSummary, import_dataset
from scoring.models import Dataset

STAGE_UNITS = {"reading": "B", "storing": "row"}


class ProgressBars:
    """One tqdm bar per stage of an import (reading the file, storing rows), on standard error."""

    def __init__(self, file_name: str, disable: bool | None) -> None:
        self.file_name, self.disable = file_name, disable
        self.stage: str | None = None
        self.bar: Any = None  # the tqdm bar of the stage under way (tqdm has no types)

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage != self.stage:
            self.close()
            self.stage = stage
            self.bar = tqdm(
                total=total,
                desc=f"{self.file_name}: {stage}",
                unit=STAGE_UNITS[stage],
                unit_scale=True,
                file=sys.stderr,
                disable=self.disable,
            )
        self.bar.total = total
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class ImportCommand(BaseCommand):
    """Opens FILE, runs one importer, prints its summary (or one JSON object with --json).

    A progress bar per stage shows on standard error when it is a terminal (``--no-progress`` hides it).
    """

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="Path of the file to import.")
        parser.add_argument(
            "--json", action="store_true", help='Print one JSON object {"texts", "triples", "warnings", ...}.'
        )
        parser.add_argument(
            "--no-progress", action="store_true", help="No progress bars (shown only on a terminal anyway)."
        )

    def run_import(self, importer: Callable[..., ImportSummary], options: dict[str, Any], **arguments: Any) -> None:
        path = Path(options["file"])
        # None: tqdm shows the bars only when standard error is a terminal.
        bars = ProgressBars(path.name, disable=True if options["no_progress"] else None)
        try:
            with path.open("rb") as handle:
                summary = importer(File(handle, name=path.name), file_name=path.name, on_progress=bars, **arguments)
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror}") from error
        except ImportRefused as refusal:
            raise CommandError(f"{path.name}: {refusal}") from refusal
        finally:
            bars.close()
        self.stdout.write(json.dumps(summary.as_dict()) if options["json"] else summary.report())


class Command(ImportCommand):
    help = "Create a dataset from a triples JSON or JSON Lines file (texts and gold triples); all or nothing."

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--name", required=True, help="Name of the new dataset.")
        parser.add_argument("--level", choices=Dataset.Level.values, default=Dataset.Level.SENTENCE)
        parser.add_argument("--domain", choices=Dataset.Domain.values, default=Dataset.Domain.GENERAL)
        parser.add_argument("--description", default="")
        parser.add_argument("--format", choices=(formats.AUTO, *formats.DATASET_FORMATS), default=formats.AUTO)

    def handle(self, *args: Any, **options: Any) -> None:
        self.run_import(
            import_dataset,
            options,
            name=options["name"],
            level=options["level"],
            domain=options["domain"],
            description=options["description"],
            format=options["format"],
        )
