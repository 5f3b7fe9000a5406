"""Annotation campaigns: items (a text and a pair of systems), assignments and judgements.

Labels are always stored in canonical order: ``a`` means ``item.system_a`` is better, whatever
side the annotator saw it on. ``Assignment.a_on_left`` records the side, so a page can map the
annotator's "left"/"right" to canonical labels and back.
"""

import statistics
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Count, Exists, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse

from annotation.attention import MAX_ATTENTION_SHARE
from annotation.triple_checks.models import TripleCheck, TripleCheckItem, TripleLabel  # noqa: F401  (loaded with these)
from scoring.genres import aspects
from scoring.models import Dataset, System, Text, name_validator

# The five aspects humans judge, named by the vocabulary: Aspect.TS == "ts", labelled "Topical similarity".
# (The stubs know only the functional form without labels.)
Aspect = models.TextChoices(  # type: ignore[call-overload]
    "Aspect", [(aspect.code.upper(), (aspect.code, aspect.name)) for aspect in aspects.ASPECTS]
)


ASPECTS = [aspect.value for aspect in Aspect]
# Completeness is judged last: the gold triples it needs stay hidden until these four are saved.
FIRST_ASPECTS = [aspect for aspect in ASPECTS if aspect != Aspect.CS]


class Label(models.TextChoices):
    A = "a", "System A better"
    B = "b", "System B better"
    TIE = "tie", "Tie"


SHOWN_SIDES = ("left", "right", "tie")
MAX_COMMENT_CHARS = 2000


@dataclass(frozen=True)
class AnnotatorProgress:
    username: str
    active: bool
    excluded: bool  # left out of ratings and agreement (the quality page)
    done: int
    assigned: int
    median_seconds: float | None  # per finished item; None before the first one


