"""python manage.py compute_agreement --dataset NAME [--campaign NAME] [--json]: inter-annotator agreement per aspect."""

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation import agreement, judgement_queries
from annotation.models import ASPECTS, Aspect


def _figure(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


class Command(BaseCommand):
    help = (
        "Agreement of annotators on items two or more of them judged, per aspect: tie-discounted accuracy, "
        "Cohen's kappa and Krippendorff's alpha (None where nothing can be compared)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--campaign", help="Only this campaign (default: every campaign of the dataset).")
        parser.add_argument("--json", action="store_true", help="Print JSON instead of a table.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            campaigns = judgement_queries.find_campaigns(options["dataset"], options["campaign"])
        except LookupError as error:
            raise CommandError(str(error)) from None
        figures = agreement.agreement(judgement_queries.agreement_judgements(campaigns))
        result = {
            "aspects": {
                aspect: {
                    "tie_discounted_accuracy": figures[aspect]["accuracy"],
                    "items": figures[aspect]["items"],
                    "cohen_kappa": figures[aspect]["kappa"],
                    "krippendorff_alpha": figures[aspect]["alpha"],
                }
                for aspect in ASPECTS
            }
        }
        if options["json"]:
            self.stdout.write(json.dumps(result, indent=2))
            return
        self.stdout.write(f"{'aspect':<20} {'accuracy':>9} {'kappa':>7} {'alpha':>7} {'items':>6}")
        for aspect, row in result["aspects"].items():
            self.stdout.write(
                f"{Aspect(aspect).label:<20} {_figure(row['tie_discounted_accuracy']):>9} "
                f"{_figure(row['cohen_kappa']):>7} {_figure(row['krippendorff_alpha']):>7} {row['items']:>6}"
            )
