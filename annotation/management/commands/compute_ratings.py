"""python manage.py compute_ratings --dataset NAME [...]: Elo or Bradley–Terry ratings of systems from human judgements."""

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation import judgement_queries, ratings
from annotation.models import ASPECTS, Aspect

# The command's words for battle order, mapped to annotation.ratings'.
ORDERS = {"import": "given", "shuffle": "shuffled"}


class Command(BaseCommand):
    help = (
        "Rate the systems of a dataset's campaigns per aspect from human judgements, with bootstrap 95% intervals. "
        "By default the judgements of an item judged twice are merged first."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--campaign", help="Only this campaign (default: every campaign of the dataset).")
        parser.add_argument("--aspect", choices=ASPECTS, help="Only this aspect (default: all five).")
        parser.add_argument("--method", choices=("elo", "bt"), default="elo", help="Online Elo or Bradley–Terry.")
        parser.add_argument("--k", type=float, default=ratings.K_FACTOR, help="Elo K factor.")
        parser.add_argument(
            "--order", choices=tuple(ORDERS), default="import", help="Elo battle order: as imported, or shuffled."
        )
        parser.add_argument(
            "--bootstrap",
            type=int,
            default=ratings.BOOTSTRAP_ROUNDS,
            help="Bootstrap rounds; 0: no bootstrap, no interval: one pass of online Elo in the battle order "
            "(as the GENRES paper computed it), or the Bradley–Terry fit alone.",
        )
        parser.add_argument("--seed", type=int, default=0, help="Seeds the bootstrap and the shuffle.")
        merging = parser.add_mutually_exclusive_group()
        merging.add_argument(
            "--merged", dest="merged", action="store_true", default=True, help="Merge doubly judged items (default)."
        )
        merging.add_argument("--all", dest="merged", action="store_false", help="Rate every judgement on its own.")
        parser.add_argument("--json", action="store_true", help="Print JSON instead of a table.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["bootstrap"] < 0:
            raise CommandError("--bootstrap must be 0 (a single pass) or more.")
        if options["k"] <= 0:
            raise CommandError("--k must be positive.")
        try:
            campaigns = judgement_queries.find_campaigns(options["dataset"], options["campaign"])
        except LookupError as error:
            raise CommandError(str(error)) from None
        aspects = [options["aspect"]] if options["aspect"] else ASPECTS
        result = {"method": options["method"], "merged": options["merged"]}
        if options["method"] == "elo":
            result.update(k=options["k"], order=options["order"])
        result.update(bootstrap=options["bootstrap"], seed=options["seed"], aspects={})
        for aspect in aspects:
            aspect_battles = judgement_queries.human_battles(campaigns, aspect, merged=options["merged"])
            if len(aspect_battles) == 0:
                raise CommandError(f"No judgements of {Aspect(aspect).label.lower()} ({aspect}) to rate.")
            if options["bootstrap"] == 0:
                board = self.without_bootstrap(aspect_battles, options)
            elif options["method"] == "elo":
                board = ratings.elo_leaderboard(
                    aspect_battles,
                    rounds=options["bootstrap"],
                    k=options["k"],
                    order=ORDERS[options["order"]],
                    seed=options["seed"],
                )
            else:
                board = ratings.bradley_terry_leaderboard(
                    aspect_battles, rounds=options["bootstrap"], seed=options["seed"]
                )
            result["aspects"][aspect] = board

        if options["json"]:
            self.stdout.write(json.dumps(result, indent=2))
            return
        for aspect, board in result["aspects"].items():
            self.stdout.write(f"{Aspect(aspect).label} ({options['method']})")
            for system, row in sorted(board.items(), key=lambda entry: -entry[1]["rating"]):
                interval = f"[{row['ci_low']:7.1f}, {row['ci_high']:7.1f}]" if "ci_low" in row else "(single pass)"
                self.stdout.write(f"  {system:<30} {row['rating']:8.1f}  {interval}  {row['battles']:>6} battles")

    @staticmethod
    def without_bootstrap(aspect_battles: ratings.Battles, options: dict[str, Any]) -> ratings.Leaderboard:
        """Ratings without intervals: one pass of online Elo, or the Bradley–Terry fit."""
        if options["method"] == "elo":
            return ratings.single_pass_leaderboard(
                aspect_battles, k=options["k"], order=ORDERS[options["order"]], seed=options["seed"]
            )
        return ratings.bradley_terry_fit_leaderboard(aspect_battles)