class Campaign(models.Model):
    class PairOrder(models.TextChoices):
        QUEUE = "queue", "Queue order (every text's pairs in turn)"
        ADAPTIVE = "adaptive", "Least certain pairs first (adaptive)"

    class RatingLabels(models.TextChoices):
        MAJORITY = "majority", "Annotators' labels, merged"
        ADJUDICATED = "adjudicated", "Adjudicated labels where resolved"

    name = models.CharField(max_length=100, unique=True, validators=[name_validator])
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="campaigns")
    systems = models.ManyToManyField(System, related_name="campaigns")
    texts = models.ManyToManyField(Text, related_name="campaigns", help_text="The sampled texts.")
    sample_seed = models.IntegerField(default=0, help_text="Seeds text sampling and left/right sides.")
    overlap_share = models.FloatField(
        default=0.5,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Share of texts judged by two different annotators, for agreement.",
    )
    instructions = models.TextField(blank=True)
    pair_order = models.CharField(
        max_length=10,
        choices=PairOrder.choices,
        default=PairOrder.QUEUE,
        help_text="Adaptive: serve next the pairs whose order the judgements so far leave least certain.",
    )
    rating_labels = models.CharField(
        max_length=12,
        choices=RatingLabels.choices,
        default=RatingLabels.MAJORITY,
        help_text="Which label of an item judged more than once the ratings use.",
    )
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="CampaignAnnotator",
        through_fields=("campaign", "annotator"),
        related_name="annotation_campaigns",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    is_imported = models.BooleanField(default=False, help_text="Loaded from a CSV of a study run elsewhere.")
    is_open = models.BooleanField(default=True)
    practice_pass_mark = models.FloatField(
        default=0.8,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Share of the practice round's reference answers to match before real items are served.",
    )
    attention_share = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(0.0), MaxValueValidator(MAX_ATTENTION_SHARE)],
        help_text="Share of each annotator's queue made of attention checks (0 to 0.2).",
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(overlap_share__gte=0.0, overlap_share__lte=1.0),
                name="campaign_overlap_share_in_unit_interval",
            ),
            models.CheckConstraint(
                condition=models.Q(attention_share__gte=0.0, attention_share__lte=MAX_ATTENTION_SHARE),
                name="campaign_attention_share_at_most_a_fifth",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("annotation:campaign_detail", args=[self.pk])

    def active_annotator_ids(self) -> list[int]:
        return list(
            self.memberships.filter(active=True).order_by("added_at", "pk").values_list("annotator_id", flat=True)
        )

    def annotator_progress(self) -> list[AnnotatorProgress]:
        """Progress of every annotator who joined, in order of joining."""
        seconds_done: dict[int, list[float]] = {}
        assigned: dict[int, int] = {}
        for annotator_id, status, seconds in Assignment.objects.filter(item__campaign=self).values_list(
            "annotator_id", "status", "seconds_spent"
        ):
            assigned[annotator_id] = assigned.get(annotator_id, 0) + 1
            if status == Assignment.Status.DONE:
                seconds_done.setdefault(annotator_id, []).append(seconds)
        return [
            AnnotatorProgress(
                username=membership.annotator.get_username(),
                active=membership.active,
                excluded=membership.excluded,
                done=len(seconds_done.get(membership.annotator_id, [])),
                assigned=assigned.get(membership.annotator_id, 0),
                median_seconds=statistics.median(seconds_done[membership.annotator_id])
                if membership.annotator_id in seconds_done
                else None,
            )
            for membership in self.memberships.select_related("annotator")
        ]

    def doubly_judged_texts(self) -> int:
        """How many texts two or more annotators hold work on: the overlap, as it stands."""
        return (
            self.items.values("text_id")
            .annotate(annotators=models.Count("assignments__annotator", distinct=True))
            .filter(annotators__gte=2)
            .count()
        )


class CampaignAnnotator(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaign_memberships"
    )
    # Removing an annotator deactivates the membership: their finished judgements stay and count.
    active = models.BooleanField(default=True)
    added_at = models.DateTimeField(auto_now_add=True)
    # The practice round: the attempt under way (answers of earlier attempts are kept) and when
    # an attempt reached the pass mark, after which real items are served.
    practice_attempt = models.PositiveIntegerField(default=1)
    practice_passed_at = models.DateTimeField(null=True, blank=True)
    # Left out of ratings and agreement by a researcher (the quality view): who and when changed it last.
    excluded = models.BooleanField(default=False)
    exclusion_changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    exclusion_changed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["added_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["campaign", "annotator"], name="one_membership_per_annotator")]

    def __str__(self) -> str:
        return f"{self.annotator} in {self.campaign}"


class Item(models.Model):
    """One text and one pair of systems, in canonical order (``system_a.pk < system_b.pk``).

    An attention check compares one system's output with a copy of it made clearly worse
    (``annotation.attention``): ``system_a`` and ``system_b`` are that system, ``attention_worse``
    says which canonical side shows ``attention_triples`` instead, and ``attention_aspect`` the
    aspect on which the other side must win. It is made for one annotator, never rated.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="items")
    text = models.ForeignKey(Text, on_delete=models.PROTECT, related_name="annotation_items")
    system_a = models.ForeignKey(System, on_delete=models.PROTECT, related_name="+")
    system_b = models.ForeignKey(System, on_delete=models.PROTECT, related_name="+")
    attention_worse = models.CharField(
        max_length=1, blank=True, default="", choices=[(Label.A, "System A side"), (Label.B, "System B side")]
    )
    attention_aspect = models.CharField(max_length=2, blank=True, default="", choices=Aspect.choices)
    attention_triples = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["campaign", "text__position", "system_a", "system_b", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "text", "system_a", "system_b"],
                condition=models.Q(attention_worse=""),
                name="one_item_per_text_and_pair",
            ),
            models.CheckConstraint(
                condition=models.Q(system_a__lt=models.F("system_b"), attention_worse="")
                | models.Q(system_a=models.F("system_b"), attention_worse__in=[Label.A, Label.B]),
                name="item_systems_in_canonical_order",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.text} · {self.system_a} vs {self.system_b}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.clean()
        super().save(*args, **kwargs)

    @property
    def is_attention_check(self) -> bool:
        return bool(self.attention_worse)

    @property
    def attention_expected(self) -> str:
        """The canonical label that passes the check: the side left as it was."""
        return Label.B if self.attention_worse == Label.A else Label.A

    @staticmethod
    def canonical_pair(first: System, second: System) -> tuple[System, System, bool]:
        """Return ``(system_a, system_b, swapped)`` for two distinct systems given in any order."""
        if first.pk == second.pk:
            raise ValueError(f"An item compares two different systems, not {first} with itself.")
        if first.pk < second.pk:
            return first, second, False
        return second, first, True

    def clean(self) -> None:
        if self.system_a_id is None or self.system_b_id is None:
            return
        if self.is_attention_check:
            if self.system_a_id != self.system_b_id:
                raise ValidationError("An attention check shows one system's output and a worse copy of it.")
            return
        if self.system_a_id == self.system_b_id:
            raise ValidationError("An item compares two different systems.")
        if self.system_a_id > self.system_b_id:
            raise ValidationError("system_a must be the system with the smaller id (canonical order).")


def aspects_judged(aspects: Sequence[str] = ASPECTS) -> Coalesce:
    """How many of ``aspects`` the outer assignment has judgements for, as a subquery (on the (assignment, aspect) index)."""
    judged = Judgement.objects.filter(assignment_id=OuterRef("pk"), aspect__in=aspects).order_by()
    return Coalesce(Subquery(judged.values("assignment_id").annotate(count=Count("pk")).values("count")), 0)


def first_aspects_judged() -> Coalesce:
    """How many of the four first aspects the outer assignment has judgements for, as a subquery."""
    return aspects_judged(FIRST_ASPECTS)


def _same_annotator_and_text(**campaign: Any) -> "AssignmentQuerySet":
    return Assignment.objects.filter(
        annotator_id=OuterRef("annotator_id"), item__text_id=OuterRef("item__text_id"), **campaign
    )


def _gold_shown_elsewhere() -> Exists:
    """Whether the outer assignment's annotator was shown its text's gold in another campaign, as a
    subquery: there, a completeness judgement exists or none of their pairs of the text lacks a
    first aspect (``annotation.services.queues.TextProgress.gold_seen``)."""
    lacking_there = (
        _same_annotator_and_text(item__campaign_id=OuterRef("item__campaign_id"))
        .alias(first_judged=first_aspects_judged())
        .filter(first_judged__lt=len(FIRST_ASPECTS))
    )
    shown_there = (
        _same_annotator_and_text(item__campaign__is_imported=False)
        .exclude(item__campaign_id=OuterRef("item__campaign_id"))
        .filter(Q(judgements__aspect=Aspect.CS) | ~Exists(lacking_there))
    )
    return Exists(shown_there)


def _member_elsewhere() -> Exists:
    """Whether the outer assignment's annotator joined another campaign (holding a pair there implies
    it: a membership is kept, inactive, when they leave), as a subquery of a few rows: the cheap test."""
    others = CampaignAnnotator.objects.filter(annotator_id=OuterRef("annotator_id"), campaign__is_imported=False)
    return Exists(others.exclude(campaign_id=OuterRef("item__campaign_id")))


@cache
def _withholding() -> dict[str, Any]:
    """What ``not_withheld`` tests, built once: building costs more CPU than running (a query copies them)."""
    return {
        "member_elsewhere": _member_elsewhere(),
        "first_four_judged": first_aspects_judged(),
        "gold_shown_elsewhere": _gold_shown_elsewhere(),
    }


class AssignmentQuerySet(models.QuerySet["Assignment"]):
    def not_withheld(self) -> "AssignmentQuerySet":
        """Leave out the pairs withheld from their annotator: those still lacking one of the four
        first aspects of a text whose gold the annotator was shown in another campaign. Judged now,
        they would be judged knowing the reference and, with Ground truth, which side it is."""
        return self.alias(**_withholding()).exclude(
            Q(member_elsewhere=True) & Q(first_four_judged__lt=len(FIRST_ASPECTS)) & Q(gold_shown_elsewhere=True)
        )


class Assignment(models.Model):
    """An item in one annotator's queue, with the side system A was shown on."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DONE = "done", "Done"

    # The only identifier that reaches annotator pages and URLs: it says nothing about the systems.
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="annotation_assignments"
    )
    # Imported studies did not record sides: their assignments hold True and exports leave sides blank.
    a_on_left = models.BooleanField()
    queue_position = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    seconds_spent = models.FloatField(default=0.0)
    comment = models.TextField(blank=True, max_length=MAX_COMMENT_CHARS)
    # Bumped on every save of judgements: a second browser tab holding an older version is refused.
    version = models.PositiveIntegerField(default=0)

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        ordering = ["annotator", "queue_position", "pk"]
        constraints = [models.UniqueConstraint(fields=["item", "annotator"], name="one_assignment_per_annotator")]
        indexes = [models.Index(fields=["annotator", "status", "queue_position"])]

    def __str__(self) -> str:
        return f"{self.item} for {self.annotator}"

    def shown_to_canonical(self, side: str) -> str:
        """Map what the annotator clicked ("left", "right" or "tie") to a canonical label."""
        if side == "tie":
            return Label.TIE
        if side == "left":
            return Label.A if self.a_on_left else Label.B
        if side == "right":
            return Label.B if self.a_on_left else Label.A
        raise ValueError(f"Unknown side {side!r}: expected one of {', '.join(SHOWN_SIDES)}.")

    def canonical_to_shown(self, label: str) -> str:
        """Map a canonical label ("a", "b" or "tie") to the side the annotator saw."""
        if label == Label.TIE:
            return "tie"
        if label == Label.A:
            return "left" if self.a_on_left else "right"
        if label == Label.B:
            return "right" if self.a_on_left else "left"
        raise ValueError(f"Unknown label {label!r}: expected one of {', '.join(Label.values)}.")

    @property
    def judged_aspects(self) -> set[str]:
        return {judgement.aspect for judgement in self.judgements.all()}

    @property
    def first_aspects_done(self) -> bool:
        return set(FIRST_ASPECTS) <= self.judged_aspects

    @property
    def is_done(self) -> bool:
        return set(ASPECTS) <= self.judged_aspects


