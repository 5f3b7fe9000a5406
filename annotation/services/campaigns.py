"""Campaigns: creating one (texts, items, queues), opening and closing it, annotators joining
and leaving it, with its pending work rebalanced over those who remain."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction

from annotation import access, practice, sampling
from annotation.models import Assignment, Campaign, CampaignAnnotator, Item, Judgement, TripleCheck
from annotation.services.errors import CampaignError
from annotation.services.quality_control import (
    add_attention_checks,
    carry_over_practice_passes,
    replace_practice_items,
)
from annotation.services.queues import StoredJudgements, TextProgress
from scoring.models import Dataset, Output, System, Text

# Error messages list at most this many offending texts, then say how many more there are.
MAX_LISTED = 10


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
        texts, left_out = _listed_texts(dataset, systems, text_references), 0
    else:
        assert sample_size is not None  # one of the two was given, checked above
        texts, left_out = _sampled_texts(dataset, systems, sample_size, seed)
    overlap = sampling.select_overlap([text.pk for text in texts], overlap_share, seed)
    if overlap and len(annotators) < 2:
        raise CampaignError("Overlap texts are judged by two annotators: choose at least two, or an overlap of 0%.")
    refuse_output_readers(dataset, annotators)
    barred = held_elsewhere(None, [text.pk for text in texts], [annotator.pk for annotator in annotators])
    _check_takers(texts, annotators, overlap, barred)

    with transaction.atomic():
        campaign = _saved_campaign(
            Campaign(
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
        )
        campaign.systems.set(systems)
        campaign.texts.set(texts)
        CampaignAnnotator.objects.bulk_create(
            CampaignAnnotator(campaign=campaign, annotator=annotator) for annotator in annotators
        )
        _fill_queues(campaign, texts, systems, [annotator.pk for annotator in annotators], overlap, barred)
        replace_practice_items(campaign, practice_items)
        add_attention_checks(campaign)
    return CampaignCreated(campaign=campaign, texts_left_out=left_out)


def _listed_texts(dataset: Dataset, systems: Sequence[System], references: Iterable[str]) -> list[Text]:
    """The texts named by ``references``, refused if the list is empty or a text lacks an output."""
    texts = resolve_text_references(dataset, references)
    if not texts:
        raise CampaignError("The list of texts is empty.")
    missing = missing_outputs(texts, systems)
    if missing:
        raise CampaignError(f"Some texts lack an output to compare: {_describe_missing(missing)}.")
    return texts


def _sampled_texts(dataset: Dataset, systems: Sequence[System], sample_size: int, seed: int) -> tuple[list[Text], int]:
    """``sample_size`` texts drawn with ``seed`` among those with an output of every system, in
    dataset order, and how many texts were left out for lacking one."""
    candidates = list(dataset.texts.order_by("position"))
    missing = missing_outputs(candidates, systems)
    eligible = [text for text in candidates if text not in missing]
    if sample_size > len(eligible) and not missing:
        # Every text qualifies: the dataset itself is too small, and there is no text to name.
        raise CampaignError(f"{dataset.name} has only {len(candidates)} texts; cannot sample {sample_size}.")
    if sample_size > len(eligible):
        raise CampaignError(
            f"Only {len(eligible)} of the {len(candidates)} texts of {dataset.name} have outputs for every "
            f"chosen system; cannot sample {sample_size}. Texts lacking outputs: {_describe_missing(missing)}."
        )
    chosen = set(sampling.sample_texts([text.pk for text in eligible], sample_size, seed))
    return [text for text in eligible if text.pk in chosen], len(missing)


def held_elsewhere(
    campaign: Campaign | None, text_ids: Iterable[int], annotator_ids: Iterable[int]
) -> set[tuple[int, int]]:
    """The (annotator, text) pairs of an annotator who holds that text in another campaign than
    ``campaign`` (None: any campaign), open or closed; imported campaigns showed nobody anything.

    Each annotator reads a text in one campaign only: once they have judged its first four
    aspects there, its gold triples are shown, and in another campaign that includes Ground truth
    they would recognise the Ground-truth side; before that, the first reveal would spoil the
    other campaign's pairs still lacking them.
    """
    held = Assignment.objects.filter(
        item__text_id__in=list(text_ids), annotator_id__in=list(annotator_ids), item__campaign__is_imported=False
    )
    if campaign is not None:
        held = held.exclude(item__campaign=campaign)
    return set(held.values_list("annotator_id", "item__text_id").distinct())


def _check_takers(
    texts: Sequence[Text], annotators: Sequence[User], overlap: set[int], barred: set[tuple[int, int]]
) -> None:
    """Refuse texts that too few of the chosen annotators may read (``held_elsewhere``), naming them."""
    short: list[str] = []
    for text in texts:
        free = [annotator for annotator in annotators if (annotator.pk, text.pk) not in barred]
        if len(free) < (2 if text.pk in overlap else 1):
            taken = [annotator.get_username() for annotator in annotators if (annotator.pk, text.pk) in barred]
            short.append(f"{text.label} ({', '.join(taken)})")
    if short:
        raise CampaignError(
            "An annotator reads a text in one campaign only, so that its gold, shown in one, never names the "
            f"Ground-truth side in another. These texts lack annotators who have not read them in another "
            f"campaign: {_listing(short)}. Choose other annotators or texts, or a smaller overlap."
        )


def refuse_output_readers(dataset: Dataset, annotators: Iterable[User]) -> None:
    """Refuse annotators who may read the dataset's outputs or leaderboards (``annotation.access``)."""
    readers = [annotator for annotator in annotators if access.reads_outputs(annotator)]
    if readers:
        raise CampaignError(access.reader_refusal(readers, dataset.name))


