"""python manage.py import_dataset FILE --name NAME: texts and gold triples, all or nothing."""

import json
from pathlib import Path

from django.core.files import File
from django.core.management.base import BaseCommand, CommandError

from scoring.genres import formats
from scoring.imports import ImportRefused, import_dataset
from scoring.models import Dataset


class ImportCommand(BaseCommand):
    """Opens FILE, runs one importer, prints its summary (or one JSON object with --json)."""

    def add_arguments(self, parser):
        parser.add_argument("file", help="Path of the file to import.")
        parser.add_argument(
            "--json", action="store_true", help='Print one JSON object {"texts", "triples", "warnings", ...}.'
        )

    def run_import(self, importer, options, **arguments):
        path = Path(options["file"])
        try:
            with path.open("rb") as handle:
                summary = importer(File(handle, name=path.name), file_name=path.name, **arguments)
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror}") from error
        except ImportRefused as refusal:
            raise CommandError(f"{path.name}: {refusal}") from refusal
        self.stdout.write(json.dumps(summary.as_dict()) if options["json"] else summary.report())


class Command(ImportCommand):
    help = "Create a dataset from a triples JSON or JSON Lines file (texts and gold triples); all or nothing."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--name", required=True, help="Name of the new dataset.")
        parser.add_argument("--level", choices=Dataset.Level.values, default=Dataset.Level.SENTENCE)
        parser.add_argument("--domain", choices=Dataset.Domain.values, default=Dataset.Domain.GENERAL)
        parser.add_argument("--description", default="")
        parser.add_argument("--format", choices=(formats.AUTO, *formats.DATASET_FORMATS), default=formats.AUTO)

    def handle(self, *args, **options):
        self.run_import(
            import_dataset,
            options,
            name=options["name"],
            level=options["level"],
            domain=options["domain"],
            description=options["description"],
            format=options["format"],
        )
