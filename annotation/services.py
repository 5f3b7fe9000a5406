"""Everything that writes campaigns, queues and judgements, each operation in one transaction.

Views and commands call these functions; the planning itself (sampling, queues, rebalancing)
is pure and lives in ``annotation.sampling``.
"""

import math
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import combinations
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, F, Max, Min, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.dispatch import Signal
from django.utils import timezone

from annotation import attention, practice, sampling
from annotation.adaptive_queue import next_adaptive_assignment
from annotation.models import (
    ASPECTS,
    FIRST_ASPECTS,
    MAX_COMMENT_CHARS,
    SHOWN_SIDES,
    Aspect,
    Assignment,
    Campaign,
    CampaignAnnotator,
    Item,
    Judgement,
    PracticeAnswer,
    PracticeItem,
)
from scoring.models import Dataset, Output, System, Text

# Time is measured in the annotator's browser: untrusted, so each save adds at most this much.
MAX_SECONDS_PER_SAVE = 3600.0
# Error messages list at most this many offending texts, then say how many more there are.
MAX_LISTED = 10
CHANGED_IN_ANOTHER_WINDOW = (
    "These judgements were changed in another window since this page was opened; reload it to see them."
)


# Sent inside a save's transaction with the campaign's ``dataset_id`` once its judgements are
# written: they are written in bulk, which sends no per-row signal, and what reads them (the
# leaderboards) listens to this, once per save.
judgements_saved = Signal()

# An annotator's judgements of some pairs: {assignment id: {aspect: (judgement id, canonical label)}}.
StoredJudgements = dict[int, dict[str, tuple[int, str]]]


class AnnotationError(Exception):
    """A request the annotation app refuses; the message says why, in words for the user."""


class CampaignError(AnnotationError):
    pass


class InvalidJudgement(AnnotationError):
    pass


class CompletenessTooEarly(AnnotationError):
    pass


class VersionConflict(AnnotationError):
    pass


class AssignmentClosed(AnnotationError):
    pass


class FirstAspectsLocked(AnnotationError):
    pass


# --- Campaign creation ---------------------------------------------------------------------


@dataclass(frozen=True)
class CampaignCreated:
    campaign: Campaign
    texts_left_out: int  # texts of the dataset skipped by sampling because an output was missing


def _listing(values: Iterable[str]) -> str:
    listed = list(values)
    shown = ", ".join(listed[:MAX_LISTED])
    return shown if len(listed) <= MAX_LISTED else f"{shown} and {len(listed) - MAX_LISTED} more"


def resolve_text_references(dataset: Dataset, references: Iterable[str]) -> list[Text]:
    """Texts of ``dataset`` named by external id, by ``#N`` (the N-th text, as pages show it) or by id."""
    texts = list(dataset.texts.all())
    by_external_id = {text.external_id: text for text in texts if text.external_id}
    by_position = {f"#{text.position + 1}": text for text in texts}
    by_id = {str(text.pk): text for text in texts}
    resolved: list[Text] = []
    unknown: list[str] = []
    for reference in references:
        text = by_external_id.get(reference) or by_position.get(reference) or by_id.get(reference)
        if text is None:
            unknown.append(reference)
        elif text not in resolved:
            resolved.append(text)
    if unknown:
        raise CampaignError(f"Unknown texts in dataset {dataset.name}: {_listing(unknown)}.")
    return resolved


def missing_outputs(texts: Iterable[Text], systems: Sequence[System]) -> dict[Text, list[str]]:
    """Map each text lacking something to compare to the names of the systems it lacks.

    The ground-truth system lacks a text with no gold triples; any other system lacks a text
    it has no stored output for (an output with no triples is present: an empty answer).
    """
    texts = list(texts)
    present = set(Output.objects.filter(text__in=texts, system__in=systems).values_list("text_id", "system_id"))
    missing: dict[Text, list[str]] = {}
    for text in texts:
        lacking = [
            system.name
            for system in systems
            if (system.is_ground_truth and not text.gold)
            or (not system.is_ground_truth and (text.pk, system.pk) not in present)
        ]
        if lacking:
            missing[text] = lacking
    return missing


