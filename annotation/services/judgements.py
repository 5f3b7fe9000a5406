"""Saving an annotator's judgements of one pair: checked, guarded against a race, stored in bulk."""

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Exists, F, OuterRef, QuerySet, Value
from django.db.models.functions import Coalesce
from django.dispatch import Signal
from django.utils import timezone

from annotation.models import (
    ASPECTS,
    FIRST_ASPECTS,
    MAX_COMMENT_CHARS,
    SHOWN_SIDES,
    Aspect,
    Assignment,
    CampaignAnnotator,
    Item,
    Judgement,
)
from annotation.services.errors import (
    AnnotationError,
    AssignmentClosed,
    CompletenessTooEarly,
    FirstAspectsLocked,
    InvalidJudgement,
    VersionConflict,
)
from annotation.services.queues import StoredAspects, TextProgress, text_progress
from core.compiled_queries import SAMPLE_IDS, SAMPLE_TIMES, CompiledUpdate

# Time is measured in the annotator's browser: untrusted, so each save adds at most this much.
MAX_SECONDS_PER_SAVE = 3600.0
CHANGED_IN_ANOTHER_WINDOW = (
    "These judgements were changed in another window since this page was opened; reload it to see them."
)


# Sent inside a save's transaction with the campaign's ``dataset_id`` once its judgements are
# written: they are written in bulk, which sends no per-row signal, and what reads them (the
# leaderboards) listens to this, once per save.
judgements_saved = Signal()


def _seconds_spent(seconds: float | str | None) -> float:
    try:
        spent = float(seconds or 0.0)
    except (TypeError, ValueError) as error:
        raise InvalidJudgement("The time spent must be a number of seconds.") from error
    if not math.isfinite(spent):
        return 0.0
    return min(max(spent, 0.0), MAX_SECONDS_PER_SAVE)


def check_labels(labels: Mapping[str, str]) -> None:
    """Refuse labels (aspect -> "left", "right" or "tie") naming an unknown aspect or choice, or none."""
    if not labels:
        raise InvalidJudgement("No judgement was sent.")
    for aspect, side in labels.items():
        if aspect not in ASPECTS:
            raise InvalidJudgement(f"Unknown aspect {str(aspect)[:20]!r}: expected one of {', '.join(ASPECTS)}.")
        if side not in SHOWN_SIDES:
            raise InvalidJudgement(
                f"Unknown choice {str(side)[:20]!r} for {Aspect(aspect).label}: expected left, right or tie."
            )


def _pairs(count: int) -> str:
    return f"{count} pair" if count == 1 else f"{count} pairs"


@dataclass(frozen=True)
class Saved:
    assignment: Assignment  # as saved: version, time and status updated
    text: TextProgress  # the annotator's pairs of this text, this save included
    completed_first_aspects: bool = False  # this save brought the pair's four first aspects to complete

    @property
    def aspects(self) -> set[str]:
        return self.text.aspects(self.assignment.pk)

    @property
    def first_aspects_done(self) -> bool:
        return set(FIRST_ASPECTS) <= self.aspects

    @property
    def is_done(self) -> bool:
        return self.assignment.status == Assignment.Status.DONE


def _refusal_after_race(assignment: Assignment) -> AnnotationError:
    """Why the guarded update matched nothing, read again once (a rare path)."""
    current = Assignment.objects.filter(pk=assignment.pk).select_related("item__campaign").first()
    if current is None or current.annotator_id != assignment.annotator_id:
        return VersionConflict("This item has been handed to another annotator; open your queue again.")
    campaign = current.item.campaign
    if not campaign.is_open:
        return AssignmentClosed(f"The campaign {campaign.name} is closed.")
    if not CampaignAnnotator.objects.filter(campaign=campaign, annotator_id=current.annotator_id, active=True).exists():
        return AssignmentClosed(f"You no longer annotate {campaign.name}.")
    return VersionConflict(CHANGED_IN_ANOTHER_WINDOW)


