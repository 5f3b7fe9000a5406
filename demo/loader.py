"""The demo of fixtures/manifest.json (``manage.py load_demo``): data, accounts, a simulated study, a campaign, scores.

In order, as the manifest says:

1. datasets and system outputs, through the import service, as an admin's uploads would be;
2. the demo accounts: passwords are generated when an account is created and printed once;
   only Django's password hashes are kept (``--reset-passwords`` sets and prints new ones);
3. the simulated human study (``judgements``), through the service ``import_judgements`` uses,
   one imported campaign per file;
4. open annotation campaigns (``campaigns``) for the demo annotators, through
   ``annotation.services.campaigns.create_campaign``, so an annotator who signs in has work;
5. a scoring run per ``scoring`` entry, here and now (``scoring.jobs.run_in_process``, as
   ``score_outputs --sync``), unless ``--no-scores``;
6. the leaderboards of the datasets, here and now (``leaderboard.jobs.build_snapshots``), so
   the demo's pages are filled from the start.

It is an app of its own, above the three: the demo sets up all of them, and no app imports it.

Steps 1–4 are one transaction: a bad file or entry leaves the database as it was and the error
names it. Scoring follows once they are committed; a failed run is kept, marked failed, and
stops the command. Running the command again is harmless: the import services recognise
files they have already imported, a campaign of the same name is left alone, existing
accounts keep their passwords, and a dataset whose scores under the same settings are current
is not scored again.
"""

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission, User
from django.core.management.base import CommandError

from annotation.imports import ImportedJudgements, import_judgements
from annotation.imports import ImportRefused as JudgementsRefused
from annotation.models import MAX_ATTENTION_SHARE, Campaign
from annotation.practice import PracticeRecord, read_practice_file
from annotation.services.campaigns import create_campaign
from annotation.services.errors import CampaignError
from scoring.genres.aspects import METRICS
from scoring.genres.embedders import EMBEDDERS
from scoring.genres.judges.registry import JUDGES
from scoring.genres.scorer import ScoreSettings
from scoring.imports import ImportRefused, ImportSummary
from scoring.jobs import run_in_process
from scoring.manifests import (
    DatasetEntry,
    ManifestError,
    OutputsEntry,
    entries,
    existing_file,
    import_entry,
    known_dataset,
    load_manifest,
    read_file_list,
)
from scoring.models import Dataset, System
from scoring.models.runs import ScoringRun, latest_system_scores

DEFAULT_MANIFEST = settings.BASE_DIR / "fixtures" / "manifest.json"
SUPERUSER, ANNOTATOR, RESEARCHER = "superuser", "annotator", "researcher"
DEMO_ACCOUNTS = (
    ("admin", SUPERUSER),
    ("annotator1", ANNOTATOR),
    ("annotator2", ANNOTATOR),
    ("researcher", RESEARCHER),
)
# A researcher reads outputs (pages that name systems) and leaderboards; not staff, so no uploads
# or runs, and in no campaign, so nothing to annotate.
RESEARCHER_PERMISSION = {"content_type__app_label": "scoring", "codename": "view_output"}
PASSWORD_BYTES = 12  # 16 URL-safe characters
Entry = dict[str, Any]  # an entry of the manifest, as JSON


# Manifest entries --------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgementsEntry:
    file: Path
    dataset: str
    campaign: str


@dataclass(frozen=True)
class CampaignEntry:
    name: str
    dataset: str
    systems: tuple[str, ...]
    annotators: tuple[str, ...]
    texts: int
    overlap: float
    seed: int
    instructions: str
    practice: tuple[PracticeRecord, ...] = ()
    practice_pass_mark: float = 0.8
    attention_share: float = 0.0


@dataclass(frozen=True)
class ScoringEntry:
    dataset: str
    settings: ScoreSettings


@dataclass(frozen=True)
class Manifest:
    datasets: list[DatasetEntry]
    outputs: list[OutputsEntry]
    judgements: list[JudgementsEntry]
    campaigns: list[CampaignEntry]
    scoring: list[ScoringEntry]


# Reading the manifest ----------------------------------------------------------------------


def read_manifest(path: str | Path) -> Manifest:
    """Every entry of the manifest, checked before anything is imported.

    ``datasets`` and ``outputs`` are required (``scoring.manifests``); ``judgements``,
    ``campaigns`` and ``scoring`` may be left out.
    """
    try:
        return read_entries(path)
    except ManifestError as error:
        raise CommandError(str(error)) from None


