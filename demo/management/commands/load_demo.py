"""``manage.py load_demo``: the demo's data, accounts, simulated study, campaign and scores, as
``demo.loader`` describes, with a line on stderr as each step starts."""

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from demo.loader import (
    DEFAULT_MANIFEST,
    DEMO_ACCOUNTS,
    CampaignResult,
    Loaded,
    ScoringEntry,
    ScoringResult,
    account_line,
    ensure_account,
    ensure_campaign,
    import_file,
    import_study,
    read_manifest,
    score_dataset,
)
from demo.triple_check import TripleCheckResult, ensure_triple_check, read_triple_checks
from leaderboard.jobs import build_snapshots
from scoring.manifests import DatasetEntry, OutputsEntry
from scoring.models import Dataset
from scoring.models.runs import RunChunk, ScoringRun


class Command(BaseCommand):
    verbosity = 1

    help = (
        "Load the demo of fixtures/manifest.json: datasets, system outputs, the demo accounts, the simulated "
        "human study, an open annotation campaign, and GENRES scores of every system."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--manifest", default=str(DEFAULT_MANIFEST), help="The manifest of demo files to load.")
        parser.add_argument("--reset-passwords", action="store_true", help="Set and print new demo passwords.")
        parser.add_argument("--no-scores", action="store_true", help="Load everything but start no scoring run.")
        parser.add_argument("--json", action="store_true", help="Print one JSON object instead of a summary.")

    def score(self, entry: ScoringEntry, admin: User) -> ScoringResult:
        settings_used = f"embedder {entry.settings.embedder}, judge {entry.settings.judge}"
        self.progress(f"Scoring {entry.dataset} ({settings_used}) unless its scores are current")

        shown: set[int] = set()

        def chunk_done(run: ScoringRun) -> None:  # a cancelled chunk reports too: each count is shown once
            done = run.chunks.filter(status=RunChunk.Status.DONE).count()
            if done not in shown:
                shown.add(done)
                self.progress(f"  {entry.dataset}: {done} of {run.chunks.count()} chunks scored")

        return score_dataset(entry, admin, chunk_done)

    def progress(self, message: str) -> None:
        """A line on stderr as each step starts: stdout may be the JSON answer, captured by serve."""
        if self.verbosity > 0:
            self.stderr.write(message)
            self.stderr.flush()

    def handle(self, *args: Any, **options: Any) -> None:
        self.verbosity = options["verbosity"]
        manifest = read_manifest(options["manifest"])
        triple_check_entries = read_triple_checks(options["manifest"])
        with transaction.atomic():
            self.progress(f"Demo accounts: {', '.join(name for name, _role in DEMO_ACCOUNTS)}")
            accounts = [ensure_account(name, role, options["reset_passwords"]) for name, role in DEMO_ACCOUNTS]
            admin = get_user_model().objects.get(username=DEMO_ACCOUNTS[0][0])
            self.progress(
                f"Importing {len(manifest.datasets)} datasets and {len(manifest.outputs)} output files "
                "(a file imported before is recognised and left as it is)"
            )
            files: list[DatasetEntry | OutputsEntry] = [*manifest.datasets, *manifest.outputs]
            imports = [(entry, import_file(entry, admin)) for entry in files]
            self.progress(f"Importing {len(manifest.judgements)} files of simulated human judgements")
            studies = [import_study(entry) for entry in manifest.judgements]
            campaigns = [ensure_campaign(entry, admin) for entry in manifest.campaigns]
        scores = [] if options["no_scores"] else [self.score(entry, admin) for entry in manifest.scoring]
        if triple_check_entries:
            self.progress(f"Triple checks with simulated labels: {', '.join(e.name for e in triple_check_entries)}")
        triple_checks = [ensure_triple_check(entry, admin) for entry in triple_check_entries]
        loaded = Loaded(accounts, imports, studies, campaigns, scores)
        unchanged = loaded.unchanged and all(result.unchanged for result in triple_checks)
        for dataset in Dataset.objects.filter(name__in=[entry.name for entry in manifest.datasets]):
            if not (unchanged and dataset.leaderboard_snapshots.exists()):
                self.progress(f"Building the leaderboards of {dataset.name}")
                build_snapshots(dataset)
        if options["json"]:
            answer = loaded.as_dict()
            answer["triple_checks"] = [result.as_dict() for result in triple_checks]
            answer["unchanged"] = unchanged
            self.stdout.write(json.dumps(answer))
            return
        for _, summary in imports:
            self.stdout.write(summary.report() if options["verbosity"] > 1 else summary.message)
        for study in studies:
            self.stdout.write(str(study))
        results: list[CampaignResult | ScoringResult | TripleCheckResult] = [*campaigns, *scores, *triple_checks]
        for result in results:
            self.stdout.write(result.message)
        self.stdout.write("Demo accounts:")
        for account in accounts:
            self.stdout.write(f"  {account_line(account)}")
        if unchanged:
            self.stdout.write(self.style.SUCCESS("Demo data already loaded: nothing changed."))
        else:
            counts = ", ".join(
                f"{count} {noun}" if count == 1 else f"{count} {noun}s"
                for count, noun in (
                    (len(manifest.datasets), "dataset"),
                    (len(manifest.outputs), "output file"),
                    (len(studies), "judgement file"),
                    (len(campaigns), "open campaign"),
                    (len(scores), "scoring run"),
                    (len(triple_checks), "triple check"),
                )
            )
            self.stdout.write(self.style.SUCCESS(f"Demo data loaded: {counts}."))