@transaction.atomic
def save_judgements(
    assignment: Assignment,
    labels: Mapping[str, str],
    *,
    expected_version: int,
    seconds: float | str | None,
    comment: str | None = None,
) -> Saved:
    """Store an annotator's choices for some aspects of one assignment; return what was ``Saved``.

    ``assignment`` is the assignment as read for this request, with its item and campaign
    (``select_related("item__campaign")``: ``judgements_saved`` names the campaign's dataset); it
    is not read again: the one write to it is guarded by its version, so a save that raced another
    matches nothing and is refused. ``labels`` maps aspect codes to the side the annotator
    preferred ("left", "right" or "tie"); they are stored in canonical order.
    ``expected_version`` is the version the page was rendered with: a different one means
    another tab saved in between, and the save is refused with ``VersionConflict``, unless it
    repeats exactly what is stored (a resent form), which changes nothing. Completeness is
    refused until the gold of the text is revealed (``TextProgress.gold_revealed``), and a change
    to a first aspect once the text's first aspects are locked. ``seconds`` (time on the page
    since the last save) is added to the time spent. ``comment``, when given, replaces the
    item's free-text comment (at most ``MAX_COMMENT_CHARS``).
    """
    check_labels(labels)
    spent = _seconds_spent(seconds)
    new_comment = _comment_after(assignment, comment)
    comment_changed = new_comment != assignment.comment
    progress = text_progress(assignment)
    stored_before = progress.judgements[assignment.pk]
    stored = dict(stored_before)
    canonical = {aspect: assignment.shown_to_canonical(side) for aspect, side in labels.items()}
    changes = {aspect: label for aspect, label in canonical.items() if stored.get(aspect, (None, None))[1] != label}
    if not changes and not comment_changed:
        return Saved(assignment=assignment, text=progress)  # a resent form: everything is saved already
    if expected_version != assignment.version:
        raise VersionConflict(CHANGED_IN_ANOTHER_WINDOW)
    _check_text_order(progress, changes, stored)

    now = timezone.now()
    aspects_after = set(stored) | set(changes)
    finished = set(ASPECTS) <= aspects_after and assignment.status != Assignment.Status.DONE
    _write_assignment(
        assignment,
        expected_version=expected_version,
        spent=spent,
        now=now,
        finished=finished,
        comment=new_comment if comment_changed else None,
    )
    _write_judgements(assignment, changes, stored, now)
    judgements = {**progress.judgements, assignment.pk: stored}
    return Saved(
        assignment=assignment,
        text=TextProgress(judgements, progress.compares_with_ground_truth),
        completed_first_aspects=set(FIRST_ASPECTS) <= aspects_after and not set(FIRST_ASPECTS) <= set(stored_before),
    )


def _comment_after(assignment: Assignment, comment: str | None) -> str:
    """The item's comment once saved: ``comment`` stripped, or the stored one when none is given."""
    new_comment = assignment.comment if comment is None else comment.strip()
    if len(new_comment) > MAX_COMMENT_CHARS:
        raise InvalidJudgement(f"The comment is {len(new_comment):,} characters long: at most {MAX_COMMENT_CHARS:,}.")
    return new_comment


def _check_text_order(progress: TextProgress, changes: Mapping[str, str], stored: StoredAspects) -> None:
    """Refuse completeness before the text's gold is revealed, and a changed first aspect once
    they are locked (``annotation.services.queues``)."""
    if Aspect.CS in changes and not progress.gold_revealed:
        raise CompletenessTooEarly(
            f"Completeness is judged last, once for all the {_pairs(progress.pairs)} of this text: first save "
            "topical similarity, uniqueness, factualness and granularity of "
            + ("this pair." if progress.pairs == 1 else f"each ({progress.lacking_first_aspects} still lack them).")
        )
    relabelled = [Aspect(aspect).label.lower() for aspect in changes if aspect in FIRST_ASPECTS and aspect in stored]
    if relabelled and progress.first_aspects_locked:
        raise FirstAspectsLocked(
            f"The four first aspects of this text are final since its reference triples were shown: this campaign "
            f"compares with the reference itself, so {', '.join(relabelled)} can no longer change."
        )


