"""Downloads of a campaign's judgements: one row per item, aspect and annotator, as CSV or JSON Lines.

Rows come in judgement order (primary key: the order of saving or importing), and the first six
columns are exactly the ``import_judgements`` format, so an export loads into another
installation unchanged and keeps the order online Elo replays. ``text`` is the text's external
id, or its content when it has none, so it resolves in any copy of the dataset.

Quality control travels along: the rows of attention checks (``attention_check`` true; both
systems are the one whose output was copied, and ``import_judgements`` skips them), whether the
checked aspect was passed, the annotator's comment on the item, and whether the annotator is
left out of ratings. So does adjudication: staff's resolution of the item and aspect (label,
note, who and when), the same on every annotator's row of it.

Staff read annotators' user names; anyone else reads pseudonyms (``pseudonymise``): "annotator-1",
"annotator-2"… in the order of each annotator's first judgement of the campaign, the same in every
format, and "staff" for whoever adjudicated.
"""

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db.models import Min, QuerySet

from annotation.models import Campaign, Judgement, Label, Resolution

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = (
    "text",
    "system_a",
    "system_b",
    "aspect",
    "annotator",
    "winner",
    "winning_system",
    "system_a_side",
    "system_b_side",
    "campaign",
    "dataset",
    "text_id",
    "text_position",
    "judged_at",
    "first_judged_at",
    "item_started_at",
    "item_completed_at",
    "item_seconds_spent",
    "item_status",
    "attention_check",
    "attention_aspect",
    "attention_passed",
    "comment",
    "annotator_excluded",
    "adjudicated",
    "adjudication_note",
    "adjudicated_by",
    "adjudicated_at",
)
# Spreadsheets run cells starting with these as formulas; such cells get a leading apostrophe,
# which import_judgements removes again.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
ROWS_PER_QUERY = 2000
TIMESTAMP_COLUMNS = ("judged_at", "first_judged_at", "item_started_at", "item_completed_at", "adjudicated_at")
PARQUET_TYPE = "application/vnd.apache.parquet"


