"""Triple-check campaigns: sampled triples (``TripleCheckItem``) and each annotator's answer on
one of them (``TripleLabel``, also the queue entry). Loaded with ``annotation.models``.

An item keeps a copy of its triple and the text it came from, so a later upload of the output
does not change what was labelled; its output (hence its system) is for staff's statistics only
and never reaches an annotator's page, which addresses a label by its random ``public_id``.
"""

import uuid
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse

from annotation.attention import MAX_ATTENTION_SHARE
from annotation.triple_checks.statistics import FACT_COUNTS
from scoring.models import Dataset, Output, System, Text, name_validator

MAX_FACTS = FACT_COUNTS[-1]


class TripleCheck(models.Model):
    name = models.CharField(max_length=100, unique=True, validators=[name_validator])
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="triple_checks")
    systems = models.ManyToManyField(System, related_name="triple_checks")
    judge_setting = models.CharField(
        max_length=64, blank=True, help_text="The scoring setting whose factualness verdicts stratify the sample."
    )
    per_stratum = models.PositiveIntegerField(
        default=10, validators=[MinValueValidator(1)], help_text="Triples sampled per system and verdict."
    )
    sample_seed = models.IntegerField(default=0, help_text="Seeds the sample and the queues.")
    overlap_share = models.FloatField(
        default=0.5,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Share of texts whose triples two annotators label, for agreement.",
    )
    attention_share = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(0.0), MaxValueValidator(MAX_ATTENTION_SHARE)],
        help_text="Attention checks planted among the triples, as a share of the sample (0 to 0.2).",
    )
    practice_pass_mark = models.FloatField(
        default=0.8,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Share of the practice round's reference answers to match before real triples are served.",
    )
    annotators = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="triple_checks")
    is_open = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(overlap_share__gte=0.0, overlap_share__lte=1.0),
                name="triple_check_overlap_share_in_unit_interval",
            ),
            models.CheckConstraint(
                condition=models.Q(attention_share__gte=0.0, attention_share__lte=MAX_ATTENTION_SHARE),
                name="triple_check_attention_share_at_most_a_fifth",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("annotation:triple_check", args=[self.pk])


class TripleCheckItem(models.Model):
    """One sampled triple: which output and position it is, and its sampling weight; or an
    attention check, a triple of another text planted on the output's text (``attention``),
    which the text cannot support, shown like any other and left out of every statistic."""

    campaign = models.ForeignKey(TripleCheck, on_delete=models.CASCADE, related_name="items")
    output = models.ForeignKey(Output, on_delete=models.CASCADE, related_name="+")
    text = models.ForeignKey(Text, on_delete=models.CASCADE, related_name="+")
    index = models.PositiveIntegerField(help_text="Position of the triple in the output.")
    triple = models.JSONField(help_text="The triple as sampled.")
    weight = models.FloatField(default=1.0, help_text="Triples of its stratum per sampled triple of it.")
    stratum_supported = models.BooleanField(null=True, help_text="The stratifying judge's verdict.")
    attention = models.BooleanField(default=False, help_text="A planted triple the text does not support.")

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "output", "index"],
                condition=models.Q(attention=False),
                name="one_item_per_sampled_triple",
            )
        ]

    def __str__(self) -> str:
        return f"triple {self.index} of output {self.output_id} in {self.campaign}"


class TripleAdjudication(models.Model):
    """Staff's gold label for a sampled triple (supported or not, and the fact count), who settled
    it and when: the gold label wherever one is read (``queries.gold_labels``), in place of the
    annotators' majority. One per triple, hence one per triple and campaign; never on an attention
    check, whose answer is known."""

    item = models.OneToOneField(TripleCheckItem, on_delete=models.CASCADE, related_name="adjudication")
    supported = models.BooleanField()
    facts = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(MAX_FACTS)])
    adjudicated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="triple_adjudications"
    )
    adjudicated_at = models.DateTimeField()

    class Meta:
        ordering = ["item"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(facts__gte=1, facts__lte=MAX_FACTS), name="triple_adjudication_facts_on_the_scale"
            )
        ]

    def __str__(self) -> str:
        return f"{self.item}: {'supported' if self.supported else 'not supported'}, {self.facts} fact(s)"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.full_clean(validate_unique=False, validate_constraints=False)
        super().save(*args, **kwargs)

    def clean(self) -> None:
        if self.item_id is not None and self.item.attention:
            raise ValidationError("An attention check has a known answer: it is not adjudicated.")


class TripleLabelQuerySet(models.QuerySet["TripleLabel"]):
    def answered(self) -> "TripleLabelQuerySet":
        return self.filter(saved_at__isnull=False)


class TripleLabel(models.Model):
    """One annotator's answer on one sampled triple; empty until saved."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    item = models.ForeignKey(TripleCheckItem, on_delete=models.CASCADE, related_name="labels")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="triple_labels")
    queue_position = models.PositiveIntegerField(default=0)
    supported = models.BooleanField(null=True)
    facts = models.PositiveSmallIntegerField(null=True, validators=[MinValueValidator(1), MaxValueValidator(MAX_FACTS)])
    seconds_spent = models.FloatField(default=0.0)
    saved_at = models.DateTimeField(null=True, blank=True)

    objects = TripleLabelQuerySet.as_manager()

    class Meta:
        ordering = ["annotator", "queue_position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="one_triple_label_per_annotator"),
            models.CheckConstraint(
                condition=models.Q(facts__isnull=True) | models.Q(facts__gte=1, facts__lte=MAX_FACTS),
                name="triple_label_facts_on_the_scale",
            ),
            models.CheckConstraint(
                condition=models.Q(saved_at__isnull=True) | models.Q(supported__isnull=False, facts__isnull=False),
                name="saved_triple_label_is_complete",
            ),
        ]
        indexes = [models.Index(fields=["annotator", "saved_at", "queue_position"])]

    def __str__(self) -> str:
        return f"{self.item} for {self.annotator}"


class TriplePracticeItem(models.Model):
    """A practice triple with its reference answers and the reason for them, shown after answering."""

    campaign = models.ForeignKey(TripleCheck, on_delete=models.CASCADE, related_name="practice_items")
    position = models.PositiveIntegerField()
    text = models.TextField()
    triple = models.JSONField()
    supported = models.BooleanField()
    facts = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(MAX_FACTS)])
    reason = models.TextField()

    class Meta:
        ordering = ["campaign", "position"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "position"], name="one_triple_practice_item_per_position")
        ]

    def __str__(self) -> str:
        return f"practice triple {self.position + 1} of {self.campaign}"


class TriplePracticeAnswer(models.Model):
    """An annotator's answer to a practice triple in their current attempt (a retake deletes them)."""

    item = models.ForeignKey(TriplePracticeItem, on_delete=models.CASCADE, related_name="answers")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    supported = models.BooleanField()
    facts = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(MAX_FACTS)])
    answered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="one_triple_practice_answer_per_annotator")
        ]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.item}"
