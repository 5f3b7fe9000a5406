"""Load the demo data listed in fixtures/manifest.json, and create the demo accounts.

Everything goes through the import service, as an admin's uploads would, in one
transaction: a bad file leaves the database as it was. Running the command again is
harmless: the import service recognises files it has already imported, and existing
accounts keep their passwords. Passwords are generated when an account is created and printed
once; only Django's password hashes are kept (``--reset-passwords`` sets and prints new ones).
"""

import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files import File
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from scoring.genres.formats import AUTO, DATASET_FORMATS, OUTPUT_FORMATS
from scoring.imports import ImportRefused, import_dataset, import_outputs
from scoring.models import Dataset

DEFAULT_MANIFEST = settings.BASE_DIR / "fixtures" / "manifest.json"
SUPERUSER, ANNOTATOR = "superuser", "annotator"
DEMO_ACCOUNTS = (("admin", SUPERUSER), ("annotator1", ANNOTATOR), ("annotator2", ANNOTATOR))
PASSWORD_BYTES = 12  # 16 URL-safe characters


@dataclass(frozen=True)
class DatasetEntry:
    file: Path
    name: str
    level: str
    domain: str
    description: str
    format: str

    def run_import(self, source, user):
        return import_dataset(
            source,
            file_name=self.file.name,
            name=self.name,
            level=self.level,
            domain=self.domain,
            description=self.description,
            format=self.format,
            user=user,
        )

    def report(self, summary):
        return {"name": self.name, **summary.as_dict()}


@dataclass(frozen=True)
class OutputsEntry:
    file: Path
    dataset: str
    system: str
    family: str
    format: str

    def run_import(self, source, user):
        return import_outputs(
            source,
            file_name=self.file.name,
            dataset=self.dataset,
            system_name=self.system,
            family=self.family,
            format=self.format,
            user=user,
        )

    def report(self, summary):
        return {"dataset": self.dataset, "system": self.system, **summary.as_dict()}


def read_manifest(path):
    """The manifest's datasets and output files, checked before anything is imported."""
    try:
        manifest = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CommandError(f"cannot read the demo manifest {path}: {error}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("datasets"), list) or not isinstance(
        manifest.get("outputs"), list
    ):
        raise CommandError(f'{path}: expected an object with the lists "datasets" and "outputs"')
    base = Path(path).parent
    datasets = [
        DatasetEntry(
            file=existing_file(base, entry, where),
            name=entry["name"],
            level=entry.get("level", Dataset.Level.SENTENCE),
            domain=entry.get("domain", Dataset.Domain.GENERAL),
            description=entry.get("description", ""),
            format=known_format(entry, DATASET_FORMATS, where),
        )
        for where, entry in entries(manifest, "datasets", ("file", "name"), path)
    ]
    outputs = []
    for where, entry in entries(manifest, "outputs", ("file", "dataset", "system"), path):
        if entry["dataset"] not in {dataset.name for dataset in datasets}:
            raise CommandError(f'{where}: dataset "{entry["dataset"]}" is not among the manifest\'s datasets')
        outputs.append(
            OutputsEntry(
                file=existing_file(base, entry, where),
                dataset=entry["dataset"],
                system=entry["system"],
                family=entry.get("family", ""),
                format=known_format(entry, OUTPUT_FORMATS, where),
            )
        )
    return datasets, outputs


def entries(manifest, key, required, path):
    for number, entry in enumerate(manifest[key], start=1):
        where = f"{path}: {key} entry {number}"
        if not isinstance(entry, dict):
            raise CommandError(f"{where}: expected an object")
        missing = [name for name in required if not isinstance(entry.get(name), str) or not entry[name].strip()]
        if missing:
            raise CommandError(f"{where}: missing {', '.join(missing)}")
        yield where, entry


def known_format(entry, formats, where):
    format = entry.get("format", AUTO)
    if format not in (AUTO, *formats):
        raise CommandError(f'{where}: unknown format "{format}"; use one of: {", ".join((AUTO, *formats))}')
    return format


def existing_file(base, entry, where):
    file = base / entry["file"]
    if not file.is_file():
        raise CommandError(f"{where}: there is no file {file}")
    return file


def import_entry(entry, user):
    """Import one manifest file through the import service; a refusal becomes a command error."""
    with entry.file.open("rb") as handle:
        try:
            return entry.run_import(File(handle, name=entry.file.name), user)
        except ImportRefused as refusal:
            raise CommandError(f"{entry.file}: {refusal}") from None


@dataclass
class Account:
    username: str
    role: str
    created: bool
    password: str | None  # only when this run set it

    def as_dict(self):
        return {"username": self.username, "role": self.role, "created": self.created, "password": self.password}


def ensure_account(username, role, reset_password):
    """Create the demo account when missing; an existing one keeps its password unless reset."""
    user = get_user_model().objects.filter(username=username).first()
    created = user is None
    if created:
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
    return Account(username, role, created, password)


class Command(BaseCommand):
    help = "Load the demo datasets and system outputs of fixtures/manifest.json and create the demo accounts."

    def add_arguments(self, parser):
        parser.add_argument("--manifest", default=str(DEFAULT_MANIFEST), help="The manifest of demo files to load.")
        parser.add_argument("--reset-passwords", action="store_true", help="Set and print new demo passwords.")
        parser.add_argument("--json", action="store_true", help="Print one JSON object instead of a summary.")

    def handle(self, *args, **options):
        datasets, outputs = read_manifest(options["manifest"])
        with transaction.atomic():
            accounts = [ensure_account(name, role, options["reset_passwords"]) for name, role in DEMO_ACCOUNTS]
            admin = get_user_model().objects.get(username=DEMO_ACCOUNTS[0][0])
            results = [(entry, import_entry(entry, admin)) for entry in [*datasets, *outputs]]
        unchanged = all(summary.unchanged for _, summary in results) and not any(
            account.password for account in accounts
        )
        if options["json"]:
            reports = [(entry, entry.report(summary)) for entry, summary in results]
            answer = {
                "datasets": [report for entry, report in reports if isinstance(entry, DatasetEntry)],
                "outputs": [report for entry, report in reports if isinstance(entry, OutputsEntry)],
                "accounts": [account.as_dict() for account in accounts],
                "unchanged": unchanged,
            }
            self.stdout.write(json.dumps(answer))
            return
        for _, summary in results:
            self.stdout.write(summary.report() if options["verbosity"] > 1 else summary.message)
        self.stdout.write("Demo accounts:")
        for account in accounts:
            self.stdout.write(f"  {account_line(account)}")
        if unchanged:
            self.stdout.write(self.style.SUCCESS("Demo data already loaded: nothing changed."))
        else:
            loaded = f"{len(datasets)} datasets, {len(outputs)} output files"
            self.stdout.write(self.style.SUCCESS(f"Demo data loaded: {loaded}."))


def account_line(account):
    if account.password:
        state = "created" if account.created else "password reset"
        return f"{account.username:<11} password {account.password}  ({account.role}; {state})"
    return f"{account.username:<11} exists; its password is unchanged  ({account.role})"