def _describe_missing(missing: Mapping[Text, list[str]]) -> str:
    return _listing(f"{text.label} ({', '.join(names)})" for text, names in missing.items())


def create_campaign(
    *,
    name: str,
    dataset: Dataset,
    systems: Iterable[System],
    annotators: Iterable[User],
    seed: int,
    overlap_share: float = 0.5,
    instructions: str = "",
    created_by: User | None = None,
    sample_size: int | None = None,
    text_references: Iterable[str] | None = None,
    pair_order: str = Campaign.PairOrder.QUEUE,
    practice_items: Iterable[practice.PracticeRecord] = (),
    practice_pass_mark: float = 0.8,
    attention_share: float = 0.0,
) -> CampaignCreated:
    """Create a campaign: sample texts, make every system pair an item on each, fill the queues.

    Give either ``sample_size`` (texts drawn at random, with ``seed``, among the texts every
    chosen system has an output for) or ``text_references`` (explicit texts, refused if any
    lacks an output). ``pair_order`` adaptive serves the least certain pairs first (``annotation.adaptive``).
    ``practice_items`` (``annotation.practice.PracticeRecord``) make a practice round to pass, with
    ``practice_pass_mark``, before real items; ``attention_share`` of each queue are attention checks.
    """
    systems = sorted(set(systems), key=lambda system: system.pk)
    annotators = list(dict.fromkeys(annotators))
    if len(systems) < 2:
        raise CampaignError("Choose at least two systems to compare.")
    if not annotators:
        raise CampaignError("Choose at least one annotator.")
    if (sample_size is None) == (text_references is None):
        raise CampaignError("Give either a number of texts to sample or a list of texts, not both.")

    if text_references is not None:
        texts = resolve_text_references(dataset, text_references)
        if not texts:
            raise CampaignError("The list of texts is empty.")
        missing = missing_outputs(texts, systems)
        if missing:
            raise CampaignError(f"Some texts lack an output to compare: {_describe_missing(missing)}.")
        left_out = 0
    else:
        assert sample_size is not None  # one of the two was given, checked above
        candidates = list(dataset.texts.order_by("position"))
        missing = missing_outputs(candidates, systems)
        eligible = [text for text in candidates if text not in missing]
        left_out = len(missing)
        if sample_size > len(eligible):
            raise CampaignError(
                f"Only {len(eligible)} of the {len(candidates)} texts of {dataset.name} have outputs for every "
                f"chosen system; cannot sample {sample_size}. Texts lacking outputs: {_describe_missing(missing)}."
            )
        chosen = set(sampling.sample_texts([text.pk for text in eligible], sample_size, seed))
        texts = [text for text in eligible if text.pk in chosen]

    overlap = sampling.select_overlap([text.pk for text in texts], overlap_share, seed)
    if overlap and len(annotators) < 2:
        raise CampaignError("Overlap texts are judged by two annotators: choose at least two, or an overlap of 0%.")

    with transaction.atomic():
        campaign = Campaign(
            name=name,
            dataset=dataset,
            sample_seed=seed,
            overlap_share=overlap_share,
            instructions=instructions,
            created_by=created_by,
            pair_order=pair_order,
            practice_pass_mark=practice_pass_mark,
            attention_share=attention_share,
        )
        try:
            campaign.full_clean()
        except ValidationError as error:
            raise CampaignError(" ".join(error.messages)) from error
        campaign.save()
        campaign.systems.set(systems)
        campaign.texts.set(texts)
        CampaignAnnotator.objects.bulk_create(
            CampaignAnnotator(campaign=campaign, annotator=annotator) for annotator in annotators
        )
        # Systems are sorted by id, so every pair from combinations() is already in canonical order.
        items = Item.objects.bulk_create(
            Item(campaign=campaign, text=text, system_a=first, system_b=second)
            for text in texts
            for first, second in combinations(systems, 2)
        )
        text_items: dict[int, list[int]] = {text.pk: [] for text in texts}
        for item in items:
            text_items[item.text_id].append(item.pk)
        queues = sampling.assign_queues(text_items, overlap, [annotator.pk for annotator in annotators], seed)
        Assignment.objects.bulk_create(
            Assignment(
                item_id=item_id,
                annotator_id=annotator_id,
                a_on_left=sampling.a_on_left(seed, item_id, annotator_id),
                queue_position=position,
            )
            for annotator_id, queue in queues.items()
            for position, item_id in enumerate(queue)
        )
        replace_practice_items(campaign, practice_items)
        add_attention_checks(campaign)
    return CampaignCreated(campaign=campaign, texts_left_out=left_out)