def _guarded_update(
    assignment_id: int,
    annotator_id: int,
    expected_version: int,
    spent: float,
    started_at: datetime,
    status: str,
    completed_at: datetime | None,
    comment: str,
) -> tuple[QuerySet[Assignment], dict[str, Any]]:
    """The assignment's save: every column a save may change, where the version is still
    ``expected_version``, the campaign open and the annotator in it."""
    # Conditions on the row's own columns only: a join would make Django update "WHERE id IN
    # (SELECT ...)", and PostgreSQL re-checks a row changed by a concurrent save against its own
    # columns, not against such a subquery. The campaign checks read no changed row.
    guarded = Assignment.objects.filter(
        Exists(
            Item.objects.filter(
                pk=OuterRef("item_id"),
                campaign__is_open=True,
                campaign__memberships__annotator_id=OuterRef("annotator_id"),
                campaign__memberships__active=True,
            )
        ),
        pk=assignment_id,
        annotator_id=annotator_id,
        version=expected_version,
    )
    fields = {
        "version": F("version") + 1,
        "seconds_spent": F("seconds_spent") + spent,
        "started_at": Coalesce(F("started_at"), Value(started_at)),
        "status": status,
        "completed_at": completed_at,
        "comment": comment,
    }
    return guarded, fields


# Every save runs it: compiled once per process (``core.compiled_queries``). Status, completion
# and comment are always written, unchanged ones as read: the version guard makes what was read current.
guarded_update = CompiledUpdate(
    _guarded_update,
    (*SAMPLE_IDS, 0.5e-9, SAMPLE_TIMES[0], "sample-status", SAMPLE_TIMES[1], "sample comment (compiled query)"),
)


def _write_assignment(
    assignment: Assignment, *, expected_version: int, spent: float, now: datetime, finished: bool, comment: str | None
) -> None:
    """One guarded UPDATE of the assignment, mirrored on ``assignment``: its version, time spent,
    start, status once ``finished`` and ``comment`` when it changed (None: unchanged).

    The update matches only while the version is ``expected_version``, the campaign open and the
    annotator in it; otherwise the save is refused with the reason (``_refusal_after_race``).
    """
    status, completed_at = (Assignment.Status.DONE, now) if finished else (assignment.status, assignment.completed_at)
    comment = assignment.comment if comment is None else comment
    started_at = now - timedelta(seconds=spent)
    changed = guarded_update(
        assignment.pk, assignment.annotator_id, expected_version, spent, started_at, status, completed_at, comment
    )
    if not changed:
        raise _refusal_after_race(assignment)
    assignment.version += 1
    assignment.seconds_spent += spent
    assignment.started_at = assignment.started_at or started_at
    assignment.status, assignment.completed_at, assignment.comment = status, completed_at, comment


def _write_judgements(assignment: Assignment, changes: Mapping[str, str], stored: StoredAspects, now: datetime) -> None:
    """Store the ``changes`` (aspect -> canonical label) of the assignment's judgements, recorded
    in ``stored`` too, and tell the leaderboards (``judgements_saved``)."""
    # One statement for the new judgements and one for the changed ones, not one per aspect.
    created = [
        Judgement(assignment=assignment, aspect=aspect, label=label)
        for aspect, label in changes.items()
        if aspect not in stored
    ]
    changed = [
        Judgement(pk=stored[aspect][0], assignment=assignment, aspect=aspect, label=label, updated_at=now)
        for aspect, label in changes.items()
        if aspect in stored
    ]
    Judgement.objects.bulk_create(created)
    if changed:
        Judgement.objects.bulk_update(changed, ["label", "updated_at"])
    for judgement in [*created, *changed]:
        stored[judgement.aspect] = (judgement.pk, judgement.label)
    if changes:
        judgements_saved.send(sender=Judgement, dataset_id=assignment.item.campaign.dataset_id)
