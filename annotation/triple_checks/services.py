"""Every write of triple-check campaigns: creating one (sample, items, queues) and saving a label."""

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone

from annotation import access, attention, sampling
from annotation.practice import passed
from annotation.sampling import seeded_random
from annotation.services.errors import CampaignError, InvalidJudgement
from annotation.triple_checks import practice
from annotation.triple_checks.models import (
    MAX_FACTS,
    TripleCheck,
    TripleCheckItem,
    TripleLabel,
    TripleLabelQuerySet,
    TriplePracticeAnswer,
    TriplePracticeItem,
)
from annotation.triple_checks.practice import TriplePracticeRecord
from annotation.triple_checks.sampling import Candidate, stratified_sample
from scoring.models import Dataset, Output, System, Text
from scoring.models.runs import ScoringRun
from scoring.models.scores import TextScore

# The longest time a label may claim, in seconds: a tab left open overnight says nothing of effort.
MAX_SECONDS = 3600.0


def candidates(dataset: Dataset, systems: Sequence[System], judge_setting: str) -> list[Candidate]:
    """Every triple of the systems' outputs on ``dataset``, with the judge's support verdict.

    Without a judge setting, or for a triple that setting has no current verdict on, the verdict
    is None (a stratum of its own). Keys are (output id, index).
    """
    verdicts: dict[int, list[Any]] = {}
    if judge_setting:
        scored = TextScore.objects.current().filter(
            fingerprint=judge_setting, metric="fs", output__text__dataset=dataset, output__system__in=systems
        )
        verdicts = dict(scored.values_list("output_id", "details"))
    found: list[Candidate] = []
    outputs = Output.objects.filter(text__dataset=dataset, system__in=systems).order_by("text__position", "system_id")
    for output_id, system_id, triples in outputs.values_list("pk", "system_id", "triples"):
        details = verdicts.get(output_id, [])
        for index in range(len(triples)):
            verdict = details[index] if index < len(details) else None
            supported = None if verdict is None or verdict.get("missing") else bool(verdict["supported"])
            found.append(Candidate((output_id, index), system_id, supported))
    return found


@transaction.atomic
def create_triple_check(
    name: str,
    dataset: Dataset,
    systems: Sequence[System],
    annotators: Sequence[User],
    *,
    judge_setting: str = "",
    per_stratum: int = 10,
    overlap_share: float = 0.5,
    attention_share: float = 0.0,
    practice: Sequence[TriplePracticeRecord] = (),
    practice_pass_mark: float = 0.8,
    seed: int = 0,
    created_by: User | None = None,
) -> TripleCheck:
    """A triple-check campaign with its sample of triples and every annotator's queue.

    The triples of one text sit together in one annotator's queue; an overlap text's triples go
    to a second annotator too. CampaignError says what is wrong with the request.
    """
    if not systems:
        raise CampaignError("Choose at least one system.")
    if any(system.is_ground_truth for system in systems):
        raise CampaignError("The ground truth is what triples are checked against: choose extraction systems.")
    readers = [annotator for annotator in annotators if access.reads_outputs(annotator)]
    if readers:
        raise CampaignError(access.reader_refusal(readers, dataset.name))
    finished = ScoringRun.objects.filter(dataset=dataset, fingerprint=judge_setting, status=ScoringRun.Status.DONE)
    if judge_setting and not finished.exists():
        raise CampaignError(f"No finished scoring run on {dataset.name} has the judge setting {judge_setting[:12]}.")
    if TripleCheck.objects.filter(name=name).exists():
        raise CampaignError(f"A triple-check campaign named {name} exists already.")
    campaign = TripleCheck(
        name=name,
        dataset=dataset,
        judge_setting=judge_setting,
        per_stratum=per_stratum,
        sample_seed=seed,
        overlap_share=overlap_share,
        attention_share=attention_share,
        practice_pass_mark=practice_pass_mark,
        created_by=created_by,
    )
    try:
        campaign.full_clean()
        sample = stratified_sample(candidates(dataset, systems, judge_setting), per_stratum, seed)
    except ValidationError as error:
        raise CampaignError(" ".join(error.messages)) from None
    except ValueError as error:
        raise CampaignError(str(error)) from None
    if not sample:
        raise CampaignError("The chosen systems have no triples on this dataset.")
    campaign.save()
    campaign.systems.set(systems)
    campaign.annotators.set(annotators)
    _store_sample(campaign, sample, [annotator.pk for annotator in annotators])
    TriplePracticeItem.objects.bulk_create(
        TriplePracticeItem(
            campaign=campaign, position=position, text=record.text, triple=record.triple,
            supported=record.supported, facts=record.facts, reason=record.reason,
        )
        for position, record in enumerate(practice)
    )  # fmt: skip
    return campaign