# --- Quality control: practice round, attention checks, exclusions -------------------------


@transaction.atomic
def replace_practice_items(campaign: Campaign, records: Iterable[practice.PracticeRecord]) -> None:
    """Make ``records`` (``annotation.practice.PracticeRecord``) the campaign's practice round.

    Answers to the former items go with them; everyone starts the new round afresh.
    """
    campaign.practice_items.all().delete()
    PracticeItem.objects.bulk_create(
        PracticeItem(
            campaign=campaign,
            position=position,
            text=record.text,
            triples_a=record.triples_a,
            triples_b=record.triples_b,
            reference=record.reference,
            reason=record.reason,
        )
        for position, record in enumerate(records)
    )
    campaign.memberships.update(practice_attempt=1, practice_passed_at=None)


def _foreign_triples(campaign: Campaign, text_id: int) -> list[list[str]]:
    """Triples of the campaign's other texts, of every compared system and the gold: the pool an
    ``unsupported`` attention check draws from."""
    pool = [
        triple
        for triples in Output.objects.filter(text__in=campaign.texts.exclude(pk=text_id)).values_list(
            "triples", flat=True
        )
        for triple in triples
    ]
    pool += [triple for gold in campaign.texts.exclude(pk=text_id).values_list("gold", flat=True) for triple in gold]
    return pool


@transaction.atomic
def add_attention_checks(campaign: Campaign) -> int:
    """Mix attention checks into every queue, ``campaign.attention_share`` of it, at random places
    among the annotator's texts; returns how many were made.

    Each check shows the output of one compared system on a text of the annotator's queue, and
    on the other side a copy made clearly worse (``annotation.attention``): the check sits
    among the pairs of that text, served like them.
    """
    if campaign.attention_share <= 0:
        return 0
    systems = [system for system in campaign.systems.all() if not system.is_ground_truth]
    outputs = {
        (output.text_id, output.system_id): output.triples
        for output in Output.objects.filter(text__in=campaign.texts.all(), system__in=systems)
    }
    contents = dict(campaign.texts.values_list("pk", "content"))
    foreign: dict[int, list[list[str]]] = {}
    made = 0
    for annotator_id in campaign.active_annotator_ids():
        queue = list(
            Assignment.objects.filter(item__campaign=campaign, annotator_id=annotator_id)
            .select_related("item")
            .order_by("queue_position", "pk")
        )
        real = [assignment for assignment in queue if not assignment.item.is_attention_check]
        wanted = attention.check_count(len(real), campaign.attention_share) - (len(queue) - len(real))
        rng = sampling.seeded_random(campaign.sample_seed, "attention", annotator_id)
        texts = list(dict.fromkeys(assignment.item.text_id for assignment in real))
        rng.shuffle(texts)
        for count in range(max(wanted, 0)):
            text_id = texts[count % len(texts)]
            candidates = [system for system in systems if outputs.get((text_id, system.pk))]
            if not candidates:
                continue
            system = candidates[rng.randrange(len(candidates))]
            # Read once per text: setdefault would run the two queries on every check.
            if text_id not in foreign:
                foreign[text_id] = _foreign_triples(campaign, text_id)
            copy = attention.worse_copy(
                outputs[(text_id, system.pk)], contents[text_id], foreign[text_id], rng.random()
            )
            if copy is None:
                continue
            item = Item.objects.create(
                campaign=campaign,
                text_id=text_id,
                system_a=system,
                system_b=system,
                attention_worse=rng.choice(["a", "b"]),
                attention_aspect=copy.aspect,
                attention_triples=copy.triples,
            )
            text_positions = [index for index, assignment in enumerate(queue) if assignment.item.text_id == text_id]
            place = text_positions[0] + rng.randrange(len(text_positions) + 1)
            queue.insert(
                place,
                Assignment.objects.create(
                    item=item,
                    annotator_id=annotator_id,
                    a_on_left=sampling.a_on_left(campaign.sample_seed, item.pk, annotator_id),
                ),
            )
            made += 1
        for position, assignment in enumerate(queue):
            assignment.queue_position = position
        Assignment.objects.bulk_update(queue, ["queue_position"])
    return made