def _saved_campaign(campaign: Campaign) -> Campaign:
    """``campaign`` saved, once its fields are valid; the validation's messages become a CampaignError."""
    try:
        campaign.full_clean()
    except ValidationError as error:
        raise CampaignError(" ".join(error.messages)) from error
    campaign.save()
    return campaign


def _fill_queues(
    campaign: Campaign,
    texts: Sequence[Text],
    systems: Sequence[System],
    annotator_ids: list[int],
    overlap: set[int],
    barred: set[tuple[int, int]],
) -> None:
    """Make every pair of ``systems`` an item on each text, and queue the items for the annotators
    (``sampling.assign_queues``; ``overlap``: the texts judged twice; ``barred``: (annotator, text)
    pairs not to make)."""
    seed = campaign.sample_seed
    # Systems are sorted by id, so every pair from combinations() is already in canonical order.
    items = Item.objects.bulk_create(
        Item(campaign=campaign, text=text, system_a=first, system_b=second)
        for text in texts
        for first, second in combinations(systems, 2)
    )
    text_items: dict[int, list[int]] = {text.pk: [] for text in texts}
    for item in items:
        text_items[item.text_id].append(item.pk)
    queues = sampling.assign_queues(text_items, overlap, annotator_ids, seed, barred)
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


def toggle_open(campaign: Campaign | TripleCheck) -> None:
    """Close an open campaign (pairwise or triple check) to its annotators, or open a closed one;
    an imported one has none."""
    if isinstance(campaign, Campaign) and campaign.is_imported:
        raise CampaignError("An imported campaign has no annotators to open it to.")
    campaign.is_open = not campaign.is_open
    campaign.save(update_fields=["is_open"])


# --- Annotators joining and leaving --------------------------------------------------------


@dataclass(frozen=True)
class Rebalanced:
    moved: int  # pending assignments handed to another annotator
    reissued: int  # partly judged ones: the judgements stay with their author, the item goes afresh to another
    dropped: int  # no remaining annotator can take them: overlap copies, or pairs only those barred from the text could

    def __str__(self) -> str:
        return f"{self.moved} items moved, {self.reissued} reissued, {self.dropped} dropped"


@transaction.atomic
def add_annotator(campaign: Campaign, annotator: User) -> Rebalanced:
    refuse_output_readers(campaign.dataset, [annotator])
    membership, created = CampaignAnnotator.objects.get_or_create(campaign=campaign, annotator=annotator)
    if not created and membership.active:
        raise CampaignError(f"{annotator.get_username()} already annotates {campaign.name}.")
    if not created:
        membership.active = True
        membership.save(update_fields=["active"])
    carry_over_practice_passes(campaign, [annotator.pk])
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
    withheld = set(
        Assignment.objects.filter(item__campaign=campaign, status=Assignment.Status.PENDING)
        .exclude(pk__in=Assignment.objects.filter(item__campaign=campaign).not_withheld().values("pk"))
        .values_list("pk", flat=True)
    )
    slots = [
        sampling.Slot(
            key=assignment.pk,
            item=assignment.item_id,
            text=assignment.item.text_id,
            annotator=assignment.annotator_id,
            done=assignment.status == Assignment.Status.DONE,
            position=assignment.queue_position,
            started=bool(stored[assignment.pk]),
            withheld=assignment.pk in withheld,
        )
        for assignment in assignments.values()
    ]
    active = campaign.active_annotator_ids()
    barred = _gold_seen(assignments.values(), stored) | held_elsewhere(campaign, {slot.text for slot in slots}, active)
    plan = sampling.plan_rebalance(slots, active, campaign.sample_seed, barred=barred)

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