def read_entries(path: str | Path) -> Manifest:
    manifest = load_manifest(path)
    files = read_file_list(manifest, path)
    for key in ("judgements", "campaigns", "scoring"):
        if not isinstance(manifest.setdefault(key, []), list):
            raise CommandError(f'{path}: "{key}" must be a list')
    base = Path(path).parent
    dataset_names = {dataset.name for dataset in files.datasets}
    outputs = files.outputs
    judgements = [
        JudgementsEntry(
            file=existing_file(base, entry, where),
            dataset=known_dataset(entry, dataset_names, where),
            campaign=entry["campaign"],
        )
        for where, entry in entries(manifest, "judgements", ("file", "dataset", "campaign"), path)
    ]
    campaigns = [
        campaign_entry(entry, dataset_names, outputs, where, base)
        for where, entry in entries(manifest, "campaigns", ("name", "dataset"), path)
    ]
    scoring = [
        ScoringEntry(dataset=known_dataset(entry, dataset_names, where), settings=score_settings(entry, where))
        for where, entry in entries(manifest, "scoring", ("dataset",), path)
    ]
    return Manifest(files.datasets, outputs, judgements, campaigns, scoring)


def percent(entry: Entry, key: str, where: str, default: int, most: int = 100) -> float:
    value = entry.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= most:
        raise CommandError(f'{where}: "{key}" must be a whole percentage from 0 to {most}')
    return value / 100


def practice_records(entry: Entry, base: Path, where: str) -> tuple[PracticeRecord, ...]:
    """The practice round of a campaign entry: its ``practice`` file (docs/formats.md), read now."""
    if "practice" not in entry:
        return ()
    file = base / str(entry["practice"])
    if not file.is_file():
        raise CommandError(f"{where}: there is no practice file {file}")
    try:
        return tuple(read_practice_file(file.read_bytes()))
    except ValueError as error:
        raise CommandError(f"{where}: {file.name}: {error}") from None


def campaign_entry(
    entry: Entry, dataset_names: set[str], outputs: list[OutputsEntry], where: str, base: Path
) -> CampaignEntry:
    dataset = known_dataset(entry, dataset_names, where)
    systems = string_list(entry, "systems", where)
    known_systems = {output.system for output in outputs if output.dataset == dataset} | {System.GROUND_TRUTH}
    unknown = [name for name in systems if name not in known_systems]
    if unknown:
        raise CommandError(f"{where}: no outputs on {dataset} for system(s) {', '.join(unknown)}")
    annotators = string_list(entry, "annotators", where)
    demo_annotators = [username for username, role in DEMO_ACCOUNTS if role == ANNOTATOR]
    strangers = [name for name in annotators if name not in demo_annotators]
    if strangers:
        raise CommandError(
            f"{where}: {', '.join(strangers)} is not a demo annotator account ({', '.join(demo_annotators)})"
        )
    texts, seed, overlap = entry.get("texts"), entry.get("seed", 0), entry.get("overlap", 0.5)
    if not isinstance(texts, int) or isinstance(texts, bool) or texts < 1:
        raise CommandError(f'{where}: "texts" must be a number of texts to sample, at least 1')
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise CommandError(f'{where}: "seed" must be a whole number')
    if not isinstance(overlap, (int, float)) or isinstance(overlap, bool) or not 0 <= overlap <= 1:
        raise CommandError(f'{where}: "overlap" must be a share between 0 and 1')
    return CampaignEntry(
        name=entry["name"],
        dataset=dataset,
        systems=tuple(systems),
        annotators=tuple(annotators),
        texts=texts,
        overlap=float(overlap),
        seed=seed,
        instructions=str(entry.get("instructions", "")),
        practice=practice_records(entry, base, where),
        practice_pass_mark=percent(entry, "practice_pass_percent", where, 80),
        attention_share=percent(entry, "attention_percent", where, 0, most=round(MAX_ATTENTION_SHARE * 100)),
    )


def string_list(entry: Entry, key: str, where: str) -> list[str]:
    value = entry.get(key)
    if not isinstance(value, list) or not value or not all(isinstance(item, str) and item.strip() for item in value):
        raise CommandError(f'{where}: "{key}" must be a list of names')
    return value


