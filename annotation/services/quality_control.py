"""Quality control: the practice round before real items, attention checks in the queues, and
annotators' judgements left out of ratings and agreement."""

import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from annotation import attention, practice, sampling
from annotation.models import (
    ASPECTS,
    Aspect,
    Assignment,
    Campaign,
    CampaignAnnotator,
    Item,
    PracticeAnswer,
    PracticeItem,
)
from annotation.services.errors import AnnotationError, CampaignError, InvalidJudgement
from annotation.services.judgements import check_labels, judgements_saved
from scoring.models import Output


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
    carry_over_practice_passes(campaign, campaign.memberships.values_list("annotator_id", flat=True))


def _practice_set_key(campaign_id: int, instructions: str) -> str:
    """What a practice pass depends on: the campaign's practice pairs (texts, triples, reference
    answers, reasons) and its instructions, as one digest ("" without a practice round)."""
    items = list(
        PracticeItem.objects.filter(campaign_id=campaign_id)
        .order_by("position")
        .values_list("text", "triples_a", "triples_b", "reference", "reason")
    )
    if not items:
        return ""
    encoded = json.dumps([items, instructions], sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(encoded).hexdigest()


def carry_over_practice_passes(campaign: Campaign, annotator_ids: Iterable[int]) -> int:
    """Count a passed practice round in every campaign whose practice set and instructions are the
    same: the annotators' memberships of such campaigns that have not passed it take the pass
    (with its time), in both directions, so that nobody answers the same pairs again. Returns how
    many memberships took a pass."""
    own_key = _practice_set_key(campaign.pk, campaign.instructions)
    if not own_key:
        return 0
    memberships = list(
        CampaignAnnotator.objects.filter(annotator_id__in=list(annotator_ids), campaign__practice_items__isnull=False)
        .select_related("campaign")
        .distinct()
    )
    keys: dict[int, str] = {}
    for membership in memberships:
        if membership.campaign_id not in keys:
            keys[membership.campaign_id] = _practice_set_key(membership.campaign_id, membership.campaign.instructions)
    same_set = [membership for membership in memberships if keys[membership.campaign_id] == own_key]
    passes: dict[int, datetime] = {}  # by annotator: their first pass of this practice set
    for membership in same_set:
        passed_at, first = membership.practice_passed_at, passes.get(membership.annotator_id)
        if passed_at is not None and (first is None or passed_at < first):
            passes[membership.annotator_id] = passed_at
    taken = [
        membership
        for membership in same_set
        if membership.practice_passed_at is None and membership.annotator_id in passes
    ]
    for membership in taken:
        membership.practice_passed_at = passes[membership.annotator_id]
    CampaignAnnotator.objects.bulk_update(taken, ["practice_passed_at"])
    return len(taken)


def _foreign_triples(campaign: Campaign, text_id: int) -> list[list[str]]:
    """Triples of the campaign's other texts, of every compared system and the gold: the pool an
    ``unsupported`` attention check draws from."""
    pool = [
        triple
        for triples in Output.objects.of_complete_systems()
        .filter(text__in=campaign.texts.exclude(pk=text_id))
        .values_list("triples", flat=True)
        for triple in triples
    ]
    pool += [triple for gold in campaign.texts.exclude(pk=text_id).values_list("gold", flat=True) for triple in gold]
    return pool


def _copy_candidates(
    campaign: Campaign, outputs: Mapping[tuple[int, int], list[list[str]]], gold_counts: Mapping[int, int]
) -> dict[int, list[int]]:
    """By text: the compared systems (Ground truth aside) whose output a check may copy, as
    ``attention.systems_to_copy`` chooses them; a text with no such system has none."""
    compared = list(campaign.systems.all())
    candidates: dict[int, list[int]] = {}
    for text_id, gold_count in gold_counts.items():
        counts = {
            system.pk: gold_count if system.is_ground_truth else len(outputs.get((text_id, system.pk), []))
            for system in compared
        }
        copyable = [system.pk for system in compared if not system.is_ground_truth]
        candidates[text_id] = attention.systems_to_copy(counts, copyable)
    return candidates


def _pair_counts(
    item: Item, outputs: Mapping[tuple[int, int], list[list[str]]], gold_counts: Mapping[int, int]
) -> tuple[int, int]:
    """The two triple counts a real item shows, smaller first."""
    counts = [
        gold_counts[item.text_id] if system.is_ground_truth else len(outputs.get((item.text_id, system.pk), []))
        for system in (item.system_a, item.system_b)
    ]
    return min(counts), max(counts)


def _holders(campaign: Campaign) -> dict[int, set[int]]:
    """By item: the annotators whose queue holds it."""
    holders: dict[int, set[int]] = {}
    for item_id, annotator_id in Assignment.objects.filter(item__campaign=campaign).values_list(
        "item_id", "annotator_id"
    ):
        holders.setdefault(item_id, set()).add(annotator_id)
    return holders


def _pair_to_displace(
    text_pairs: list[Assignment],
    holders: Mapping[int, set[int]],
    check_counts: tuple[int, int],
    counts: Callable[[Item], tuple[int, int]],
    rng: random.Random,
) -> Assignment | None:
    """Which real pair of a text a check showing ``check_counts`` takes the place of, or None when
    none may give way.

    Only an untouched pending pair gives way, and never the last real pair of the text showing the
    counts of this check or of a check already there: each check keeps a twin beside it. One that
    another annotator holds too comes first (it is still judged, by them); and a twin comes last.
    """
    shown_by = {assignment.pk: counts(assignment.item) for assignment in text_pairs}
    real = [assignment for assignment in text_pairs if not assignment.item.is_attention_check]
    shown = Counter(shown_by[assignment.pk] for assignment in real)
    kept = {check_counts} | {shown_by[pair.pk] for pair in text_pairs if pair.item.is_attention_check}
    pending = [
        assignment
        for assignment in real
        if assignment.status == Assignment.Status.PENDING
        and not (shown_by[assignment.pk] in kept and shown[shown_by[assignment.pk]] == 1)
    ]
    rng.shuffle(pending)  # then a stable sort: the place among the text's pairs stays random
    ranked = sorted(
        pending,
        key=lambda assignment: (len(holders.get(assignment.item_id, ())) < 2, shown_by[assignment.pk] in kept),
    )
    return ranked[0] if ranked else None


def _copyable_on_text(
    text_id: int,
    text_pairs: list[Assignment],
    candidates: list[int],
    outputs: Mapping[tuple[int, int], list[list[str]]],
    pair_counts: Callable[[Item], tuple[int, int]],
) -> list[int]:
    """The candidate systems whose output a check may copy on a text of one queue (its pairs there,
    checks included): those for which a real pair of the text shows the copy's count on both
    sides, so that the check's counts are those of a pair beside it."""
    shown = {pair_counts(pair.item) for pair in text_pairs if not pair.item.is_attention_check}
    return [system_id for system_id in candidates if (len(outputs[(text_id, system_id)]),) * 2 in shown]


def _texts_for_checks(
    queue: list[Assignment],
    holders: Mapping[int, set[int]],
    copyable: Callable[[list[Assignment], int], list[int]],
    rng: random.Random,
) -> list[int]:
    """The texts of a queue on which some system is ``copyable`` for a check, in a drawn order;
    only overlap texts where the queue has some, so that the pair a check displaces is still judged
    (by the other annotator)."""
    holders_of: dict[int, list[int]] = {}
    for assignment in queue:
        holders_of.setdefault(assignment.item.text_id, []).append(len(holders[assignment.item_id]))
    texts = [text_id for text_id in holders_of if copyable(queue, text_id)]
    rng.shuffle(texts)
    shared = [text_id for text_id in texts if max(holders_of[text_id]) > 1]
    return shared or texts


@transaction.atomic
def add_attention_checks(campaign: Campaign) -> int:
    """Make ``campaign.attention_share`` of every queue attention checks; returns how many were made.

    Each check shows the output of one compared system on a text of the annotator's queue, and
    on the other side a copy made clearly worse (``annotation.attention``) with as many triples.
    A check *takes the place* of one of the text's real pairs in that queue, at that pair's
    position: were it added, a text with a check would count one pair more than the others
    ("pair 3 of 7" where the rest read "of 6"), and an annotator who noticed could answer checks
    carefully and the rest carelessly. The pair given up is one that another annotator of the text
    (an overlap text) judges too where possible, so it is still judged. A check goes only where the
    queue holds a real pair of its text whose two sides show as many triples as the copied output,
    and that pair stays: a check's two triple counts are always those of a real pair beside it.
    """
    if campaign.attention_share <= 0:
        return 0
    outputs = {
        (output.text_id, output.system_id): output.triples
        for output in Output.objects.filter(text__in=campaign.texts.all(), system__in=campaign.systems.all())
    }
    contents = dict(campaign.texts.values_list("pk", "content"))
    gold_counts = {text_id: len(gold) for text_id, gold in campaign.texts.values_list("pk", "gold")}
    candidates = _copy_candidates(campaign, outputs, gold_counts)
    holders = _holders(campaign)

    def pair_counts(item: Item) -> tuple[int, int]:
        return _pair_counts(item, outputs, gold_counts)

    def pairs_of(queue: list[Assignment], text_id: int) -> list[Assignment]:
        return [assignment for assignment in queue if assignment.item.text_id == text_id]

    def copyable(queue: list[Assignment], text_id: int) -> list[int]:
        return _copyable_on_text(text_id, pairs_of(queue, text_id), candidates[text_id], outputs, pair_counts)

    foreign: dict[int, list[list[str]]] = {}
    made = 0
    for annotator_id in campaign.active_annotator_ids():
        queue = list(
            Assignment.objects.filter(item__campaign=campaign, annotator_id=annotator_id)
            .select_related("item__system_a", "item__system_b")
            .order_by("queue_position", "pk")
        )
        wanted = attention.check_count(len(queue), campaign.attention_share) - sum(
            assignment.item.is_attention_check for assignment in queue
        )
        rng = sampling.seeded_random(campaign.sample_seed, "attention", annotator_id)
        texts = _texts_for_checks(queue, holders, copyable, rng)
        for count in range(max(wanted, 0) if texts else 0):
            text_id = texts[count % len(texts)]
            # Again for each check: an earlier check on the text may have taken a twin's place.
            systems = copyable(queue, text_id)
            if not systems:
                continue
            system_id = systems[rng.randrange(len(systems))]
            copied_count = len(outputs[(text_id, system_id)])
            # Read once per text: setdefault would run the two queries on every check.
            if text_id not in foreign:
                foreign[text_id] = _foreign_triples(campaign, text_id)
            copy = attention.worse_copy(
                outputs[(text_id, system_id)], contents[text_id], foreign[text_id], rng.random()
            )
            displaced = _pair_to_displace(
                pairs_of(queue, text_id),
                holders,
                (copied_count, copied_count),
                pair_counts,
                rng,
            )
            if copy is None or displaced is None:
                continue
            queue[queue.index(displaced)] = _make_check(
                campaign, annotator_id, text_id, system_id, copy, displaced, rng
            )
            holders[displaced.item_id].discard(annotator_id)
            if not holders[displaced.item_id]:  # judged by nobody now: no item to count or rate
                Item.objects.filter(pk=displaced.item_id).delete()
            made += 1
    return made


def _make_check(
    campaign: Campaign,
    annotator_id: int,
    text_id: int,
    system_id: int,
    copy: attention.WorseCopy,
    displaced: Assignment,
    rng: random.Random,
) -> Assignment:
    """The check's item and assignment, at the queue position of the real pair it displaces (deleted)."""
    item = Item.objects.create(
        campaign=campaign,
        text_id=text_id,
        system_a_id=system_id,
        system_b_id=system_id,
        attention_worse=rng.choice(["a", "b"]),
        attention_aspect=copy.aspect,
        attention_triples=copy.triples,
    )
    position = displaced.queue_position
    displaced.delete()
    return Assignment.objects.create(
        item=item,
        annotator_id=annotator_id,
        queue_position=position,
        a_on_left=sampling.a_on_left(campaign.sample_seed, item.pk, annotator_id),
    )


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
    check_labels(shown_answers)
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
        carry_over_practice_passes(membership.campaign, [membership.annotator_id])
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
