"""python manage.py import_judgements FILE --dataset NAME [--campaign NAME]: a study run elsewhere, all or nothing."""

from django.core.management.base import BaseCommand, CommandError

from annotation.imports import REQUIRED_COLUMNS, ImportRefused, import_judgements


class Command(BaseCommand):
    help = (
        f"Import pairwise judgements from a CSV with the header {','.join(REQUIRED_COLUMNS)} into a new, closed "
        "campaign; a file with any bad line changes nothing, and the same file twice is harmless."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="CSV file of judgements.")
        parser.add_argument("--dataset", required=True, help="Name of the dataset the texts belong to.")
        parser.add_argument("--campaign", help="Name of the campaign to create (default: the file name).")

    def handle(self, *args, file, dataset, campaign, **options):
        try:
            result = import_judgements(file, dataset_name=dataset, campaign_name=campaign)
        except ImportRefused as error:
            raise CommandError(str(error)) from None
        self.stdout.write(str(result))
