"""The annotators' queues: where an annotator stands on a text, what they judge next, skipping.

Completeness is judged against the text's gold triples, and in a campaign that includes the
Ground-truth system the gold *is* one side's extraction. So the gold of a text is shown to an
annotator only once they have judged the four first aspects of every pair of that text in their
queue: each text is read twice, first the four aspects pair by pair, then completeness pair by
pair, and no pair is judged on the first four knowing which side is the gold. Across campaigns
the same holds because an annotator reads a text in one campaign only (``services.campaigns``);
where older data gives them a text in two, the gold shown in one withholds the other's pairs
still lacking a first aspect (``Assignment.objects.not_withheld``).
"""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Exists, F, Max, Min, OuterRef, Q, QuerySet, Subquery

from annotation.adaptive_queue import next_adaptive_assignment
from annotation.models import FIRST_ASPECTS, Aspect, Assignment, Campaign, CampaignAnnotator, PracticeItem
from annotation.services.errors import AssignmentClosed
from core.compiled_queries import SAMPLE_IDS, CompiledQuery

# One pair's judgements: {aspect: (judgement id, canonical label)}.
StoredAspects = dict[str, tuple[int, str]]
# An annotator's judgements of some pairs: {assignment id: StoredAspects}.
StoredJudgements = dict[int, StoredAspects]


@dataclass(frozen=True)
class TextProgress:
    """One annotator's pairs of one text in a campaign, in queue order, and what each holds."""

    judgements: StoredJudgements  # in queue order
    compares_with_ground_truth: bool  # the campaign includes the Ground-truth system
    # The annotator was shown this text's gold in another campaign: here, their pairs still lacking
    # a first aspect are withheld (``Assignment.objects.not_withheld``), the others go on to completeness.
    gold_shown_elsewhere: bool = False

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
        """Gold and completeness are shown once every pair has its four first aspects (or the gold was
        shown in another campaign already)."""
        return self.lacking_first_aspects == 0 or self.gold_shown_elsewhere

    @property
    def gold_seen(self) -> bool:
        """The gold was shown: it is revealed now, or was earlier (a completeness judgement exists)."""
        return self.gold_revealed or any(Aspect.CS in stored for stored in self.judgements.values())

    @property
    def first_aspects_locked(self) -> bool:
        """In a campaign with Ground truth, the first four of a text are final once its gold was shown."""
        return self.compares_with_ground_truth and self.gold_seen


def _text_pairs(
    campaign_id: int, annotator_id: int, text_id: int
) -> QuerySet[Any, tuple[int, int, int, str, str, bool]]:
    """The annotator's pairs of the text, in this campaign and any other not imported, with their judgements."""
    return (
        Assignment.objects.filter(
            Q(item__campaign_id=campaign_id) | Q(item__campaign__is_imported=False),
            annotator_id=annotator_id,
            item__text_id=text_id,
        )
        .annotate(
            ground_truth=Exists(
                Campaign.systems.through.objects.filter(
                    campaign_id=OuterRef("item__campaign_id"), system__is_ground_truth=True
                )
            )
        )
        .order_by("queue_position", "pk")
        .values_list(
            "pk", "item__campaign_id", "judgements__pk", "judgements__aspect", "judgements__label", "ground_truth"
        )
    )


# The item page and every save read these: compiled once per process (``core.compiled_queries``).
text_pairs = CompiledQuery(_text_pairs, SAMPLE_IDS)