@dataclass(frozen=True)
class PracticeState:
    """Where an annotator stands in a campaign's practice round, in the attempt under way."""

    items: list[PracticeItem]  # in order
    answers: dict[int, PracticeAnswer]  # by practice item id, of this attempt
    attempt: int
    pass_mark: float
    passed_at: datetime | None  # when an attempt passed

    @property
    def next_item(self) -> PracticeItem | None:
        return next((item for item in self.items if item.pk not in self.answers), None)

    @property
    def correct(self) -> int:
        return sum(answer.correct for answer in self.answers.values())

    @property
    def total(self) -> int:
        return sum(answer.total for answer in self.answers.values())

    @property
    def finished(self) -> bool:
        return self.next_item is None

    @property
    def passed(self) -> bool:
        return self.passed_at is not None


def practice_state(membership: CampaignAnnotator) -> PracticeState:
    answers = {
        answer.item_id: answer for answer in membership.practice_answers.filter(attempt=membership.practice_attempt)
    }
    return PracticeState(
        items=list(membership.campaign.practice_items.all()),
        answers=answers,
        attempt=membership.practice_attempt,
        pass_mark=membership.campaign.practice_pass_mark,
        passed_at=membership.practice_passed_at,
    )


def practice_pending() -> QuerySet[CampaignAnnotator]:
    """The memberships whose campaign has a practice round that no attempt of theirs has passed."""
    return CampaignAnnotator.objects.filter(practice_passed_at__isnull=True, campaign__practice_items__isnull=False)


def practice_required(annotator: User, campaign_id: int) -> bool:
    """Whether ``annotator`` must pass the practice round of the campaign before real items: one query."""
    return practice_pending().filter(campaign_id=campaign_id, annotator=annotator).exists()


@transaction.atomic
def answer_practice(
    membership: CampaignAnnotator, item: PracticeItem, shown_answers: Mapping[str, str]
) -> PracticeAnswer:
    """Store the answers (aspect -> "left", "right" or "tie"; A is on the left) to a practice item
    in the attempt under way; once every item is answered, the attempt passes or fails.

    Returns the ``PracticeAnswer``. An item answered already in this attempt keeps its first answer.
    """
    _check_labels(shown_answers)
    membership = CampaignAnnotator.objects.select_for_update().select_related("campaign").get(pk=membership.pk)
    canonical = {aspect: {"left": "a", "right": "b", "tie": "tie"}[side] for aspect, side in shown_answers.items()}
    missing = set(item.reference) - set(canonical)
    if missing:
        names = ", ".join(Aspect(aspect).label.lower() for aspect in ASPECTS if aspect in missing)
        raise InvalidJudgement(f"Answer every aspect asked before checking: {names} still lack an answer.")
    answer, _ = PracticeAnswer.objects.get_or_create(
        membership=membership,
        item=item,
        attempt=membership.practice_attempt,
        defaults={
            "answers": canonical,
            "correct": practice.matches(item.reference, canonical),
            "total": len(item.reference),
        },
    )
    state = practice_state(membership)
    if state.finished and not state.passed and practice.passed(state.correct, state.total, state.pass_mark):
        membership.practice_passed_at = timezone.now()
        membership.save(update_fields=["practice_passed_at"])
    return answer


