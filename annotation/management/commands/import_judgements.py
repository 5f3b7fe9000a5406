"""python manage.py import_judgements FILE... --dataset NAME [--campaign NAME] [--layout authors]: a study run
elsewhere, all or nothing."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.imports import REQUIRED_COLUMNS, ImportRefused, import_judgements


class Command(BaseCommand):
    help = (
        f"Import pairwise judgements from a CSV with the header {','.join(REQUIRED_COLUMNS)} into a new, closed "
        "campaign; a file with any bad line changes nothing, and the same file twice is harmless."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "files", nargs="+", metavar="FILE", help="CSV file of judgements (authors: one per aspect)."
        )
        parser.add_argument("--dataset", required=True, help="Name of the dataset the texts belong to.")
        parser.add_argument("--campaign", help="Name of the campaign to create (default: the (first) file name).")
        parser.add_argument(
            "--layout",
            choices=("app", "authors"),
            default="app",
            help="authors: the GENRES authors' files, sample_id,model_A_name,model_B_name,win, one per aspect named "
            "by it (Topical_merged.csv, ...), read in the order given.",
        )
        parser.add_argument(
            "--system-name",
            action="append",
            default=[],
            metavar="MODEL=SYSTEM",
            help='authors: the system a model name of the files stands for, e.g. Groundtruth="Ground truth" '
            "(repeatable; a name not given is taken as it is).",
        )

    def handle(self, *args: Any, files: list[str], dataset: str, campaign: str | None, **options: Any) -> None:
        names = dict(pair.split("=", 1) for pair in options["system_name"] if "=" in pair)
        if len(names) != len(options["system_name"]):
            raise CommandError("--system-name is MODEL=SYSTEM")
        try:
            result = import_judgements(
                files,
                dataset_name=dataset,
                campaign_name=campaign,
                layout=options["layout"],
                system_names=names,
            )
        except ImportRefused as error:
            raise CommandError(str(error)) from None
        self.stdout.write(str(result))
