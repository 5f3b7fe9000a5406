"""Import pairwise judgements of a study run elsewhere, from CSV, as a closed "imported" campaign.

The file has the header ``text,system_a,system_b,aspect,annotator,winner`` (more columns are
ignored, so a campaign export loads back unchanged). ``text`` is a text's external id, its
content, or its database id, matched exactly first; only when nothing matches exactly is the
apostrophe the app's exports put before a formula-like cell removed (``'=1+1`` names the text
``'=1+1`` when there is one, else ``=1+1``); a reference that names two texts is refused.
``winner`` (a, b or tie) is about that row's system_a and
system_b and is turned to canonical order when system_a has the larger id.

The GENRES authors' layout (``--layout authors``) is read too: one CSV per aspect, named by the
aspect (``Topical_merged.csv``, ``Completeness_for_Patrick_pairwise_comparisons.csv``), with the
header ``sample_id,model_A_name,model_B_name,win``. ``sample_id`` is the text's 0-based position in
the dataset, ``win`` is ``model_A_win``, ``model_B_win`` or ``tie``, the model names are mapped to
system names (``--system-name Groundtruth="Ground truth"``), and the annotator is one name for
the whole file (their files are merged over annotators). The files' rows are taken in the order
given, each file in its own order, so a single-pass Elo replays their order.

All or nothing: every row is checked first, and a file with any bad row changes nothing; the
error names each bad line and the reason. Rows are stored in file order, so judgement primary
keys keep the file's order for online Elo. Importing the same file again changes nothing.
"""

import csv
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.dispatch import Signal

from annotation.exports import from_spreadsheet_safe
from annotation.models import ASPECTS, Assignment, Campaign, CampaignAnnotator, Item, Judgement, Label
from scoring.models import Dataset, System, Text, name_validator, text_hash

REQUIRED_COLUMNS = ("text", "system_a", "system_b", "aspect", "annotator", "winner")
SWAPPED_LABEL: dict[str, str] = {Label.A: Label.B, Label.B: Label.A, Label.TIE: Label.TIE}
# A refusal lists this many bad lines, then says how many more there are.
MAX_REPORTED_ERRORS = 20
QUOTED_CHARS = 60
# (line number, {column: value}) of one line of a judgements CSV.
CsvRecord = tuple[int, dict[str, str]]
# A place in the files, for errors: a line number, or "FILE line N" among several files.
Place = int | str


# Sent inside the import's transaction with ``dataset`` once the judgements are stored: their
# bulk insert sends no per-row signal, and what reads them (the leaderboards) listens to this.
judgements_imported = Signal()


class ImportRefused(Exception):
    pass


@dataclass(frozen=True)
class ImportedJudgements:
    campaign: Campaign
    judgements: int
    items: int
    annotators: int
    new_accounts: int
    unchanged: bool

    def __str__(self) -> str:
        if self.unchanged:
            return f"Campaign {self.campaign.name} already holds exactly these judgements: nothing changed."
        return (
            f"Imported {counted(self.judgements, 'judgement')} of {counted(self.items, 'item')} "
            f"by {counted(self.annotators, 'annotator')} into campaign {self.campaign.name} "
            f"({counted(self.new_accounts, 'new account')}, which cannot sign in)."
        )