def score_settings(entry: Entry, where: str) -> ScoreSettings:
    chosen = entry.get("settings", {})
    if not isinstance(chosen, dict):
        raise CommandError(f'{where}: "settings" must be an object of ScoreSettings fields')
    if chosen.get("embedder", "hashing") not in EMBEDDERS:
        raise CommandError(f'{where}: unknown embedder "{chosen["embedder"]}"; use one of: {", ".join(EMBEDDERS)}')
    if chosen.get("judge", "heuristic") not in JUDGES:
        raise CommandError(f'{where}: unknown judge "{chosen["judge"]}"; use one of: {", ".join(JUDGES)}')
    try:
        return ScoreSettings(**chosen)
    except (TypeError, ValueError) as error:
        raise CommandError(f"{where}: {error}") from None


# Loading -----------------------------------------------------------------------------------


def import_file(entry: DatasetEntry | OutputsEntry, user: User | None) -> ImportSummary:
    """Import one manifest file through the import service; a refusal becomes a command error."""
    try:
        return import_entry(entry, user)
    except ImportRefused as refusal:
        raise CommandError(str(refusal)) from None


def import_study(entry: JudgementsEntry) -> ImportedJudgements:
    """Import one file of judgements as an imported campaign; the same file again changes nothing."""
    try:
        return import_judgements(entry.file, dataset_name=entry.dataset, campaign_name=entry.campaign)
    except JudgementsRefused as refusal:
        raise CommandError(f"{entry.file}: {refusal}") from None


@dataclass(frozen=True)
class CampaignResult:
    campaign: Campaign
    unchanged: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.campaign.name,
            "dataset": self.campaign.dataset.name,
            "texts": self.campaign.texts.count(),
            "items": self.campaign.items.filter(attention_worse="").count(),
            "attention_checks": self.campaign.items.exclude(attention_worse="").count(),
            "practice_items": self.campaign.practice_items.count(),
            "annotators": sorted(self.campaign.annotators.values_list("username", flat=True)),
            "unchanged": self.unchanged,
        }

    @property
    def message(self) -> str:
        details = self.as_dict()
        state = "exists already; left as it is" if self.unchanged else "created"
        quality = ""
        if details["practice_items"] or details["attention_checks"]:
            quality = (
                f" Quality control: a practice round of {details['practice_items']} pairs, "
                f"{details['attention_checks']} attention checks mixed in."
            )
        return (
            f"Campaign {details['name']} on {details['dataset']} {state}: {details['items']} items on "
            f"{details['texts']} texts for {', '.join(details['annotators'])}.{quality}"
        )


def ensure_campaign(entry: CampaignEntry, admin: User) -> CampaignResult:
    """Create the open campaign unless one of that name exists (then it is kept as it is)."""
    existing = Campaign.objects.filter(name=entry.name).select_related("dataset").first()
    if existing is not None:
        if existing.is_imported or existing.dataset.name != entry.dataset:
            raise CommandError(
                f"campaign {entry.name}: a campaign of that name exists already, "
                f"{'imported' if existing.is_imported else 'on ' + existing.dataset.name}; rename one of them"
            )
        return CampaignResult(existing, unchanged=True)
    try:
        created = create_campaign(
            name=entry.name,
            dataset=Dataset.objects.get(name=entry.dataset),
            systems=list(System.objects.filter(name__in=entry.systems)),
            annotators=list(get_user_model().objects.filter(username__in=entry.annotators).order_by("username")),
            seed=entry.seed,
            overlap_share=entry.overlap,
            instructions=entry.instructions,
            created_by=admin,
            sample_size=entry.texts,
            practice_items=entry.practice,
            practice_pass_mark=entry.practice_pass_mark,
            attention_share=entry.attention_share,
        )
    except CampaignError as error:
        raise CommandError(f"campaign {entry.name}: {error}") from None
    return CampaignResult(created.campaign, unchanged=False)


@dataclass(frozen=True)
class ScoringResult:
    run: ScoringRun
    unchanged: bool
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.run.dataset.name,
            "run": self.run.pk,
            "systems": self.run.systems.count(),
            "status": self.run.status,
            "unchanged": self.unchanged,
            "seconds": round(self.seconds, 2),
        }

    @property
    def message(self) -> str:
        provenance = self.run.provenance
        assert provenance is not None  # recorded when the run was created
        settings_used = f"embedder {provenance['embedder']}, judge {provenance['judge']}"
        if self.unchanged:
            return (
                f"Scores of {self.run.dataset.name} ({settings_used}) are current: run {self.run.pk}; not scored again."
            )
        return (
            f"Scored {self.run.dataset.name} ({settings_used}): run {self.run.pk}, "
            f"{self.run.systems.count()} systems, {self.seconds:.1f} s."
        )


