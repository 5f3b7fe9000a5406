"""Annotation campaigns: items (a text and a pair of systems), assignments and judgements.

Labels are always stored in canonical order: ``a`` means ``item.system_a`` is better, whatever
side the annotator saw it on. ``Assignment.a_on_left`` records the side, so a page can map the
annotator's "left"/"right" to canonical labels and back.
"""

import statistics
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse

from scoring.genres import aspects
from scoring.models import Dataset, System, Text, name_validator

# The five aspects humans judge, named by the vocabulary: Aspect.TS == "ts", labelled "Topical similarity".
Aspect = models.TextChoices("Aspect", [(aspect.code.upper(), (aspect.code, aspect.name)) for aspect in aspects.ASPECTS])


ASPECTS = [aspect.value for aspect in Aspect]
# Completeness is judged last: the gold triples it needs stay hidden until these four are saved.
FIRST_ASPECTS = [aspect for aspect in ASPECTS if aspect != Aspect.CS]


class Label(models.TextChoices):
    A = "a", "System A better"
    B = "b", "System B better"
    TIE = "tie", "Tie"


SHOWN_SIDES = ("left", "right", "tie")


@dataclass(frozen=True)
class AnnotatorProgress:
    username: str
    active: bool
    done: int
    assigned: int
    median_seconds: float | None  # per finished item; None before the first one


class Campaign(models.Model):
    class PairOrder(models.TextChoices):
        QUEUE = "queue", "Queue order (every text's pairs in turn)"
        ADAPTIVE = "adaptive", "Least certain pairs first (adaptive)"

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
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="CampaignAnnotator", related_name="annotation_campaigns"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    is_imported = models.BooleanField(default=False, help_text="Loaded from a CSV of a study run elsewhere.")
    is_open = models.BooleanField(default=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(overlap_share__gte=0.0, overlap_share__lte=1.0),
                name="campaign_overlap_share_in_unit_interval",
            )
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("annotation:campaign_detail", args=[self.pk])

    def active_annotator_ids(self):
        return list(
            self.memberships.filter(active=True).order_by("added_at", "pk").values_list("annotator_id", flat=True)
        )

    def annotator_progress(self):
        """Progress of every annotator who joined, in order of joining."""
        seconds_done = {}
        assigned = {}
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
                done=len(seconds_done.get(membership.annotator_id, [])),
                assigned=assigned.get(membership.annotator_id, 0),
                median_seconds=statistics.median(seconds_done[membership.annotator_id])
                if membership.annotator_id in seconds_done
                else None,
            )
            for membership in self.memberships.select_related("annotator")
        ]

    def doubly_judged_texts(self):
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

    class Meta:
        ordering = ["added_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "annotator"], name="one_membership_per_annotator")
        ]

    def __str__(self):
        return f"{self.annotator} in {self.campaign}"


class Item(models.Model):
    """One text and one pair of systems, in canonical order (``system_a.pk < system_b.pk``)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="items")
    text = models.ForeignKey(Text, on_delete=models.PROTECT, related_name="annotation_items")
    system_a = models.ForeignKey(System, on_delete=models.PROTECT, related_name="+")
    system_b = models.ForeignKey(System, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["campaign", "text__position", "system_a", "system_b"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "text", "system_a", "system_b"], name="one_item_per_text_and_pair"
            ),
            models.CheckConstraint(
                condition=models.Q(system_a__lt=models.F("system_b")), name="item_systems_in_canonical_order"
            ),
        ]

    def __str__(self):
        return f"{self.text} · {self.system_a} vs {self.system_b}"

    def save(self, *args, **kwargs):
        self.clean()
        super().save(*args, **kwargs)

    @staticmethod
    def canonical_pair(first, second):
        """Return ``(system_a, system_b, swapped)`` for two distinct systems given in any order."""
        if first.pk == second.pk:
            raise ValueError(f"An item compares two different systems, not {first} with itself.")
        if first.pk < second.pk:
            return first, second, False
        return second, first, True

    def clean(self):
        if self.system_a_id is None or self.system_b_id is None:
            return
        if self.system_a_id == self.system_b_id:
            raise ValidationError("An item compares two different systems.")
        if self.system_a_id > self.system_b_id:
            raise ValidationError("system_a must be the system with the smaller id (canonical order).")


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
    # Bumped on every save of judgements: a second browser tab holding an older version is refused.
    version = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["annotator", "queue_position", "pk"]
        constraints = [models.UniqueConstraint(fields=["item", "annotator"], name="one_assignment_per_annotator")]
        indexes = [models.Index(fields=["annotator", "status", "queue_position"])]

    def __str__(self):
        return f"{self.item} for {self.annotator}"

    def shown_to_canonical(self, side):
        """Map what the annotator clicked ("left", "right" or "tie") to a canonical label."""
        if side == "tie":
            return Label.TIE
        if side == "left":
            return Label.A if self.a_on_left else Label.B
        if side == "right":
            return Label.B if self.a_on_left else Label.A
        raise ValueError(f"Unknown side {side!r}: expected one of {', '.join(SHOWN_SIDES)}.")

    def canonical_to_shown(self, label):
        """Map a canonical label ("a", "b" or "tie") to the side the annotator saw."""
        if label == Label.TIE:
            return "tie"
        if label == Label.A:
            return "left" if self.a_on_left else "right"
        if label == Label.B:
            return "right" if self.a_on_left else "left"
        raise ValueError(f"Unknown label {label!r}: expected one of {', '.join(Label.values)}.")

    @property
    def judged_aspects(self):
        return {judgement.aspect for judgement in self.judgements.all()}

    @property
    def first_aspects_done(self):
        return set(FIRST_ASPECTS) <= self.judged_aspects

    @property
    def is_done(self):
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

    def __str__(self):
        return f"{self.get_aspect_display()}: {self.get_label_display()}"
