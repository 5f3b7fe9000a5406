"""python manage.py score_outputs --dataset NAME: score systems' outputs with GENRES, queued or here and now."""

import json
from collections.abc import Iterable
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.genres.aspects import ASPECT_CODES, METRICS
from scoring.genres.embedders import EMBEDDERS
from scoring.genres.judges.registry import JUDGES
from scoring.genres.prompts import TEMPLATE_PLACEHOLDERS, PromptTemplate
from scoring.genres.rules import APP, RULE_LABELS, RULES
from scoring.genres.scorer import ScoreSettings
from scoring.jobs import enqueue_run, run_in_process
from scoring.management.progress_bar import work_here_with_a_bar
from scoring.models import Dataset, System
from scoring.models.runs import DEFAULT_CHUNK_TEXTS, RunRefused, ScoringRun

TABLE_COLUMNS = ("texts", "triples_per_text", *ASPECT_CODES, "precision", "recall", "f1", "empty_share")


def comma_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


class Command(BaseCommand):
    help = (
        "Score the outputs of a dataset's systems (all of them, Ground truth included, unless --systems "
        "or --no-ground-truth say otherwise). Queues a run for the RQ workers, or with --sync runs it here."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True, help="Name of the dataset.")
        parser.add_argument("--systems", type=comma_list, help="Comma-separated system names (default: all).")
        parser.add_argument("--no-ground-truth", action="store_true", help="Leave the Ground truth system out.")
        parser.add_argument(
            "--metrics",
            type=comma_list,
            default=list(METRICS),
            help=f"Comma-separated, of {','.join(METRICS)} (default: all).",
        )
        parser.add_argument("--embedder", choices=list(EMBEDDERS), default="hashing")
        parser.add_argument(
            "--judge",
            choices=[*JUDGES, "recorded"],
            default="heuristic",
            help="recorded: verdicts imported with import_verdicts (--verdict-source), no LLM called.",
        )
        parser.add_argument("--verdict-source", default="", help="The recorded judge's source name (import_verdicts).")
        for aspect, placeholders in TEMPLATE_PLACEHOLDERS.items():
            parser.add_argument(
                f"--{aspect}-prompt",
                metavar="FILE",
                help=f"The {aspect} judge prompt from this template file (UTF-8, with {' and '.join(placeholders)}; "
                "the openai judge only); default: the app's own prompt.",
            )
        parser.add_argument(
            "--rules",
            choices=RULES,
            default=APP,
            help="app: the app's own rules (default); reference: the GENRES authors' code (docs/metrics.md).",
        )
        parser.add_argument(
            "--chunk-texts", type=int, default=DEFAULT_CHUNK_TEXTS, help="Texts per chunk (one job each)."
        )
        parser.add_argument("--sync", action="store_true", help="Score here, with a progress bar on stderr.")
        parser.add_argument("--json", action="store_true", help="Print the result as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        dataset = Dataset.objects.filter(name=options["dataset"]).first()
        if dataset is None:
            raise CommandError(f'there is no dataset "{options["dataset"]}"')
        systems = self.systems(dataset, options["systems"], options["no_ground_truth"])
        try:
            templates = [
                PromptTemplate.from_file(aspect, options[f"{aspect}_prompt"])
                for aspect in TEMPLATE_PLACEHOLDERS
                if options[f"{aspect}_prompt"]
            ]
            score_settings = ScoreSettings(
                embedder=options["embedder"],
                judge=options["judge"],
                prompt_templates={template.aspect: template.text for template in templates},
                verdict_source=options["verdict_source"],
                rules=options["rules"],
            )
        except ValueError as error:  # TemplateError included
            raise CommandError(str(error)) from error
        try:
            run = ScoringRun.create(
                dataset, systems, options["metrics"], score_settings, chunk_texts=options["chunk_texts"]
            )
        except RunRefused as error:
            raise CommandError(str(error)) from error
        if not options["sync"]:
            enqueue_run(run)
            self.report_queued(run, options["json"])
            return
        run = self.run_here(run)
        if options["json"]:
            self.stdout.write(json.dumps(self.result(run), indent=2))
        else:
            self.print_table(run)

    @staticmethod
    def systems(dataset: Dataset, names: list[str] | None, no_ground_truth: bool) -> list[System]:
        scored: Iterable[System] = (
            System.objects.filter(outputs__text__dataset=dataset).distinct().order_by("-is_ground_truth", "name")
        )
        if names:
            found = {system.name: system for system in System.objects.filter(name__in=names)}
            missing = [name for name in names if name not in found]
            if missing:
                raise CommandError(f"unknown system(s): {', '.join(missing)}")
            scored = [found[name] for name in names]
        return [system for system in scored if not (no_ground_truth and system.is_ground_truth)]

    def report_queued(self, run: ScoringRun, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps({"run": run.pk, "url": run.get_absolute_url(), "status": run.status}))
        else:
            self.stdout.write(
                f"Scoring run {run.pk} queued ({run.chunks.count()} chunks); follow it at {run.get_absolute_url()}"
            )

    def run_here(self, run: ScoringRun) -> ScoringRun:
        return work_here_with_a_bar(run, run_in_process, f"run {run.pk}", "scoring run")

    @staticmethod
    def result(run: ScoringRun) -> dict[str, Any]:
        result: dict[str, Any] = {
            "dataset": run.dataset.name,
            "systems": {score.system.name: score.values for score in run.system_scores.select_related("system")},
        }
        assert run.provenance is not None  # recorded when the run was created
        if run.provenance["judge"] == "recorded":
            result["missing_verdicts"] = run.progress_state()["missing_verdicts"]
        return result

    def print_table(self, run: ScoringRun) -> None:
        provenance = run.provenance
        assert provenance is not None  # recorded when the run was created
        judge = "heuristic judge (offline rules, no LLM)" if run.heuristic_judge else f"judge {provenance['judge']}"
        self.stdout.write(
            f"Scoring run {run.pk} on {run.dataset.name}: embedder {provenance['embedder']} "
            f"(φ {provenance['threshold']}), {judge}, LDA {provenance['lda_topics']} topics, "
            f"{RULE_LABELS[provenance.get('rules', APP)]}"
        )
        widths = [max(8, len(column) + 2) for column in TABLE_COLUMNS]
        self.stdout.write("system".ljust(24) + "".join(c.rjust(w) for c, w in zip(TABLE_COLUMNS, widths, strict=True)))
        for score in run.system_scores.select_related("system"):
            cells = [self.cell(score.values[column]) for column in TABLE_COLUMNS]
            self.stdout.write(
                score.system.name[:23].ljust(24) + "".join(c.rjust(w) for c, w in zip(cells, widths, strict=True))
            )
        if provenance["judge"] == "recorded":
            missing = run.progress_state()["missing_verdicts"]
            self.stdout.write(
                f'Recorded verdicts from "{provenance["judge_model"]}": {missing} triple judgement(s) without a '
                "verdict, left out of the fs and gs means"
            )

    @staticmethod
    def cell(value: float | None) -> str:
        if value is None:
            return "-"
        return str(value) if isinstance(value, int) else f"{value:.3f}"