def same_request(requested: ScoreSettings, stored: ScoreSettings) -> bool:
    """Equal settings, an unset topic count matching whichever count the run resolved it to."""
    if requested.lda_topics is None:
        requested = replace(requested, lda_topics=stored.lda_topics)
    return requested == stored


def current_run(dataset: Dataset, systems: list[System], score_settings: ScoreSettings) -> ScoringRun | None:
    """A finished run of every metric with these settings under which all ``systems`` have current scores."""
    wanted = {system.pk for system in systems}
    finished = ScoringRun.objects.filter(dataset=dataset, status=ScoringRun.Status.DONE)
    for run in finished:
        if run.metrics != list(METRICS) or not same_request(score_settings, run.settings_object()):
            continue
        current = {row.system_id for row in latest_system_scores(dataset, run.fingerprint) if row.is_current}
        if wanted <= current:
            return run
    return None


def score_dataset(
    entry: ScoringEntry, admin: User, on_chunk: Callable[[ScoringRun], object] | None = None
) -> ScoringResult:
    """Score every system of the dataset (Ground truth included), here, unless its scores are current;
    ``on_chunk(run)`` after each chunk."""
    dataset = Dataset.objects.get(name=entry.dataset)
    systems = list(System.objects.filter(outputs__text__dataset=dataset).distinct())
    started = time.monotonic()
    run = current_run(dataset, systems, entry.settings)
    if run is not None:
        return ScoringResult(run, unchanged=True, seconds=time.monotonic() - started)
    run = ScoringRun.create(dataset, systems, METRICS, entry.settings, user=admin)
    try:
        run = run_in_process(run, on_chunk)
    except Exception as error:
        raise CommandError(f"scoring run {run.pk} on {dataset.name} failed: {type(error).__name__}: {error}") from error
    return ScoringResult(run, unchanged=False, seconds=time.monotonic() - started)


# Accounts ----------------------------------------------------------------------------------


@dataclass
class Account:
    username: str
    role: str
    created: bool
    password: str | None  # only when this run set it

    def as_dict(self) -> dict[str, Any]:
        return {"username": self.username, "role": self.role, "created": self.created, "password": self.password}


def ensure_account(username: str, role: str, reset_password: bool) -> Account:
    """Create the demo account when missing; an existing one keeps its password unless reset."""
    user = get_user_model().objects.filter(username=username).first()
    created = user is None
    if user is None:
        user = get_user_model()(
            username=username,
            email=f"{username}@example.org",
            is_staff=role == SUPERUSER,
            is_superuser=role == SUPERUSER,
        )
    password = None
    if created or reset_password:
        password = secrets.token_urlsafe(PASSWORD_BYTES)
        user.set_password(password)
        user.save()
    if created and role == RESEARCHER:
        user.user_permissions.add(Permission.objects.get(**RESEARCHER_PERMISSION))
    return Account(username, role, created, password)


def account_line(account: Account) -> str:
    if account.password:
        state = "created" if account.created else "password reset"
        return f"{account.username:<11} password {account.password}  ({account.role}; {state})"
    return f"{account.username:<11} exists; its password is unchanged  ({account.role})"


# The command -------------------------------------------------------------------------------


@dataclass
class Loaded:
    accounts: list[Account]
    imports: list[tuple[DatasetEntry | OutputsEntry, ImportSummary]]
    studies: list[ImportedJudgements]
    campaigns: list[CampaignResult]
    scores: list[ScoringResult]

    @property
    def results(self) -> list[ImportedJudgements | CampaignResult | ScoringResult]:
        return [*self.studies, *self.campaigns, *self.scores]

    @property
    def unchanged(self) -> bool:
        return (
            all(summary.unchanged for _, summary in self.imports)
            and all(result.unchanged for result in self.results)
            and not any(account.password for account in self.accounts)
        )

    def as_dict(self) -> dict[str, Any]:
        reports = [(entry, entry.report(summary)) for entry, summary in self.imports]
        return {
            "datasets": [report for entry, report in reports if isinstance(entry, DatasetEntry)],
            "outputs": [report for entry, report in reports if isinstance(entry, OutputsEntry)],
            "judgements": [
                {
                    "campaign": study.campaign.name,
                    "dataset": study.campaign.dataset.name,
                    "judgements": study.judgements,
                    "items": study.items,
                    "annotators": study.annotators,
                    "unchanged": study.unchanged,
                }
                for study in self.studies
            ],
            "campaigns": [result.as_dict() for result in self.campaigns],
            "scoring": [result.as_dict() for result in self.scores],
            "accounts": [account.as_dict() for account in self.accounts],
            "unchanged": self.unchanged,
        }
