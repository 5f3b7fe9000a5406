"""Everything that writes campaigns, queues and judgements, each operation in one transaction.

Views and commands call these functions; the planning itself (sampling, queues, rebalancing)
is pure and lives in ``annotation.sampling``.
"""

import math
from dataclasses import dataclass
from datetime import timedelta
from itertools import combinations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Max
from django.utils import timezone

from annotation import sampling
from annotation.models import (
    ASPECTS,
    FIRST_ASPECTS,
    SHOWN_SIDES,
    Aspect,
    Assignment,
    Campaign,
    CampaignAnnotator,
    Item,
    Judgement,
)
from scoring.models import Output, System

# Time is measured in the annotator's browser: untrusted, so each save adds at most this much.
MAX_SECONDS_PER_SAVE = 3600.0
# Error messages list at most this many offending texts, then say how many more there are.
MAX_LISTED = 10


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


# --- Campaign creation ---------------------------------------------------------------------


@dataclass(frozen=True)
class CampaignCreated:
    campaign: Campaign
    texts_left_out: int  # texts of the dataset skipped by sampling because an output was missing


def _listing(values):
    values = list(values)
    shown = ", ".join(values[:MAX_LISTED])
    return shown if len(values) <= MAX_LISTED else f"{shown} and {len(values) - MAX_LISTED} more"


def resolve_text_references(dataset, references):
    """Texts of ``dataset`` named by external id, by ``#N`` (the N-th text, as pages show it) or by id."""
    texts = list(dataset.texts.all())
    by_external_id = {text.external_id: text for text in texts if text.external_id}
    by_position = {f"#{text.position + 1}": text for text in texts}
    by_id = {str(text.pk): text for text in texts}
    resolved, unknown = [], []
    for reference in references:
        text = by_external_id.get(reference) or by_position.get(reference) or by_id.get(reference)
        if text is None:
            unknown.append(reference)
        elif text not in resolved:
            resolved.append(text)
    if unknown:
        raise CampaignError(f"Unknown texts in dataset {dataset.name}: {_listing(unknown)}.")
    return resolved


def missing_outputs(texts, systems):
    """Map each text lacking something to compare to the names of the systems it lacks.

    The ground-truth system lacks a text with no gold triples; any other system lacks a text
    it has no stored output for (an output with no triples is present: an empty answer).
    """
    texts = list(texts)
    present = set(
        Output.objects.filter(text__in=texts, system__in=systems).values_list("text_id", "system_id")
    )
    missing = {}
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


def _describe_missing(missing):
    return _listing(f"{text.label} ({', '.join(names)})" for text, names in missing.items())


def create_campaign(
    *,
    name,
    dataset,
    systems,
    annotators,
    seed,
    overlap_share=0.5,
    instructions="",
    created_by=None,
    sample_size=None,
    text_references=None,
):
    """Create a campaign: sample texts, make every system pair an item on each, fill the queues.

    Give either ``sample_size`` (texts drawn at random, with ``seed``, among the texts every
    chosen system has an output for) or ``text_references`` (explicit texts, refused if any
    lacks an output).
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
        text_items = {text.pk: [] for text in texts}
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
    return CampaignCreated(campaign=campaign, texts_left_out=left_out)


# --- Annotators joining and leaving --------------------------------------------------------


@dataclass(frozen=True)
class Rebalanced:
    moved: int  # pending assignments handed to another annotator
    reissued: int  # partly judged ones: the judgements stay with their author, the item goes afresh to another
    dropped: int  # overlap copies no remaining annotator can take

    def __str__(self):
        return f"{self.moved} items moved, {self.reissued} reissued, {self.dropped} dropped"


@transaction.atomic
def add_annotator(campaign, annotator):
    membership, created = CampaignAnnotator.objects.get_or_create(campaign=campaign, annotator=annotator)
    if not created and membership.active:
        raise CampaignError(f"{annotator.get_username()} already annotates {campaign.name}.")
    if not created:
        membership.active = True
        membership.save(update_fields=["active"])
    return rebalance(campaign)


@transaction.atomic
def remove_annotator(campaign, annotator):
    updated = CampaignAnnotator.objects.filter(campaign=campaign, annotator=annotator, active=True).update(
        active=False
    )
    if not updated:
        raise CampaignError(f"{annotator.get_username()} does not annotate {campaign.name}.")
    if not CampaignAnnotator.objects.filter(campaign=campaign, active=True).exists():
        raise CampaignError("A campaign needs at least one annotator: add another before removing the last.")
    return rebalance(campaign)


@transaction.atomic
def rebalance(campaign):
    """Redistribute pending work over the active annotators; done work and judgements never move."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if campaign.is_imported:
        raise CampaignError("An imported campaign has no queues to rebalance.")
    assignments = {
        assignment.pk: assignment
        for assignment in Assignment.objects.filter(item__campaign=campaign)
        .select_related("item")
        .annotate(judged=Count("judgements"))
    }
    slots = [
        sampling.Slot(
            key=assignment.pk,
            item=assignment.item_id,
            text=assignment.item.text_id,
            annotator=assignment.annotator_id,
            done=assignment.status == Assignment.Status.DONE,
            position=assignment.queue_position,
            started=assignment.judged > 0,
        )
        for assignment in assignments.values()
    ]
    plan = sampling.plan_rebalance(slots, campaign.active_annotator_ids(), campaign.sample_seed)

    seed = campaign.sample_seed
    changed, created, reissued = {}, {}, 0
    for key, annotator_id in plan.moves.items():
        assignment = assignments[key]
        side = sampling.a_on_left(seed, assignment.item_id, annotator_id)
        if assignment.judged:
            created[key] = Assignment(item_id=assignment.item_id, annotator_id=annotator_id, a_on_left=side)
            reissued += 1
        else:
            assignment.annotator_id, assignment.a_on_left = annotator_id, side
            changed[key] = assignment
    unjudged_dropped = [key for key in plan.dropped if not assignments[key].judged]
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