def _store_sample(campaign: TripleCheck, sample: Sequence[Any], annotator_ids: Sequence[int]) -> None:
    outputs = Output.objects.in_bulk([each.candidate.key[0] for each in sample])
    items = TripleCheckItem.objects.bulk_create(
        TripleCheckItem(
            campaign=campaign,
            output_id=output_id,
            text_id=outputs[output_id].text_id,
            index=index,
            triple=outputs[output_id].triples[index],
            weight=each.weight,
            stratum_supported=each.candidate.supported,
        )
        for each in sample
        for output_id, index in [each.candidate.key]
    )
    items.extend(_plant_attention_checks(campaign, items))
    text_items: defaultdict[int, list[int]] = defaultdict(list)
    for item in items:
        text_items[item.text_id].append(item.pk)
    seed = f"triple-check:{campaign.sample_seed}"
    try:
        overlap = sampling.select_overlap(text_items, campaign.overlap_share, seed)
        queues = sampling.assign_queues(text_items, overlap, annotator_ids, seed)
    except ValueError as error:
        raise CampaignError(str(error)) from None
    TripleLabel.objects.bulk_create(
        TripleLabel(item_id=item_id, annotator_id=annotator, queue_position=position)
        for annotator, queue in queues.items()
        for position, item_id in enumerate(queue)
    )


@dataclass(frozen=True)
class PracticeState:
    """Where an annotator stands in a triple check's practice round."""

    items: list[TriplePracticeItem]
    answers: dict[int, TriplePracticeAnswer]  # by practice item id, this attempt's
    pass_mark: float

    @property
    def next_item(self) -> TriplePracticeItem | None:
        return next((item for item in self.items if item.pk not in self.answers), None)

    @property
    def points(self) -> int:
        return sum(
            practice.points((item.supported, item.facts), (answer.supported, answer.facts))
            for item in self.items
            if (answer := self.answers.get(item.pk)) is not None
        )

    @property
    def total(self) -> int:
        return practice.total_points(len(self.items))

    @property
    def passed(self) -> bool:
        """True without a practice round; else once every item is answered at the pass mark."""
        if not self.items:
            return True
        return self.next_item is None and passed(self.points, self.total, self.pass_mark)


def practice_state(user: User, campaign: TripleCheck) -> PracticeState:
    items = list(campaign.practice_items.order_by("position"))
    answers = TriplePracticeAnswer.objects.filter(item__campaign=campaign, annotator=user)
    return PracticeState(items, {answer.item_id: answer for answer in answers}, campaign.practice_pass_mark)


def answer_practice(user: User, item: TriplePracticeItem, supported: str, facts: str) -> TriplePracticeAnswer:
    """Store the user's answer to a practice triple (form values, as ``save_label`` takes them)."""
    checked = checked_answer(supported, facts)
    answer, _ = TriplePracticeAnswer.objects.update_or_create(
        item=item, annotator=user, defaults={"supported": checked[0], "facts": checked[1]}
    )
    return answer


def retake_practice(user: User, campaign: TripleCheck) -> None:
    """Start the practice round again: this attempt's answers go."""
    TriplePracticeAnswer.objects.filter(item__campaign=campaign, annotator=user).delete()


def _plant_attention_checks(campaign: TripleCheck, items: list[TripleCheckItem]) -> list[TripleCheckItem]:
    """``campaign.attention_share`` of the sample again as attention checks: on the text of a
    sampled triple drawn at random, a triple of another text whose subject and object this text
    never mentions (``annotation.attention.unsupported``). A check sits with its text's triples,
    so it reaches whoever labels that text, and looks like any other triple."""
    count = attention.check_count(len(items), campaign.attention_share)
    if not count:
        return []
    rng = seeded_random(campaign.sample_seed, "triple-check-attention")
    contents = dict(Text.objects.filter(pk__in={item.text_id for item in items}).values_list("pk", "content"))
    planted = []
    for host in rng.sample(items, min(count, len(items))):
        foreign = [item.triple for item in items if item.text_id != host.text_id]
        made = attention.unsupported([host.triple], contents[host.text_id], foreign, rng)
        if made is not None:
            planted.append(
                TripleCheckItem(
                    campaign=campaign, output_id=host.output_id, text_id=host.text_id, index=host.index,
                    triple=made[0], weight=0.0, attention=True,
                )
            )  # fmt: skip
    return TripleCheckItem.objects.bulk_create(planted)


def own_labels(user: User) -> TripleLabelQuerySet:
    """The user's labels in open triple-check campaigns they still annotate: all they may read or write."""
    return TripleLabel.objects.filter(annotator=user, item__campaign__is_open=True, item__campaign__annotators=user)


def closed_triple_checks(user: User) -> QuerySet[TripleCheck]:
    """The closed triple-check campaigns ``user`` still annotates (their pages say so, not 404)."""
    return TripleCheck.objects.filter(is_open=False, annotators=user)


@transaction.atomic
def add_annotator(campaign: TripleCheck, annotator: User) -> None:
    """``annotator`` joins and takes pending triples from the busiest (``annotation.sampling.plan_rebalance``)."""
    if access.reads_outputs(annotator):
        raise CampaignError(access.reader_refusal([annotator], campaign.dataset.name))
    if campaign.annotators.filter(pk=annotator.pk).exists():
        raise CampaignError(f"{annotator.get_username()} already labels {campaign.name}.")
    campaign.annotators.add(annotator)
    rebalance(campaign)


