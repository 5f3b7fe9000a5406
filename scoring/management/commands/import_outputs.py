"""python manage.py import_outputs FILE --dataset NAME --system NAME: one system's outputs, all or nothing."""

from typing import Any

from django.core.management.base import CommandParser

from scoring.genres import formats
from scoring.imports import import_outputs
from scoring.management.commands.import_dataset import ImportCommand


class Command(ImportCommand):
    help = (
        "Store a system's outputs on a dataset from triples JSON, raw generations JSON, JSON Lines or CSV; "
        "outputs of the texts in the file are replaced; all or nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--dataset", required=True, help="Name of the dataset the outputs belong to.")
        parser.add_argument("--system", required=True, help="Name of the system; created when new.")
        parser.add_argument("--family", default="", help='Model family, for example "GPT" or "LLaMA".')
        parser.add_argument("--format", choices=(formats.AUTO, *formats.OUTPUT_FORMATS), default=formats.AUTO)
        parser.add_argument(
            "--lenient",
            action="store_true",
            help="Drop malformed triples with a parse warning instead of refusing the file.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        self.run_import(
            import_outputs,
            options,
            dataset=options["dataset"],
            system_name=options["system"],
            family=options["family"],
            format=options["format"],
            lenient=options["lenient"],
        )