@transaction.atomic
def retake_practice(membership: CampaignAnnotator) -> CampaignAnnotator:
    """Start a new attempt of a finished, failed practice round (the earlier answers are kept)."""
    membership = CampaignAnnotator.objects.select_for_update().select_related("campaign").get(pk=membership.pk)
    state = practice_state(membership)
    if not state.finished or state.passed:
        raise AnnotationError("Finish the practice round first; it can be retaken only when it was not passed.")
    membership.practice_attempt += 1
    membership.save(update_fields=["practice_attempt"])
    return membership


@transaction.atomic
def set_exclusion(campaign: Campaign, annotator: User, *, excluded: bool, changed_by: User | None) -> None:
    """Leave an annotator's judgements of ``campaign`` out of ratings and agreement, or back in,
    noting who changed it and when; the leaderboards are rebuilt."""
    updated = CampaignAnnotator.objects.filter(campaign=campaign, annotator=annotator).update(
        excluded=excluded, exclusion_changed_by=changed_by, exclusion_changed_at=timezone.now()
    )
    if not updated:
        raise CampaignError(f"{annotator.get_username()} never annotated {campaign.name}.")
    judgements_saved.send(sender=CampaignAnnotator, dataset_id=campaign.dataset_id)


# --- Annotators joining and leaving --------------------------------------------------------


@dataclass(frozen=True)
class Rebalanced:
    moved: int  # pending assignments handed to another annotator
    reissued: int  # partly judged ones: the judgements stay with their author, the item goes afresh to another
    dropped: int  # no remaining annotator can take them: overlap copies, or pairs only those who saw the gold could

    def __str__(self) -> str:
        return f"{self.moved} items moved, {self.reissued} reissued, {self.dropped} dropped"


@transaction.atomic
def add_annotator(campaign: Campaign, annotator: User) -> Rebalanced:
    membership, created = CampaignAnnotator.objects.get_or_create(campaign=campaign, annotator=annotator)
    if not created and membership.active:
        raise CampaignError(f"{annotator.get_username()} already annotates {campaign.name}.")
    if not created:
        membership.active = True
        membership.save(update_fields=["active"])
    return rebalance(campaign)


@transaction.atomic
def remove_annotator(campaign: Campaign, annotator: User) -> Rebalanced:
    updated = CampaignAnnotator.objects.filter(campaign=campaign, annotator=annotator, active=True).update(active=False)
    if not updated:
        raise CampaignError(f"{annotator.get_username()} does not annotate {campaign.name}.")
    if not CampaignAnnotator.objects.filter(campaign=campaign, active=True).exists():
        raise CampaignError("A campaign needs at least one annotator: add another before removing the last.")
    return rebalance(campaign)