def _timestamp(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def pseudonyms(campaign: Campaign) -> dict[int, str]:
    """Annotator id -> "annotator-N", numbered in the order of their first judgement of ``campaign``."""
    first_seen = (
        Judgement.objects.filter(assignment__item__campaign=campaign)
        .values_list("assignment__annotator_id", flat=True)
        .annotate(first=Min("pk"))
        .order_by("first")
    )
    return {annotator_id: f"annotator-{number}" for number, annotator_id in enumerate(first_seen, start=1)}


def member_pseudonyms(campaign: Campaign) -> dict[int, str]:
    """:func:`pseudonyms`, then the annotators who joined but judged nothing yet, numbered on in
    order of joining (a progress report names them too; the exports never do)."""
    names = pseudonyms(campaign)
    waiting = campaign.memberships.exclude(annotator_id__in=names).order_by("added_at", "pk")
    for number, annotator_id in enumerate(waiting.values_list("annotator_id", flat=True), start=len(names) + 1):
        names[annotator_id] = f"annotator-{number}"
    return names


@dataclass(frozen=True)
class CampaignFacts:
    """What a campaign's export rows need beyond each judgement's own: the campaign, its
    pseudonyms (None: user names), its left-out annotators and its resolutions."""

    campaign: Campaign
    names: dict[int, str] | None
    excluded: set[int]
    resolutions: dict[tuple[int, str], Resolution]

    @classmethod
    def of(cls, campaign: Campaign, pseudonymise: bool) -> "CampaignFacts":
        return cls(
            campaign=campaign,
            names=pseudonyms(campaign) if pseudonymise else None,
            excluded=set(campaign.memberships.filter(excluded=True).values_list("annotator_id", flat=True)),
            resolutions={
                (resolution.item_id, resolution.aspect): resolution
                for resolution in Resolution.objects.filter(item__campaign=campaign).select_related("resolved_by")
            },
        )


def export_judgements() -> QuerySet[Judgement]:
    """Judgements with what their export rows read, in judgement order (filter by campaign)."""
    return Judgement.objects.select_related(
        "assignment__annotator",
        "assignment__item__text",
        "assignment__item__system_a",
        "assignment__item__system_b",
    ).order_by("pk")


def judgement_records(campaign: Campaign, pseudonymise: bool = False) -> Iterator[dict[str, Any]]:
    """The export rows of ``campaign`` as dictionaries keyed by :data:`COLUMNS`; with
    ``pseudonymise``, no annotator's or adjudicator's user name."""
    facts = CampaignFacts.of(campaign, pseudonymise)
    judgements = export_judgements().filter(assignment__item__campaign=campaign)
    for judgement in judgements.iterator(chunk_size=ROWS_PER_QUERY):
        yield judgement_record(judgement, facts)


def judgement_record(judgement: Judgement, facts: CampaignFacts) -> dict[str, Any]:
    """One export row: ``judgement`` (of ``export_judgements``) of ``facts.campaign``."""
    campaign, names = facts.campaign, facts.names
    assignment = judgement.assignment
    item = assignment.item
    text = item.text
    winners: dict[str, str] = {Label.A: item.system_a.name, Label.B: item.system_b.name}
    winning_system = winners.get(judgement.label, "tie")
    # An imported study did not say where each system was shown.
    side_a = None if campaign.is_imported else assignment.canonical_to_shown(Label.A)
    side_b = None if campaign.is_imported else assignment.canonical_to_shown(Label.B)
    checked = item.is_attention_check and judgement.aspect == item.attention_aspect
    resolution = facts.resolutions.get((item.pk, judgement.aspect))
    return {
        "text": text.external_id or text.content,
        "system_a": item.system_a.name,
        "system_b": item.system_b.name,
        "aspect": judgement.aspect,
        "annotator": names[assignment.annotator_id] if names is not None else assignment.annotator.get_username(),
        "winner": judgement.label,
        "winning_system": winning_system,
        "system_a_side": side_a,
        "system_b_side": side_b,
        "campaign": campaign.name,
        "dataset": campaign.dataset.name,
        "text_id": text.pk,
        "text_position": text.position + 1,
        "judged_at": _timestamp(judgement.updated_at),
        "first_judged_at": _timestamp(judgement.created_at),
        "item_started_at": _timestamp(assignment.started_at),
        "item_completed_at": _timestamp(assignment.completed_at),
        "item_seconds_spent": round(assignment.seconds_spent, 3),
        "item_status": assignment.status,
        "attention_check": item.is_attention_check,
        "attention_aspect": item.attention_aspect or None,
        "attention_passed": judgement.label == item.attention_expected if checked else None,
        "comment": assignment.comment or None,
        "annotator_excluded": assignment.annotator_id in facts.excluded,
        "adjudicated": resolution.label if resolution else None,
        "adjudication_note": (resolution.note or None) if resolution else None,
        "adjudicated_by": _adjudicator(resolution, names is not None),
        "adjudicated_at": _timestamp(resolution.resolved_at) if resolution else None,
    }


def _adjudicator(resolution: Resolution | None, pseudonymise: bool) -> str | None:
    if resolution is None or resolution.resolved_by is None:
        return None
    return "staff" if pseudonymise else resolution.resolved_by.get_username()


def spreadsheet_safe(value: object) -> object:
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return "" if value is None else value


def from_spreadsheet_safe(value: str) -> str:
    """Undo :func:`spreadsheet_safe`, so an exported CSV imports back to the same values."""
    if value.startswith("'") and value[1:].startswith(FORMULA_PREFIXES):
        return value[1:]
    return value


def csv_lines(campaign: Campaign, pseudonymise: bool = False) -> Iterator[str]:
    """The CSV export, line by line (for a streaming response)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)

    def flush() -> str:
        line = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return line

    writer.writerow(COLUMNS)
    yield flush()
    for record in judgement_records(campaign, pseudonymise):
        writer.writerow([spreadsheet_safe(record[column]) for column in COLUMNS])
        yield flush()


def judgement_frame(campaign: Campaign, pseudonymise: bool = False) -> "pd.DataFrame":
    """The export rows as a pandas DataFrame, timestamps as datetimes."""
    import pandas as pd  # here, not at start-up: 0.5 s to import

    frame = pd.DataFrame(judgement_records(campaign, pseudonymise), columns=COLUMNS)
    for column in TIMESTAMP_COLUMNS:
        frame[column] = pd.to_datetime(frame[column], utc=True, format="ISO8601")
    return frame


def parquet_bytes(frame: "pd.DataFrame") -> bytes:
    """A DataFrame as one Parquet file (pyarrow), without the pandas index."""
    buffer = io.BytesIO()
    frame.to_parquet(buffer, engine="pyarrow", index=False)
    return buffer.getvalue()


def parquet_chunks(campaign: Campaign, pseudonymise: bool = False) -> Iterator[bytes]:
    """The Parquet export, in one piece: a Parquet file is written whole, its index at the end."""
    yield parquet_bytes(judgement_frame(campaign, pseudonymise))


def jsonl_lines(campaign: Campaign, pseudonymise: bool = False) -> Iterator[str]:
    """The JSON Lines export, one judgement per line."""
    for record in judgement_records(campaign, pseudonymise):
        yield json.dumps(record, ensure_ascii=False) + "\n"