@transaction.atomic
def remove_annotator(campaign: TripleCheck, annotator: User) -> None:
    """``annotator`` leaves; their saved labels stay and count, their pending triples go to the others."""
    if not campaign.annotators.filter(pk=annotator.pk).exists():
        raise CampaignError(f"{annotator.get_username()} does not label {campaign.name}.")
    if campaign.annotators.count() == 1:
        raise CampaignError("A campaign needs at least one annotator: add another before removing the last.")
    campaign.annotators.remove(annotator)
    rebalance(campaign)


def rebalance(campaign: TripleCheck) -> None:
    """Spread the pending triples over the campaign's annotators; saved labels never move. A
    pending overlap copy no one else may take (they hold that triple) is dropped."""
    campaign = TripleCheck.objects.select_for_update().get(pk=campaign.pk)
    labels = {label.pk: label for label in TripleLabel.objects.filter(item__campaign=campaign).select_related("item")}
    slots = [
        sampling.Slot(
            key=label.pk, item=label.item_id, text=label.item.text_id, annotator=label.annotator_id,
            done=label.saved_at is not None, position=label.queue_position,
        )
        for label in labels.values()
    ]  # fmt: skip
    active = list(campaign.annotators.order_by("pk").values_list("pk", flat=True))
    plan = sampling.plan_rebalance(slots, active, f"triple-check:{campaign.sample_seed}")
    TripleLabel.objects.filter(pk__in=plan.dropped).delete()
    for key, annotator_id in plan.moves.items():
        labels[key].annotator_id = annotator_id
    for queue in plan.queues.values():
        for position, key in enumerate(queue):
            labels[key].queue_position = position
    kept = [label for key, label in labels.items() if key not in set(plan.dropped)]
    TripleLabel.objects.bulk_update(kept, ["annotator", "queue_position"])


def next_label(user: User, campaign_id: int) -> TripleLabel | None:
    """The first unanswered triple of the user's queue in the campaign."""
    return (
        own_labels(user).filter(item__campaign_id=campaign_id, saved_at__isnull=True).order_by("queue_position").first()
    )


def checked_answer(supported: str, facts: str) -> tuple[bool, int]:
    """(supported, facts) of form values ("yes"/"no", 1 to MAX_FACTS); InvalidJudgement says what is wrong."""
    if supported not in ("yes", "no"):
        raise InvalidJudgement("Say whether the text supports the triple.")
    try:
        count = int(facts)
    except ValueError:
        count = 0
    if not 1 <= count <= MAX_FACTS:
        raise InvalidJudgement(f"Say how many facts the triple bundles: 1 to {MAX_FACTS}.")
    return supported == "yes", count


def previous_label(label: TripleLabel) -> TripleLabel | None:
    """The answered triple before ``label`` in its annotator's queue, to go back and correct it."""
    answered = TripleLabel.objects.filter(
        annotator_id=label.annotator_id, item__campaign_id=label.item.campaign_id, saved_at__isnull=False
    )
    return answered.filter(queue_position__lt=label.queue_position).order_by("-queue_position").first()


def skip_label(label: TripleLabel) -> None:
    """Move an unanswered triple to the end of its annotator's queue, to come back to it last."""
    if label.saved_at is not None:
        raise InvalidJudgement("This triple is labelled already: change the answer instead.")
    queue = TripleLabel.objects.filter(annotator_id=label.annotator_id, item__campaign_id=label.item.campaign_id)
    label.queue_position = (queue.aggregate(last=Max("queue_position"))["last"] or 0) + 1
    label.save(update_fields=["queue_position"])


def save_label(label: TripleLabel, supported: str, facts: str, seconds: str = "") -> None:
    """Store an answer given as form values ("yes"/"no", 1 to MAX_FACTS); InvalidJudgement says what is wrong."""
    answer, count = checked_answer(supported, facts)
    try:
        spent = min(max(float(seconds), 0.0), MAX_SECONDS) if seconds else 0.0
    except ValueError:
        spent = 0.0
    label.supported, label.facts, label.saved_at = answer, count, timezone.now()
    label.seconds_spent += spent
    label.save(update_fields=["supported", "facts", "saved_at", "seconds_spent"])


def annotator_triple_checks(user: User) -> QuerySet[TripleCheck]:
    """The open triple-check campaigns ``user`` labels in, with ``assigned`` and ``done`` counts."""
    own = Q(items__labels__annotator=user)
    return (
        TripleCheck.objects.filter(is_open=True, annotators=user, items__labels__annotator=user)
        .annotate(
            assigned=Count("items__labels", filter=own),
            done=Count("items__labels", filter=own & Q(items__labels__saved_at__isnull=False)),
        )
        .order_by("created_at", "pk")
    )