@transaction.atomic
def rebalance(campaign: Campaign) -> Rebalanced:
    """Redistribute pending work over the active annotators; done work and judgements never move."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if campaign.is_imported:
        raise CampaignError("An imported campaign has no queues to rebalance.")
    assignments = {
        assignment.pk: assignment
        for assignment in Assignment.objects.filter(item__campaign=campaign).select_related("item")
    }
    stored: StoredJudgements = {key: {} for key in assignments}
    for assignment_id, judgement_id, aspect, label in Judgement.objects.filter(
        assignment__item__campaign=campaign
    ).values_list("assignment_id", "pk", "aspect", "label"):
        stored[assignment_id][aspect] = (judgement_id, label)
    slots = [
        sampling.Slot(
            key=assignment.pk,
            item=assignment.item_id,
            text=assignment.item.text_id,
            annotator=assignment.annotator_id,
            done=assignment.status == Assignment.Status.DONE,
            position=assignment.queue_position,
            started=bool(stored[assignment.pk]),
        )
        for assignment in assignments.values()
    ]
    plan = sampling.plan_rebalance(
        slots, campaign.active_annotator_ids(), campaign.sample_seed, gold_seen=_gold_seen(assignments.values(), stored)
    )

    seed = campaign.sample_seed
    changed: dict[int, Assignment] = {}
    created: dict[int, Assignment] = {}
    reissued = 0
    for key, annotator_id in plan.moves.items():
        assignment = assignments[key]
        side = sampling.a_on_left(seed, assignment.item_id, annotator_id)
        if stored[key]:
            created[key] = Assignment(item_id=assignment.item_id, annotator_id=annotator_id, a_on_left=side)
            reissued += 1
        else:
            assignment.annotator_id, assignment.a_on_left = annotator_id, side
            changed[key] = assignment
    unjudged_dropped = [key for key in plan.dropped if not stored[key]]
    Assignment.objects.filter(pk__in=unjudged_dropped).delete()

    for queue in plan.queues.values():
        for position, key in enumerate(queue):
            if key in created:
                created[key].queue_position = position
            else:
                assignments[key].queue_position = position
                changed[key] = assignments[key]
    Assignment.objects.bulk_update(changed.values(), ["annotator", "a_on_left", "queue_position"])
    Assignment.objects.bulk_create(created.values())
    return Rebalanced(moved=len(plan.moves) - reissued, reissued=reissued, dropped=len(plan.dropped))


def _gold_seen(assignments: Iterable[Assignment], stored: StoredJudgements) -> set[tuple[int, int]]:
    """The (annotator, text) pairs whose gold the annotator has been shown (``TextProgress.gold_seen``).

    ``stored`` maps each assignment id to its judgements, as ``TextProgress.judgements`` holds them.
    """
    texts: dict[tuple[int, int], StoredJudgements] = {}
    for assignment in assignments:
        texts.setdefault((assignment.annotator_id, assignment.item.text_id), {})[assignment.pk] = stored[assignment.pk]
    return {
        key for key, judgements in texts.items() if TextProgress(judgements, compares_with_ground_truth=False).gold_seen
    }


# --- Annotating ----------------------------------------------------------------------------
#
# Completeness is judged against the text's gold triples, and in a campaign that includes the
# Ground-truth system the gold *is* one side's extraction. So the gold of a text is shown to an
# annotator only once they have judged the four first aspects of every pair of that text in their
# queue: each text is read twice, first the four aspects pair by pair, then completeness pair by
# pair, and no pair is judged on the first four knowing which side is the gold.


@dataclass(frozen=True)
class TextProgress:
    """One annotator's pairs of one text in a campaign, in queue order, and what each holds."""

    judgements: StoredJudgements  # in queue order
    compares_with_ground_truth: bool  # the campaign includes the Ground-truth system

    @property
    def pairs(self) -> int:
        return len(self.judgements)

    def aspects(self, assignment_id: int) -> set[str]:
        return set(self.judgements[assignment_id])

    def position(self, assignment_id: int) -> int:
        """1 for the annotator's first pair of this text, and so on."""
        return list(self.judgements).index(assignment_id) + 1

    @property
    def lacking_first_aspects(self) -> int:
        """How many pairs still lack one of the four first aspects."""
        return sum(not set(FIRST_ASPECTS) <= set(stored) for stored in self.judgements.values())

    @property
    def gold_revealed(self) -> bool:
        """Gold and completeness are shown once every pair has its four first aspects."""
        return self.lacking_first_aspects == 0

    @property
    def gold_seen(self) -> bool:
        """The gold was shown: it is revealed now, or was earlier (a completeness judgement exists)."""
        return self.gold_revealed or any(Aspect.CS in stored for stored in self.judgements.values())

    @property
    def first_aspects_locked(self) -> bool:
        """In a campaign with Ground truth, the first four of a text are final once its gold was shown."""
        return self.compares_with_ground_truth and self.gold_seen