class Judgement(models.Model):
    """One annotator's verdict on one aspect of one item. Primary-key order is the import order."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="judgements")
    aspect = models.CharField(max_length=2, choices=Aspect.choices)
    label = models.CharField(max_length=3, choices=Label.choices)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "aspect"], name="one_judgement_per_aspect"),
            models.CheckConstraint(condition=models.Q(aspect__in=ASPECTS), name="judgement_aspect_known"),
            models.CheckConstraint(condition=models.Q(label__in=Label.values), name="judgement_label_known"),
        ]

    def __str__(self) -> str:
        return f"{self.get_aspect_display()}: {self.get_label_display()}"


class PracticeItem(models.Model):
    """A practice pair: a text, two extractions shown as A (left) and B (right), the reference
    answers of some aspects ("a", "b" or "tie") and why. Never rated."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="practice_items")
    position = models.PositiveIntegerField()
    text = models.TextField()
    triples_a = models.JSONField()
    triples_b = models.JSONField()
    reference = models.JSONField(help_text='Aspect code -> "a", "b" or "tie".')
    reason = models.TextField()

    class Meta:
        ordering = ["campaign", "position"]
        constraints = [models.UniqueConstraint(fields=["campaign", "position"], name="one_practice_item_per_position")]

    def __str__(self) -> str:
        return f"Practice item {self.position + 1} of {self.campaign}"


