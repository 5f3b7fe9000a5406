"""python manage.py generate_outputs --dataset NAME --model MODEL: make systems by asking a model."""

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.generation_jobs import enqueue_generation, estimate, generate_in_process, parse_run
from scoring.genres.generation import API_CHOICES, GenerationSettings
from scoring.genres.openai_backend import OPENAI_BASE_URL, environment
from scoring.genres.prompts import TemplateError
from scoring.management.progress_bar import work_here_with_a_bar
from scoring.models import Dataset, GenerationRun, GenerationTemplate
from scoring.models.chunked import DEFAULT_CHUNK_TEXTS
from scoring.models.runs import RunRefused


def seed_list(value: str) -> list[int]:
    return [int(item) for item in value.split(",") if item.strip()]


class Command(BaseCommand):
    help = (
        "Ask a model behind an OpenAI-compatible endpoint for the triples of every text of a dataset, "
        "once per seed; each seed becomes a system of one replicate group. Prints the estimate first. "
        "Queues the run for the RQ workers, or with --sync runs it here with a progress bar. The key is "
        "read from GENRES_GENERATION_API_KEY (else OPENAI_API_KEY) and never stored."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", help="Name of the dataset.")
        parser.add_argument("--model", help="The model's name at the endpoint.")
        parser.add_argument("--base-url", help="The endpoint (default: OPENAI_BASE_URL, else OpenAI's).")
        parser.add_argument(
            "--api", choices=["auto", *API_CHOICES], default="auto", help="auto: *-instruct models get completions."
        )
        parser.add_argument(
            "--template", metavar="FILE", help="A prompt template file with $TEXT$ (default: the app's)."
        )
        parser.add_argument(
            "--template-name", default="", help="Store --template under this name (a new version if changed)."
        )
        parser.add_argument("--temperature", type=float, default=0.0)
        parser.add_argument("--max-tokens", type=int, default=512)
        parser.add_argument("--seeds", type=seed_list, default=[1], help="Comma-separated integers, one system each.")
        parser.add_argument(
            "--group", default="", help="Replicate group and system name stem (default: from the model)."
        )
        parser.add_argument(
            "--chunk-texts", type=int, default=DEFAULT_CHUNK_TEXTS, help="Texts per chunk (one job each)."
        )
        parser.add_argument("--score", action="store_true", help="Score the new systems when generation ends.")
        parser.add_argument("--estimate", action="store_true", help="Print the estimate only; start nothing.")
        parser.add_argument("--sync", action="store_true", help="Generate here, with a progress bar on stderr.")
        parser.add_argument("--reparse", type=int, metavar="RUN", help="Parse a finished run's stored replies again.")
        parser.add_argument("--json", action="store_true", help="Print the result as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["reparse"]:
            self.reparse(options["reparse"], options["json"])
            return
        if not options["dataset"] or not options["model"]:
            raise CommandError("--dataset and --model are needed")
        dataset = Dataset.objects.filter(name=options["dataset"]).first()
        if dataset is None:
            raise CommandError(f'there is no dataset "{options["dataset"]}"')
        model, api = options["model"], options["api"]
        if api == "auto":
            api = "completions" if model.endswith("-instruct") else "chat"
        run_settings = GenerationSettings(
            base_url=options["base_url"] or environment("OPENAI_BASE_URL", OPENAI_BASE_URL),
            model=model,
            api=api,
            temperature=options["temperature"],
            max_tokens=options["max_tokens"],
        )
        template = self.template(options["template"], options["template_name"])
        try:
            run_settings.check()
        except ValueError as error:
            raise CommandError(str(error)) from error
        expected = estimate(dataset, run_settings, template.text, options["seeds"])
        self.stderr.write(
            f"{expected['prompts']} prompts, {expected['cached']} of them cached, the others in "
            f"{expected['requests_to_send']} requests; about "
            f"{expected['prompt_tokens_estimated']:,} prompt tokens, at most {expected['completion_tokens_at_most']:,} "
            f"completion tokens, at most ${expected['cost_usd_at_most']} at list prices"
        )
        if options["estimate"]:
            if options["json"]:
                self.stdout.write(json.dumps(expected))
            return
        try:
            run = GenerationRun.create(
                dataset,
                run_settings,
                options["seeds"],
                template=template,
                group=options["group"],
                chunk_texts=options["chunk_texts"],
                score_when_done=options["score"],
            )
        except RunRefused as error:
            raise CommandError(str(error)) from error
        if not options["sync"]:
            enqueue_generation(run)
            self.report(run, options["json"], f"Generation run {run.pk} queued; follow it at {run.get_absolute_url()}")
            return
        run = self.run_here(run)
        self.report(run, options["json"], self.summary(run))

    @staticmethod
    def template(path: str | None, name: str) -> GenerationTemplate:
        if not path:
            return GenerationTemplate.default()
        try:
            with open(path, encoding="utf-8") as template_file:
                text = template_file.read()
            return GenerationTemplate.save_version(name or "custom", text)
        except (OSError, UnicodeDecodeError, TemplateError) as error:
            raise CommandError(f"the template {path}: {error}") from error

    def run_here(self, run: GenerationRun) -> GenerationRun:
        return work_here_with_a_bar(run, generate_in_process, f"generation {run.pk}", "generation run")

    def reparse(self, run_id: int, as_json: bool) -> None:
        run = GenerationRun.objects.filter(pk=run_id, status=GenerationRun.Status.DONE).first()
        if run is None:
            raise CommandError(f"there is no finished generation run {run_id}")
        parse_run(run)
        self.report(run, as_json, self.summary(run))

    @staticmethod
    def summary(run: GenerationRun) -> str:
        state = run.progress_state()
        lines = [
            f"Generation run {run.pk} {state['status_label'].lower()}: {state['requests']} requests, "
            f"{state['cache_hits']} cache hits, {state['unparsed']} replies without triples"
        ]
        lines += [f"  {system['name']}: {system['outputs']} outputs" for system in state["systems"]]
        lines += [f"  unparsed: text {reply.text_id}, seed {reply.seed}: {reply.problem}" for reply in unparsed(run)]
        return "\n".join(lines)

    def report(self, run: GenerationRun, as_json: bool, text: str) -> None:
        if as_json:
            state = run.progress_state()
            del state["chunks"]
            self.stdout.write(json.dumps({**state, "url": run.get_absolute_url(), "provenance": run.provenance()}))
        else:
            self.stdout.write(text)


def unparsed(run: GenerationRun) -> list[Any]:
    return list(run.replies.exclude(problem="").order_by("seed", "text__position")[:20])
