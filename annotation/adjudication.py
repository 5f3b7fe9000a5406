"""Adjudication: the items annotators disagree on, staff's resolution of them, and the labels
ratings use when a campaign asks for adjudicated labels.

An item and aspect is a **disagreement** when two or more annotators judged it (attention
checks aside) and their labels differ. Its **margin** is how far apart they are, in the terms
of tie-discounted accuracy: 1 when some say A and others B (opposite sides), 0.5 when the
labels differ only by a tie. Every annotator's judgement is shown, a left-out one included:
the adjudicator decides what it is worth.
"""

from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Model
from django.utils import timezone

from annotation.models import ASPECTS, Aspect, Assignment, Campaign, Item, Judgement, Label, Resolution
from annotation.services.errors import AnnotationError
from annotation.services.judgements import judgements_saved

OPPOSITE_SIDES = 1.0
ONE_TIE = 0.5


class AdjudicationError(AnnotationError):
    pass


def margin(labels: list[str]) -> float:
    """How far apart the labels of one item and aspect are: 0 when they agree, 0.5 when they
    differ by a tie, 1 for opposite sides."""
    if Label.A in labels and Label.B in labels:
        return OPPOSITE_SIDES
    return ONE_TIE if len(set(labels)) > 1 else 0.0


@dataclass
class Disagreement:
    """One aspect of one item whose annotators disagree, with its resolution if it has one."""

    item_id: int
    text_label: str
    aspect: str
    labels: list[str]  # canonical, one per annotator, in the order they were saved
    resolution: Resolution | None = None

    @property
    def aspect_name(self) -> str:
        return Aspect(self.aspect).label

    @property
    def margin(self) -> float:
        return margin(self.labels)

    @property
    def counts(self) -> dict[str, int]:
        """How many annotators chose each label, every label listed."""
        return {label: self.labels.count(label) for label in Label.values}


def disagreements(campaign: Campaign, aspect: str | None = None, min_margin: float = ONE_TIE) -> list[Disagreement]:
    """The campaign's disagreements (module docstring) of ``aspect`` (all when None) with a margin
    of at least ``min_margin``, in text order, then aspect order."""
    judgements = Judgement.objects.filter(assignment__item__campaign=campaign, assignment__item__attention_worse="")
    if aspect is not None:
        judgements = judgements.filter(aspect=aspect)
    labels: dict[tuple[int, str], list[str]] = {}
    for item_id, code, label in judgements.order_by("pk").values_list("assignment__item_id", "aspect", "label"):
        labels.setdefault((item_id, code), []).append(label)
    disputed = {key: found for key, found in labels.items() if margin(found) >= min_margin}
    items = Item.objects.filter(pk__in={item_id for item_id, _ in disputed}).select_related("text")
    resolutions = {
        (resolution.item_id, resolution.aspect): resolution
        for resolution in Resolution.objects.filter(item__campaign=campaign).select_related("resolved_by")
    }
    return [
        Disagreement(item.pk, item.text.label, code, disputed[item.pk, code], resolutions.get((item.pk, code)))
        for item in items
        for code in ASPECTS
        if (item.pk, code) in disputed
    ]


@dataclass
class AnnotatorView:
    """One annotator's work on an item, as the adjudication page shows it."""

    assignment: Assignment  # with annotator
    excluded: bool
    labels: dict[str, str] = field(default_factory=dict)  # aspect -> canonical label


def item_judgements(item: Item) -> list[AnnotatorView]:
    """Every annotator who holds ``item``, with their labels, comment and time, in order of joining."""
    excluded = set(item.campaign.memberships.filter(excluded=True).values_list("annotator_id", flat=True))
    views = {
        assignment.pk: AnnotatorView(assignment, assignment.annotator_id in excluded)
        for assignment in item.assignments.select_related("annotator").order_by("pk")
    }
    for assignment_id, aspect, label in Judgement.objects.filter(assignment__item=item).values_list(
        "assignment_id", "aspect", "label"
    ):
        views[assignment_id].labels[aspect] = label
    return [view for view in views.values() if view.labels]


@transaction.atomic
def resolve(item: Item, aspect: str, label: str, note: str, resolved_by: User) -> Resolution:
    """Record (or change) staff's label for one aspect of ``item``, with the reason, who and when.

    Refused for an item and aspect that fewer than two annotators judged: there is nothing to
    settle. The leaderboards of the dataset are rebuilt, as after a save.
    """
    judged = Judgement.objects.filter(assignment__item=item, aspect=aspect).aggregate(count=Count("pk"))["count"]
    if judged < 2:
        raise AdjudicationError("Only an aspect that two or more annotators judged can be adjudicated.")
    resolution = Resolution.objects.filter(item=item, aspect=aspect).first() or Resolution(item=item, aspect=aspect)
    resolution.label, resolution.note = label, note.strip()
    resolution.resolved_by, resolution.resolved_at = resolved_by, timezone.now()
    save_gold_label(resolution, item.campaign.dataset_id)
    return resolution


def save_gold_label(record: Model, dataset_id: int) -> None:
    """Save staff's gold label ``record`` (refused with the model's reasons as an
    ``AdjudicationError``) and have the dataset's leaderboards rebuilt by a job, as after a judgement."""
    try:
        record.save()
    except ValidationError as error:
        raise AdjudicationError(" ".join(error.messages)) from error
    judgements_saved.send(sender=type(record), dataset_id=dataset_id)


@transaction.atomic
def set_rating_labels(campaign: Campaign, rating_labels: str) -> None:
    """Choose which labels the campaign's ratings use (``Campaign.RatingLabels``); leaderboards are rebuilt."""
    campaign.rating_labels = Campaign.RatingLabels(rating_labels)
    campaign.save(update_fields=["rating_labels"])
    judgements_saved.send(sender=Campaign, dataset_id=campaign.dataset_id)