def counted(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


@dataclass(frozen=True)
class Row:
    line: Place
    text: Text
    system_a: System
    system_b: System
    aspect: str
    annotator: str
    label: str  # canonical

    @property
    def key(self) -> tuple[int, int, int, str, str]:
        return (self.text.pk, self.system_a.pk, self.system_b.pk, self.aspect, self.annotator)


def _quoted(value: object) -> str:
    shown = str(value)
    return repr(shown if len(shown) <= QUOTED_CHARS else shown[: QUOTED_CHARS - 1] + "…")


def read_csv(path: str | os.PathLike[str], columns: tuple[str, ...] = REQUIRED_COLUMNS) -> list[CsvRecord]:
    """``[(line number, {column: value})]`` of a judgements CSV, refused if it cannot be read."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise ImportRefused(f"Cannot read {path}: {error.strerror}.") from error
    if size > settings.GENRES_MAX_UPLOAD_BYTES:
        raise ImportRefused(
            f"{path.name} has {size} bytes, more than the limit of {settings.GENRES_MAX_UPLOAD_BYTES} "
            "(GENRES_MAX_UPLOAD_BYTES)."
        )
    records: list[CsvRecord] = []
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
            missing = [column for column in columns if column not in (reader.fieldnames or [])]
            if missing:
                raise ImportRefused(f"line 1: the header lacks {', '.join(missing)}; expected {','.join(columns)}.")
            start = reader.line_num + 1
            for record in reader:
                if any(record.get(column) is None for column in columns):
                    raise ImportRefused(f"line {start}: expected {len(reader.fieldnames or ())} fields, found fewer.")
                if (record.get("attention_check") or "").strip().lower() in ("true", "1"):
                    # An exported attention check: a system against a worse copy of itself, never rated.
                    start = reader.line_num + 1
                    continue
                # The text reference keeps its apostrophe: _TextIndex tries it exactly before unescaping.
                records.append(
                    (
                        start,
                        {
                            column: record[column] if column == "text" else from_spreadsheet_safe(record[column])
                            for column in columns
                        },
                    )
                )
                start = reader.line_num + 1
    except UnicodeDecodeError as error:
        raise ImportRefused(f"{path.name} is not UTF-8 text ({error.reason} at byte {error.start}).") from error
    except csv.Error as error:
        raise ImportRefused(f"line {reader.line_num}: not valid CSV ({error}).") from error
    if not records:
        raise ImportRefused(f"{path.name} has a header but no judgements.")
    return records


AUTHORS_HEADER = ("sample_id", "model_A_name", "model_B_name", "win")
AUTHORS_ASPECTS = {"Topical": "ts", "Uniqueness": "us", "Factualness": "fs", "Granularity": "gs", "Completeness": "cs"}
AUTHORS_WINNERS = {"model_A_win": "a", "model_B_win": "b", "tie": "tie", "tie (bothbad)": "tie"}
AUTHORS_ANNOTATOR = "genres-authors"


def read_authors_csvs(
    paths: Sequence[str | os.PathLike[str]],
    dataset: Dataset,
    system_names: dict[str, str],
    annotator: str = AUTHORS_ANNOTATOR,
) -> list[tuple[Place, dict[str, str]]]:
    """The rows of the authors' per-aspect files in this app's columns, in the order given; refused
    (naming the file and line) for a file whose name has no aspect, a bad header or sample id."""
    text_ids = list(dataset.texts.order_by("position").values_list("pk", flat=True))
    records: list[tuple[Place, dict[str, str]]] = []
    for path in map(Path, paths):
        aspect = next((code for name, code in AUTHORS_ASPECTS.items() if path.name.startswith(name)), None)
        if aspect is None:
            raise ImportRefused(
                f"{path.name}: the file name does not start with an aspect ({', '.join(AUTHORS_ASPECTS)})."
            )
        for line, record in read_csv(path, AUTHORS_HEADER):
            sample = record["sample_id"].strip()
            position = int(float(sample)) if sample.replace(".", "", 1).isdigit() else -1  # pandas wrote 3.0 for 3
            if not 0 <= position < len(text_ids):
                raise ImportRefused(
                    f"{path.name} line {line}: sample_id {_quoted(sample)} is not a position in dataset {dataset.name} "
                    f"(0 to {len(text_ids) - 1})."
                )
            records.append(
                (
                    f"{path.name} line {line}",
                    {
                        "text": str(text_ids[position]),
                        "system_a": system_names.get(record["model_A_name"].strip(), record["model_A_name"]),
                        "system_b": system_names.get(record["model_B_name"].strip(), record["model_B_name"]),
                        "aspect": aspect,
                        "annotator": annotator,
                        "winner": AUTHORS_WINNERS.get(record["win"].strip(), record["win"]),
                    },
                )
            )
    return records


class AmbiguousReference(Exception):
    """A text reference that names two different texts (one by its id, the other by its content)."""


class _TextIndex:
    def __init__(self, dataset: Dataset) -> None:
        texts = list(dataset.texts.all())
        self.by_external_id = {text.external_id: text for text in texts if text.external_id}
        self.by_hash = {text.content_sha256: text for text in texts}
        self.by_id = {str(text.pk): text for text in texts}

    def find(self, reference: str) -> Text | None:
        """The text ``reference`` names exactly, else the one it names once unescaped, else None.

        Raises AmbiguousReference when the reference is one text's id and another text's content.
        """
        text = self.exact(reference) or self.by_id.get(reference.strip())
        unescaped = from_spreadsheet_safe(reference)
        if text is None and unescaped != reference:
            text = self.exact(unescaped)
        return text

    def exact(self, reference: str) -> Text | None:
        by_id = self.by_external_id.get(reference.strip())
        by_content = self.by_hash.get(text_hash(reference)) or self.by_hash.get(text_hash(reference.strip()))
        if by_id and by_content and by_id != by_content:
            raise AmbiguousReference(
                f"the text reference {_quoted(reference)} is the id of text {by_id.position + 1} and the content "
                f"of text {by_content.position + 1}"
            )
        return by_id or by_content


def _where(line: Place) -> str:
    """A row's place in an error: "line 3" in one file, "Topical_merged.csv line 3" among several."""
    return f"line {line}" if isinstance(line, int) else line


def _check_rows(records: Iterable[tuple[Place, dict[str, str]]], dataset: Dataset) -> list[Row]:
    texts = _TextIndex(dataset)
    systems = {system.name: system for system in System.objects.all()}
    username_field: Any = get_user_model()._meta.get_field(get_user_model().USERNAME_FIELD)  # a model field
    rows: list[Row] = []
    errors: list[str] = []
    first_seen: dict[tuple[int, int, int, str, str], Place] = {}

    for line, record in records:
        problems: list[str] = []
        text: Text | None
        try:
            text = texts.find(record["text"])
        except AmbiguousReference as error:
            text = None
            problems.append(str(error))
        else:
            if text is None:
                problems.append(f"unknown text {_quoted(record['text'])} in dataset {dataset.name}")
        named: list[System | None] = []
        for column in ("system_a", "system_b"):
            name = record[column].strip()
            if name == System.GROUND_TRUTH and name not in systems:
                systems[name] = System.ground_truth()
            if name not in systems:
                problems.append(f"unknown system {_quoted(name)} in {column}")
            named.append(systems.get(name))
        first_system, second_system = named
        if first_system and first_system == second_system:
            problems.append(f"system_a and system_b are both {first_system.name}")
        aspect = record["aspect"].strip().lower()
        if aspect not in ASPECTS:
            problems.append(f"unknown aspect {_quoted(record['aspect'])} (expected {', '.join(ASPECTS)})")
        winner = record["winner"].strip().lower()
        if winner not in Label.values:
            problems.append(f"unknown winner {_quoted(record['winner'])} (expected a, b or tie)")
        annotator = record["annotator"].strip()
        try:
            username_field.clean(annotator, None)
        except ValidationError as error:
            problems.append(f"annotator {_quoted(annotator)}: {' '.join(error.messages)}")
        if problems:
            errors.append(f"{_where(line)}: {'; '.join(problems)}.")
            continue
        # Each of these, missing, added a problem above.
        assert text is not None and first_system is not None and second_system is not None

        system_a, system_b, swapped = Item.canonical_pair(first_system, second_system)
        row = Row(line, text, system_a, system_b, aspect, annotator, SWAPPED_LABEL[winner] if swapped else winner)
        if row.key in first_seen:
            errors.append(
                f"{_where(line)}: duplicate of {_where(first_seen[row.key])} "
                f"(same text, systems, aspect {aspect} and annotator {annotator})."
            )
            continue
        first_seen[row.key] = line
        rows.append(row)

    if errors:
        shown = errors[:MAX_REPORTED_ERRORS]
        if len(errors) > MAX_REPORTED_ERRORS:
            shown.append(f"… and {len(errors) - MAX_REPORTED_ERRORS} more bad lines.")
        raise ImportRefused("Nothing was imported:\n" + "\n".join(shown))
    return rows


def _stored_rows(campaign: Campaign) -> list[tuple[Any, ...]]:
    return list(
        Judgement.objects.filter(assignment__item__campaign=campaign)
        .order_by("pk")
        .values_list(
            "assignment__item__text_id",
            "assignment__item__system_a_id",
            "assignment__item__system_b_id",
            "aspect",
            "assignment__annotator__username",
            "label",
        )
    )


def _accounts(usernames: list[str]) -> tuple[dict[str, User], int]:
    """User accounts for the annotators named in the file; new ones get an unusable password."""
    user_model = get_user_model()
    existing = {user.get_username(): user for user in user_model.objects.filter(username__in=usernames)}
    new = []
    for username in usernames:
        if username not in existing:
            user = user_model(username=username)
            user.set_unusable_password()
            new.append(user)
    for user in user_model.objects.bulk_create(new):
        existing[user.get_username()] = user
    return existing, len(new)


def _campaign_name(path: str | os.PathLike[str], campaign_name: str | None) -> str:
    name = (campaign_name or Path(path).stem).strip()
    try:
        name_validator(name)
    except ValidationError as error:
        origin = "--campaign" if campaign_name else "the file name"
        raise ImportRefused(
            f"Campaign name {_quoted(name)} (from {origin}) is not valid: {' '.join(error.messages)} "
            "Give one with --campaign."
        ) from error
    return name


@transaction.atomic
def import_judgements(
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    dataset_name: str,
    campaign_name: str | None = None,
    layout: str = "app",
    system_names: dict[str, str] | None = None,
) -> ImportedJudgements:
    """Import the CSV at ``path`` (layout ``authors``: a list of the authors' per-aspect files) into
    a new imported campaign of the dataset; see the module docstring."""
    paths: list[str | os.PathLike[str]] = (
        list(path) if isinstance(path, Sequence) and not isinstance(path, str) else [path]
    )
    if layout != "authors" and len(paths) != 1:
        raise ImportRefused("The app's layout is one file; several files are for the authors' layout.")
    name = _campaign_name(paths[0], campaign_name)
    try:
        dataset = Dataset.objects.get(name=dataset_name)
    except Dataset.DoesNotExist as error:
        raise ImportRefused(f"No dataset named {_quoted(dataset_name)}.") from error
    records: list[tuple[Place, dict[str, str]]]
    if layout == "authors":
        records = read_authors_csvs(paths, dataset, system_names or {})
    else:
        records = list(read_csv(paths[0]))
    rows = _check_rows(records, dataset)

    existing = Campaign.objects.filter(name=name).first()
    if existing is not None:
        wanted = [(row.text.pk, row.system_a.pk, row.system_b.pk, row.aspect, row.annotator, row.label) for row in rows]
        if existing.is_imported and existing.dataset_id == dataset.pk and _stored_rows(existing) == wanted:
            return ImportedJudgements(
                existing, len(rows), existing.items.count(), existing.memberships.count(), 0, True
            )
        raise ImportRefused(
            f"A campaign named {name} exists already, with other judgements; choose another name with --campaign."
        )

    usernames = list(dict.fromkeys(row.annotator for row in rows))
    accounts, new_accounts = _accounts(usernames)
    campaign = _imported_campaign(name, dataset, rows, paths)
    CampaignAnnotator.objects.bulk_create(
        CampaignAnnotator(campaign=campaign, annotator=accounts[username]) for username in usernames
    )
    items = _store_judgements(campaign, rows, accounts)
    judgements_imported.send(sender=Campaign, dataset=dataset)
    return ImportedJudgements(campaign, len(rows), items, len(usernames), new_accounts, False)


def _imported_campaign(
    name: str, dataset: Dataset, rows: list[Row], paths: Sequence[str | os.PathLike[str]]
) -> Campaign:
    """A closed, imported campaign of the rows' texts and systems, its overlap as it was in the study."""
    texts = list(dict.fromkeys(row.text for row in rows))
    annotators_of_text: dict[int, set[str]] = {}
    for row in rows:
        annotators_of_text.setdefault(row.text.pk, set()).add(row.annotator)
    campaign = Campaign.objects.create(
        name=name,
        dataset=dataset,
        is_imported=True,
        is_open=False,
        # The overlap as it was in the study: the share of texts two or more annotators judged.
        overlap_share=sum(len(names) >= 2 for names in annotators_of_text.values()) / len(texts),
        instructions=f"Imported from {', '.join(Path(each).name for each in paths)}.",
    )
    campaign.systems.set({system for row in rows for system in (row.system_a, row.system_b)})
    campaign.texts.set(texts)
    return campaign


def _store_judgements(campaign: Campaign, rows: list[Row], accounts: dict[str, User]) -> int:
    """The rows as items, assignments (done once all five aspects are there) and judgements of
    ``campaign``, each annotator's queue in file order; returns the number of items."""
    item_keys = list(dict.fromkeys((row.text, row.system_a, row.system_b) for row in rows))
    items = dict(
        zip(
            item_keys,
            Item.objects.bulk_create(
                Item(campaign=campaign, text=text, system_a=system_a, system_b=system_b)
                for text, system_a, system_b in item_keys
            ),
            strict=True,
        )
    )
    aspects_of: dict[tuple[Item, str], set[str]] = {}
    for row in rows:
        aspects_of.setdefault((items[row.text, row.system_a, row.system_b], row.annotator), set()).add(row.aspect)
    queue_lengths = dict.fromkeys(accounts, 0)
    assignments = {}
    for (item, username), aspects in aspects_of.items():
        assignments[item, username] = Assignment(
            item=item,
            annotator=accounts[username],
            # Where each system was shown is unknown for an imported study; exports leave the sides blank.
            a_on_left=True,
            queue_position=queue_lengths[username],
            status=Assignment.Status.DONE if set(ASPECTS) <= aspects else Assignment.Status.PENDING,
        )
        queue_lengths[username] += 1
    Assignment.objects.bulk_create(assignments.values())
    Judgement.objects.bulk_create(
        Judgement(
            assignment=assignments[items[row.text, row.system_a, row.system_b], row.annotator],
            aspect=row.aspect,
            label=row.label,
        )
        for row in rows
    )
    return len(items)