# --- Annotating ----------------------------------------------------------------------------


def next_assignment(annotator, campaign):
    """The first pending assignment in the annotator's queue, or None when there is nothing left."""
    if not campaign.is_open:
        return None
    if not CampaignAnnotator.objects.filter(campaign=campaign, annotator=annotator, active=True).exists():
        return None
    return (
        Assignment.objects.filter(annotator=annotator, item__campaign=campaign, status=Assignment.Status.PENDING)
        .select_related("item__text")
        .order_by("queue_position", "pk")
        .first()
    )


@transaction.atomic
def skip(assignment):
    """Send a pending assignment to the end of its annotator's queue."""
    locked = Assignment.objects.select_for_update().select_related("item").get(pk=assignment.pk)
    if locked.status == Assignment.Status.DONE:
        raise AssignmentClosed("This item is already finished; there is nothing to skip.")
    last = Assignment.objects.filter(
        annotator_id=locked.annotator_id, item__campaign_id=locked.item.campaign_id
    ).aggregate(last=Max("queue_position"))["last"]
    locked.queue_position = last + 1
    locked.save(update_fields=["queue_position"])
    return locked


def _seconds_spent(seconds):
    try:
        seconds = float(seconds or 0.0)
    except (TypeError, ValueError) as error:
        raise InvalidJudgement("The time spent must be a number of seconds.") from error
    if not math.isfinite(seconds):
        return 0.0
    return min(max(seconds, 0.0), MAX_SECONDS_PER_SAVE)


def _check_labels(labels):
    if not labels:
        raise InvalidJudgement("No judgement was sent.")
    for aspect, side in labels.items():
        if aspect not in ASPECTS:
            raise InvalidJudgement(f"Unknown aspect {str(aspect)[:20]!r}: expected one of {', '.join(ASPECTS)}.")
        if side not in SHOWN_SIDES:
            raise InvalidJudgement(
                f"Unknown choice {str(side)[:20]!r} for {Aspect(aspect).label}: expected left, right or tie."
            )


@transaction.atomic
def save_judgements(assignment, labels, *, expected_version, seconds):
    """Store an annotator's choices for some aspects of one assignment; return the updated assignment.

    ``labels`` maps aspect codes to the side the annotator preferred ("left", "right" or
    "tie"); they are stored in canonical order. ``expected_version`` is the version the page
    was rendered with: a different one means another tab saved in between, and the save is
    refused with ``VersionConflict``, unless it repeats exactly what is stored (a resent form),
    which changes nothing. Completeness is refused until the four other aspects are stored.
    ``seconds`` (time on the page since the last save) is added to the time spent.
    """
    _check_labels(labels)
    spent = _seconds_spent(seconds)
    locked = Assignment.objects.select_for_update().select_related("item__campaign").get(pk=assignment.pk)
    campaign = locked.item.campaign
    if locked.annotator_id != assignment.annotator_id:
        raise VersionConflict("This item has been handed to another annotator; open your queue again.")
    if not campaign.is_open:
        raise AssignmentClosed(f"The campaign {campaign.name} is closed.")
    if not CampaignAnnotator.objects.filter(campaign=campaign, annotator_id=locked.annotator_id, active=True).exists():
        raise AssignmentClosed(f"You no longer annotate {campaign.name}.")

    canonical = {aspect: locked.shown_to_canonical(side) for aspect, side in labels.items()}
    stored = {judgement.aspect: judgement for judgement in locked.judgements.all()}
    if all(aspect in stored and stored[aspect].label == label for aspect, label in canonical.items()):
        return locked  # a resent form: everything is saved already
    if expected_version != locked.version:
        raise VersionConflict(
            "These judgements were changed in another window since this page was opened; reload it to see them."
        )
    if Aspect.CS in canonical and not set(FIRST_ASPECTS) <= set(stored):
        raise CompletenessTooEarly(
            "Completeness is judged last: save topical similarity, uniqueness, factualness and granularity first."
        )

    for aspect, label in canonical.items():
        if aspect in stored:
            if stored[aspect].label != label:
                stored[aspect].label = label
                stored[aspect].save(update_fields=["label", "updated_at"])
        else:
            stored[aspect] = Judgement.objects.create(assignment=locked, aspect=aspect, label=label)

    now = timezone.now()
    locked.seconds_spent += spent
    if locked.started_at is None:
        locked.started_at = now - timedelta(seconds=spent)
    if set(ASPECTS) <= set(stored) and locked.status != Assignment.Status.DONE:
        locked.status = Assignment.Status.DONE
        locked.completed_at = now
    locked.version += 1
    locked.save(update_fields=["seconds_spent", "started_at", "status", "completed_at", "version"])
    return locked