def text_progress(assignment: Assignment) -> TextProgress:
    """The ``TextProgress`` of the annotator of ``assignment`` on its text: one query."""
    rows = (
        Assignment.objects.filter(
            annotator_id=assignment.annotator_id,
            item__campaign_id=assignment.item.campaign_id,
            item__text_id=assignment.item.text_id,
        )
        .annotate(
            ground_truth=Exists(
                Campaign.systems.through.objects.filter(
                    campaign_id=OuterRef("item__campaign_id"), system__is_ground_truth=True
                )
            )
        )
        .order_by("queue_position", "pk")
        .values_list("pk", "judgements__pk", "judgements__aspect", "judgements__label", "ground_truth")
    )
    judgements: StoredJudgements = {}
    ground_truth = False
    for assignment_id, judgement_id, aspect, label, campaign_ground_truth in rows:
        ground_truth = campaign_ground_truth  # the same on every row: the campaign's
        stored = judgements.setdefault(assignment_id, {})
        if judgement_id is not None:
            stored[aspect] = (judgement_id, label)
    return TextProgress(judgements=judgements, compares_with_ground_truth=ground_truth)


@dataclass(frozen=True)
class PendingPair:
    """A pending assignment of the annotator's current text, as the choice of what comes next sees it."""

    assignment_id: int
    public_id: uuid.UUID
    item_id: int
    aspects: frozenset[str]  # the aspects it has judgements for
    adaptive: bool = False  # its campaign orders pairs by uncertainty (Campaign.PairOrder.ADAPTIVE)


def current_text_pairs(annotator: User, campaign: Campaign | int) -> list[PendingPair]:
    """The annotator's pending pairs of their current text in ``campaign`` (an instance or an id),
    in queue order: one query, of plain values (no model instances, no per-pair count in SQL).

    The current text is the text of the first pending assignment in queue order. A closed
    campaign, one the annotator left, or one whose practice round they have still to pass has none.
    """
    pending = Assignment.objects.filter(annotator=annotator, item__campaign=campaign, status=Assignment.Status.PENDING)
    current_text = pending.order_by("queue_position", "pk").values("item__text_id")[:1]
    practice_passed = Q(item__campaign__memberships__practice_passed_at__isnull=False) | ~Exists(
        PracticeItem.objects.filter(campaign_id=OuterRef("item__campaign_id"))
    )
    rows = (
        pending.filter(
            practice_passed,
            item__text_id=Subquery(current_text),
            item__campaign__is_open=True,
            item__campaign__memberships__annotator=annotator,
            item__campaign__memberships__active=True,
        )
        .order_by("queue_position", "pk")
        # One row per judgement of each pair; a pair with none: one row, aspect None.
        .values_list("pk", "public_id", "item_id", "item__campaign__pair_order", "judgements__aspect")
    )
    pairs: dict[int, tuple[uuid.UUID, int, str, set[str | None]]] = {}
    for assignment_id, public_id, item_id, pair_order, aspect in rows:
        pairs.setdefault(assignment_id, (public_id, item_id, pair_order, set()))[3].add(aspect)
    adaptive = Campaign.PairOrder.ADAPTIVE
    return [
        PendingPair(
            assignment_id,
            public_id,
            item_id,
            frozenset(aspect for aspect in aspects if aspect is not None),
            pair_order == adaptive,
        )
        for assignment_id, (public_id, item_id, pair_order, aspects) in pairs.items()
    ]


def choose_pair(pairs: Sequence[PendingPair]) -> PendingPair | None:
    """Which of the current text's pending pairs (``PendingPair``, in queue order) comes next, or None.

    The pairs lacking one of the four first aspects come first, in queue order; then the pairs
    waiting for completeness.
    """
    for pair in pairs:
        if not set(FIRST_ASPECTS) <= pair.aspects:
            return pair
    return pairs[0] if pairs else None


def next_public_id(annotator: User, campaign: Campaign | int) -> uuid.UUID | None:
    """The ``public_id`` of what the annotator judges next in ``campaign``, or None: one query
    (a few more in an adaptive campaign)."""
    pair = choose_pair(current_text_pairs(annotator, campaign))
    if pair is not None and pair.adaptive:
        adaptive = next_adaptive_assignment(annotator, campaign)
        return adaptive.public_id if adaptive else None
    return pair.public_id if pair else None