def text_progress(assignment: Assignment) -> TextProgress:
    """The ``TextProgress`` of the annotator of ``assignment`` on its text: one query, which reads
    their pairs of the text in every campaign to know whether its gold was shown in another."""
    campaign_id = assignment.item.campaign_id
    rows = text_pairs(campaign_id, assignment.annotator_id, assignment.item.text_id)
    campaigns: dict[int, StoredJudgements] = {campaign_id: {}}
    ground_truth = False
    for assignment_id, row_campaign_id, judgement_id, aspect, label, row_ground_truth in rows:
        stored = campaigns.setdefault(row_campaign_id, {}).setdefault(assignment_id, {})
        if judgement_id is not None:
            stored[aspect] = (judgement_id, label)
        if row_campaign_id == campaign_id:
            ground_truth = row_ground_truth
    judgements = campaigns.pop(campaign_id)
    shown_elsewhere = any(
        TextProgress(other, compares_with_ground_truth=False).gold_seen for other in campaigns.values()
    )
    return TextProgress(judgements, compares_with_ground_truth=ground_truth, gold_shown_elsewhere=shown_elsewhere)


def joined_several_campaigns(annotator: User) -> bool:
    """Whether the annotator joined more than one campaign (imported ones aside), so that a pair of
    theirs can be withheld (``Assignment.objects.not_withheld``): one query."""
    return len(first_two_memberships(annotator.pk)) > 1


def _first_two_memberships(annotator_id: int) -> QuerySet[CampaignAnnotator, int]:
    memberships = CampaignAnnotator.objects.filter(annotator_id=annotator_id, campaign__is_imported=False)
    return memberships.values_list("pk", flat=True)[:2]


first_two_memberships = CompiledQuery(_first_two_memberships, SAMPLE_IDS[:1])


@dataclass(frozen=True)
class PendingPair:
    """A pending assignment of the annotator's current text, as the choice of what comes next sees it."""

    assignment_id: int
    public_id: uuid.UUID
    item_id: int
    aspects: frozenset[str]  # the aspects it has judgements for
    adaptive: bool = False  # its campaign orders pairs by uncertainty (Campaign.PairOrder.ADAPTIVE)


def _pending_pairs(
    annotator_id: int, campaign_id: int, *, withholding: bool
) -> QuerySet[Assignment, tuple[int, uuid.UUID, int, str, str]]:
    """The annotator's pending pairs of their current text in the campaign, one row per judgement
    (see ``current_text_pairs``); ``withholding``: leave out the withheld pairs."""
    pending = Assignment.objects.filter(
        annotator_id=annotator_id, item__campaign_id=campaign_id, status=Assignment.Status.PENDING
    )
    if withholding:
        pending = pending.not_withheld()
    current_text = pending.order_by("queue_position", "pk").values("item__text_id")[:1]
    practice_passed = Q(item__campaign__memberships__practice_passed_at__isnull=False) | ~Exists(
        PracticeItem.objects.filter(campaign_id=OuterRef("item__campaign_id"))
    )
    return (
        pending.filter(
            practice_passed,
            item__text_id=Subquery(current_text),
            item__campaign__is_open=True,
            item__campaign__memberships__annotator_id=annotator_id,
            item__campaign__memberships__active=True,
        )
        .order_by("queue_position", "pk")
        # One row per judgement of each pair; a pair with none: one row, aspect None.
        .values_list("pk", "public_id", "item_id", "item__campaign__pair_order", "judgements__aspect")
    )


# Every "next item" and every save asks for these: compiled once per process (``core.compiled_queries``).
pending_pairs = CompiledQuery(partial(_pending_pairs, withholding=False), SAMPLE_IDS[:2])
pending_pairs_withheld = CompiledQuery(partial(_pending_pairs, withholding=True), SAMPLE_IDS[:2])


def current_text_pairs(annotator: User, campaign: Campaign | int) -> list[PendingPair]:
    """The annotator's pending pairs of their current text in ``campaign`` (an instance or an id),
    in queue order: one query, of plain values (no model instances, no per-pair count in SQL).

    The current text is the text of the first pending assignment in queue order. A closed
    campaign, one the annotator left, or one whose practice round they have still to pass has none.
    """
    campaign_id = campaign.pk if isinstance(campaign, Campaign) else campaign
    # Running the withholding test costs more than a query that says it cannot apply.
    query = pending_pairs_withheld if joined_several_campaigns(annotator) else pending_pairs
    rows = query(annotator.pk, campaign_id)
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
