"""python manage.py import_verdicts FILE --dataset NAME --system NAME --source NAME --layout LAYOUT."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.genres.verdict_formats import LAYOUTS, VerdictFormatError
from scoring.models import Dataset, System
from scoring.verdict_imports import import_verdicts


class Command(BaseCommand):
    help = (
        "Store one system's per-triple judge verdicts, produced elsewhere, under a source name; "
        "score_outputs --judge recorded --verdict-source NAME then scores fs and gs with them, calling no LLM. "
        "All or nothing (a triple judged twice in a text keeps a verdict per occurrence); a "
        "new import replaces the source's verdicts of the aspects it covers."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="The verdict file.")
        parser.add_argument("--dataset", required=True, help="Name of the dataset.")
        parser.add_argument("--system", required=True, help="Name of the system whose triples were judged.")
        parser.add_argument(
            "--source", required=True, help='A name for where the verdicts come from, e.g. "genres-release".'
        )
        parser.add_argument(
            "--layout",
            choices=LAYOUTS,
            required=True,
            help="jsonl: text, triple, aspect, verdict per line; authors-fs / authors-gs: the GENRES release's "
            "factualness and granularity results.",
        )
        parser.add_argument(
            "--triples",
            metavar="FILE",
            help="authors-fs: the triples the booleans are aligned with ({text: [[s, r, o], ...]}, the authors' "
            "processed results); default: the system's stored triples.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        dataset = Dataset.objects.filter(name=options["dataset"]).first()
        if dataset is None:
            raise CommandError(f'there is no dataset "{options["dataset"]}"')
        system = System.objects.filter(name=options["system"]).first()
        if system is None:
            raise CommandError(f'there is no system "{options["system"]}"')
        try:
            result = import_verdicts(
                dataset, system, options["source"], options["layout"], options["file"], options["triples"]
            )
        except VerdictFormatError as error:
            raise CommandError(f"nothing imported: {error}") from error
        except OSError as error:
            raise CommandError(f"cannot read {error.filename}: {error.strerror}") from error
        counts = ", ".join(f"{count} {aspect}" for aspect, count in result.verdicts.items()) or "no"
        self.stdout.write(
            f'{counts} verdicts of {result.system} on {result.texts} texts of "{dataset.name}" stored '
            f'under source "{result.source}"'
        )
        if result.disagreeing:
            self.stderr.write(
                f"{len(result.disagreeing)} triples occur more than once in a text with different verdicts; each "
                "occurrence keeps its own: " + "; ".join(result.disagreeing)
            )
        if result.unjudgeable:
            self.stderr.write(
                f"{len(result.unjudgeable)} verdicts on items with an element that is neither a string nor a number "
                "skipped (no judge is asked about them): " + "; ".join(result.unjudgeable)
            )