def next_assignment(annotator: User, campaign: Campaign | int) -> Assignment | None:
    """The assignment the annotator judges next in ``campaign``, with its item, or None.

    Two queries; the pages, which need only where to go, ask ``next_public_id``.
    """
    pair = choose_pair(current_text_pairs(annotator, campaign))
    if pair is not None and pair.adaptive:
        # An adaptive campaign orders the pending pairs by uncertainty (annotation.adaptive);
        # the query above has checked that there is something next for this annotator.
        return next_adaptive_assignment(annotator, campaign)
    return Assignment.objects.select_related("item").get(pk=pair.assignment_id) if pair else None


@transaction.atomic
def skip(assignment: Assignment) -> int:
    """Send the annotator's pending pairs of this text to the end of their queue, in their order.

    The whole text moves: skipping one pair alone would be undone at once, since the pairs of
    the current text come before anything else. Returns how many pairs moved.
    """
    locked = Assignment.objects.select_for_update(of=("self",)).select_related("item").get(pk=assignment.pk)
    if locked.status == Assignment.Status.DONE:
        raise AssignmentClosed("This item is already finished; there is nothing to skip.")
    queue = Assignment.objects.filter(annotator_id=locked.annotator_id, item__campaign_id=locked.item.campaign_id)
    text_pending = queue.filter(item__text_id=locked.item.text_id, status=Assignment.Status.PENDING)
    bounds = queue.aggregate(
        last=Max("queue_position"),
        first_of_text=Min(
            "queue_position", filter=Q(item__text_id=locked.item.text_id, status=Assignment.Status.PENDING)
        ),
    )
    shift = bounds["last"] + 1 - bounds["first_of_text"]
    return text_pending.update(queue_position=F("queue_position") + shift)


def _seconds_spent(seconds: float | str | None) -> float:
    try:
        spent = float(seconds or 0.0)
    except (TypeError, ValueError) as error:
        raise InvalidJudgement("The time spent must be a number of seconds.") from error
    if not math.isfinite(spent):
        return 0.0
    return min(max(spent, 0.0), MAX_SECONDS_PER_SAVE)


def _check_labels(labels: Mapping[str, str]) -> None:
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
    _check_labels(labels)
    spent = _seconds_spent(seconds)
    new_comment = assignment.comment if comment is None else comment.strip()
    if len(new_comment) > MAX_COMMENT_CHARS:
        raise InvalidJudgement(f"The comment is {len(new_comment):,} characters long: at most {MAX_COMMENT_CHARS:,}.")
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

    now = timezone.now()
    aspects_after = set(stored) | set(changes)
    finished = set(ASPECTS) <= aspects_after and assignment.status != Assignment.Status.DONE
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
        pk=assignment.pk,
        annotator_id=assignment.annotator_id,
        version=expected_version,
    )
    fields: dict[str, Any] = {
        "version": F("version") + 1,
        "seconds_spent": F("seconds_spent") + spent,
        "started_at": Coalesce(F("started_at"), Value(now - timedelta(seconds=spent))),
    }
    if finished:
        fields.update(status=Assignment.Status.DONE, completed_at=now)
    if comment_changed:
        fields["comment"] = new_comment
    if not guarded.update(**fields):
        raise _refusal_after_race(assignment)

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

    if comment_changed:
        assignment.comment = new_comment
    assignment.version += 1
    assignment.seconds_spent += spent
    assignment.started_at = assignment.started_at or now - timedelta(seconds=spent)
    if finished:
        assignment.status, assignment.completed_at = Assignment.Status.DONE, now
    judgements = {**progress.judgements, assignment.pk: stored}
    return Saved(
        assignment=assignment,
        text=TextProgress(judgements, progress.compares_with_ground_truth),
        completed_first_aspects=set(FIRST_ASPECTS) <= aspects_after and not set(FIRST_ASPECTS) <= set(stored_before),
    )