class PracticeAnswer(models.Model):
    """An annotator's answers to one practice item in one attempt, and how many matched the reference."""

    membership = models.ForeignKey(CampaignAnnotator, on_delete=models.CASCADE, related_name="practice_answers")
    item = models.ForeignKey(PracticeItem, on_delete=models.CASCADE, related_name="answers")
    attempt = models.PositiveIntegerField()
    answers = models.JSONField(help_text='Aspect code -> "a", "b" or "tie".')
    correct = models.PositiveIntegerField()
    total = models.PositiveIntegerField()
    answered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["membership", "attempt", "item__position"]
        constraints = [
            models.UniqueConstraint(fields=["membership", "item", "attempt"], name="one_practice_answer_per_attempt")
        ]

    def __str__(self) -> str:
        return f"{self.membership} · {self.item} · attempt {self.attempt}"


MAX_RESOLUTION_NOTE_CHARS = 2000


class Resolution(models.Model):
    """Staff's settled label for one aspect of an item the annotators disagree on: the choice, the
    reason, who settled it and when. Ratings use it when the campaign asks for adjudicated labels
    (``Campaign.rating_labels``); exports carry it on every row of the item and aspect."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="resolutions")
    aspect = models.CharField(max_length=2, choices=Aspect.choices)
    label = models.CharField(max_length=3, choices=Label.choices)
    note = models.TextField(blank=True, max_length=MAX_RESOLUTION_NOTE_CHARS)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="annotation_resolutions"
    )
    resolved_at = models.DateTimeField()

    class Meta:
        ordering = ["item", "aspect"]
        constraints = [
            models.UniqueConstraint(fields=["item", "aspect"], name="one_resolution_per_item_aspect"),
            models.CheckConstraint(condition=models.Q(aspect__in=ASPECTS), name="resolution_aspect_known"),
            models.CheckConstraint(condition=models.Q(label__in=Label.values), name="resolution_label_known"),
        ]

    def __str__(self) -> str:
        return f"{self.item} · {self.get_aspect_display()}: {self.get_label_display()}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.full_clean(validate_unique=False, validate_constraints=False)
        super().save(*args, **kwargs)

    def clean(self) -> None:
        # An attention check has a known answer and is never rated: there is nothing to settle.
        if self.item_id is not None and self.item.is_attention_check:
            raise ValidationError("An attention check has a known answer: it is not adjudicated.")
        if len(self.note) > MAX_RESOLUTION_NOTE_CHARS:
            raise ValidationError(f"The note is at most {MAX_RESOLUTION_NOTE_CHARS:,} characters.")
