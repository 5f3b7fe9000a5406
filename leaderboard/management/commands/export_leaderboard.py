"""Write a dataset's leaderboard to a directory: leaderboard.json, the CSV tables, index.html."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard import contents, exports
from scoring.models import Dataset


class Command(BaseCommand):
    help = "Export a dataset's leaderboard as JSON, CSV tables and a static HTML page that opens offline."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True, help="Dataset name.")
        parser.add_argument("--out", required=True, help="Directory to write into (created when missing).")
        parser.add_argument("--setting", help="Scoring setting fingerprint; default: the newest.")
        parser.add_argument("--margin", help=f"Metric-battle margin, 0 to 1; default {contents.DEFAULT_MARGIN}.")

    def handle(self, *args: Any, **options: Any) -> None:
        dataset = Dataset.objects.filter(name=options["dataset"]).first()
        if dataset is None:
            raise CommandError(f"No dataset named {options['dataset']!r}.")
        try:
            data = contents.leaderboard(
                dataset, setting_key=options["setting"], margin=contents.parse_margin(options["margin"])
            )
        except contents.LeaderboardError as error:
            raise CommandError(str(error)) from error
        written = exports.write_export(data, options["out"])
        self.stdout.write(f"Wrote the {dataset.name} leaderboard to {options['out']}: {len(written)} files")
        for path in written:
            self.stdout.write(f"  {path.name}")
