"""Datasets, their texts and gold triples, systems, system outputs and uploads.

Triples are stored as JSON lists of ``[subject, relation, object]``; every list that reaches
the database has passed ``scoring.genres.triples.validate_triples`` (three non-empty strings).
"""

import hashlib
import logging
import secrets
import tempfile
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files import File
from django.core.validators import RegexValidator
from django.db import OperationalError, models
from django.urls import reverse
from django.utils import timezone

from scoring.genres.triples import validate_triples

logger = logging.getLogger(__name__)

NAME_PATTERN = r"^[\w][\w .+()-]*$"
name_validator = RegexValidator(
    NAME_PATTERN,
    "Use letters, digits, spaces and . + ( ) - _ only, starting with a letter or digit.",
)


def text_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def validate_triple_list(value: object) -> None:
    try:
        validate_triples(value)
    except ValueError as error:
        raise ValidationError(str(error)) from error


class CompleteManager(models.Manager[Any]):
    """The rows whose import has finished: an import writes a big dataset or a new system in
    batches (``scoring.import_batches``) with ``importing_at`` set, and every list, form, page and
    lookup that goes through ``objects`` sees it only once the import has cleared the mark."""

    def get_queryset(self) -> models.QuerySet[Any]:
        return super().get_queryset().filter(importing_at__isnull=True)


class Dataset(models.Model):
    class Level(models.TextChoices):
        SENTENCE = "sentence", "Sentence"
        BAG = "bag", "Bag of sentences"
        DOCUMENT = "document", "Document"

    class Domain(models.TextChoices):
        GENERAL = "general", "General"
        BIOMEDICAL = "biomedical", "Biomedical"
        OTHER = "other", "Other"

    name = models.CharField(max_length=100, unique=True, validators=[name_validator])
    level = models.CharField(max_length=20, choices=Level.choices, default=Level.SENTENCE)
    domain = models.CharField(max_length=20, choices=Domain.choices, default=Domain.GENERAL)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # While an import writes the dataset in batches: the time of its last batch (a heartbeat, by
    # which an abandoned import is recognised); null once the import is complete.
    importing_at = models.DateTimeField(null=True, blank=True, editable=False)

    with_importing = models.Manager()
    objects = CompleteManager()

    class Meta:
        ordering = ["name"]
        default_manager_name = "objects"

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("scoring:dataset", args=[self.name])


class Text(models.Model):
    """One source document of a dataset, with its gold triples (an empty list: no gold)."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="texts")
    position = models.PositiveIntegerField(help_text="Order of the text in the imported file.")
    external_id = models.CharField(max_length=200, blank=True)
    content = models.TextField()
    # Texts are unique per dataset; a hash keeps that index small on long documents.
    content_sha256 = models.CharField(max_length=64, editable=False)
    gold = models.JSONField(default=list, blank=True, validators=[validate_triple_list])

    class Meta:
        ordering = ["dataset", "position"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "content_sha256"], name="unique_text_per_dataset"),
            models.UniqueConstraint(fields=["dataset", "position"], name="unique_text_position"),
            models.UniqueConstraint(
                fields=["dataset", "external_id"],
                condition=~models.Q(external_id=""),
                name="unique_external_id_per_dataset",
            ),
        ]

    def __str__(self) -> str:
        return self.external_id or f"{self.dataset.name} #{self.position + 1}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.content_sha256 = text_hash(self.content)
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("scoring:text", args=[self.dataset.name, self.pk])

    @property
    def label(self) -> str:
        return self.external_id or f"#{self.position + 1}"


class System(models.Model):
    """A model or method whose outputs are evaluated. The gold triples are the system "Ground truth".

    Several runs of one model (different seeds) are each a system of their own, so every page,
    score and campaign treats a run like any system; ``replicate_group`` names the model they are
    runs of and ``seed`` labels the run, and the leaderboard shows the group's mean and spread.
    """

    GROUND_TRUTH = "Ground truth"

    name = models.CharField(max_length=100, unique=True, validators=[name_validator])
    family = models.CharField(max_length=100, blank=True, help_text='For example "GPT" or "LLaMA".')
    notes = models.TextField(blank=True)
    is_ground_truth = models.BooleanField(default=False, editable=False)
    replicate_group = models.CharField(
        max_length=100,
        blank=True,
        validators=[name_validator],
        help_text='The model this system is one run of, e.g. "gpt-4"; blank for a single run.',
    )
    seed = models.CharField(
        max_length=40, blank=True, validators=[name_validator], help_text="Labels the run in its group."
    )
    provenance = models.JSONField(
        null=True, blank=True, editable=False, help_text="What generated the outputs, for a system from an endpoint."
    )
    # While an import writes a new system's outputs in batches: the time of its last batch; null
    # once complete (as ``Dataset.importing_at``).
    importing_at = models.DateTimeField(null=True, blank=True, editable=False)

    with_importing = models.Manager()
    objects = CompleteManager()

    class Meta:
        ordering = ["-is_ground_truth", "name"]
        default_manager_name = "objects"
        constraints = [
            models.UniqueConstraint(
                fields=["is_ground_truth"], condition=models.Q(is_ground_truth=True), name="one_ground_truth"
            ),
            models.CheckConstraint(
                condition=models.Q(replicate_group="", seed="") | (~models.Q(replicate_group="") & ~models.Q(seed="")),
                name="replicate_group_and_seed_together",
                violation_error_message="A run of a replicate group needs both the group and a seed.",
            ),
            models.CheckConstraint(
                condition=models.Q(is_ground_truth=False) | models.Q(replicate_group=""),
                name="ground_truth_has_no_replicates",
                violation_error_message="The gold triples are not a run of a model.",
            ),
            models.UniqueConstraint(
                fields=["replicate_group", "seed"],
                condition=~models.Q(replicate_group=""),
                name="one_system_per_replicate_seed",
                violation_error_message="Another system is already this seed's run of the group.",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def join_replicates(self, group: str, seed: str) -> None:
        """Make this system the run ``seed`` of the replicate group ``group``; ValidationError when it
        cannot be (another system holds that seed, a name is not valid, the system is the gold)."""
        if (self.replicate_group, self.seed) == (group, seed):
            return
        self.replicate_group, self.seed = group, seed
        self.full_clean(exclude=["name", "family", "notes"])
        self.save(update_fields=["replicate_group", "seed"])

    @classmethod
    def ground_truth(cls) -> "System":
        system, _ = cls.objects.get_or_create(
            is_ground_truth=True,
            defaults={"name": cls.GROUND_TRUTH, "family": "Gold", "notes": "The gold triples of each dataset."},
        )
        return system


class Upload(models.Model):
    """A record of every import attempt, successful or not, for the upload page and audits."""

    class Kind(models.TextChoices):
        DATASET = "dataset", "Dataset"
        OUTPUTS = "outputs", "System outputs"

    class Outcome(models.TextChoices):
        IMPORTED = "imported", "Imported"
        UNCHANGED = "unchanged", "Unchanged (same file as before)"
        FAILED = "failed", "Failed"
        # A big file imported by an RQ job (scoring.import_jobs): queued, then running, then one of the above.
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Importing"

    IN_PROGRESS = (Outcome.QUEUED, Outcome.RUNNING)

    kind = models.CharField(max_length=20, choices=Kind.choices)
    dataset_name = models.CharField(max_length=100)
    system_name = models.CharField(max_length=100, blank=True)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    file_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField(default=0)
    format = models.CharField(max_length=20, blank=True)
    texts = models.PositiveIntegerField(default=0)
    triples = models.PositiveIntegerField(default=0)
    warnings = models.PositiveIntegerField(default=0)
    outcome = models.CharField(max_length=20, choices=Outcome.choices)
    message = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.file_name} ({self.get_outcome_display()})"

    @property
    def in_progress(self) -> bool:
        return self.outcome in self.IN_PROGRESS

    def save_running(self) -> None:
        """Save the upload as still running, before a staged import's batches, which refer to it."""
        self.outcome = self.Outcome.RUNNING
        self.save()

    def record_imported(self) -> None:
        """In a staged import's last transaction: the row says imported. The instance still says
        running, which a failure keeps (``scoring.imports.record_failure``)."""
        Upload.objects.filter(pk=self.pk).update(outcome=self.Outcome.IMPORTED)

    def keep_file(self, source: File) -> None:
        """Store ``source`` in the database, chunk by chunk, for the job that imports it."""
        source.seek(0)
        index = 0
        while data := source.read(UploadChunk.SIZE):
            UploadChunk.objects.create(upload=self, index=index, data=data)
            index += 1

    def kept_file(self) -> File:
        """The stored file, streamed from the database into a local temporary file (deleted
        when closed): the import reads a file twice, to hash it and to parse it."""
        local = tempfile.TemporaryFile()
        for data in self.chunks.order_by("index").values_list("data", flat=True).iterator(chunk_size=1):
            local.write(data)
        local.seek(0)
        return File(local, name=self.file_name)

    def forget_file(self) -> None:
        """Delete the stored file, once its import has ended one way or the other."""
        self.chunks.all().delete()


class UploadChunk(models.Model):
    """A piece of the file of a queued import, kept until its job has read it.

    In the database rather than on disk, so that a worker on any machine can read it: several
    machines share nothing but the database and Redis.
    """

    SIZE = 1024 * 1024

    upload = models.ForeignKey(Upload, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["upload", "index"], name="upload_chunk_unique_index")]

    def __str__(self) -> str:
        return f"chunk {self.index} of upload {self.upload_id}"


class OutputQuerySet(models.QuerySet["Output"]):
    def of_complete_systems(self) -> "OutputQuerySet":
        """Without the outputs of a new system an import is still writing (``System.importing_at``)."""
        return self.filter(system__importing_at__isnull=True)


class Output(models.Model):
    """One system's triples for one text, with the raw reply they were parsed from, if any."""

    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="outputs")
    text = models.ForeignKey(Text, on_delete=models.CASCADE, related_name="outputs")
    triples = models.JSONField(default=list, blank=True, validators=[validate_triple_list])
    raw = models.TextField(blank=True, help_text="The model's whole reply, when raw generations were uploaded.")
    parse_warnings = models.JSONField(default=list, blank=True)
    # The GENRES authors' files hold items with an empty or non-string element; a lenient import
    # drops them from ``triples`` but keeps them here, for the reference rules that count them.
    malformed = models.JSONField(default=list, blank=True, help_text="Items of the file that are not triples.")
    upload = models.ForeignKey(Upload, null=True, blank=True, on_delete=models.SET_NULL, related_name="outputs")
    updated_at = models.DateTimeField(auto_now=True)

    objects = OutputQuerySet.as_manager()
    # What the text page shows of it, attached by scoring.score_tables (not stored).
    score_cells: list[Any]
    verdicts: list[dict[str, Any]]

    class Meta:
        ordering = ["text__position", "system"]
        constraints = [models.UniqueConstraint(fields=["system", "text"], name="one_output_per_system_and_text")]

    def __str__(self) -> str:
        return f"{self.system} on {self.text}"


class ImportedVerdict(models.Model):
    """A judge's verdict on one triple of one system's output, produced elsewhere and imported
    under a source name (``import_verdicts``); runs with the recorded judge score with them."""

    ASPECTS = [("fs", "factualness"), ("gs", "granularity")]

    source = models.CharField(max_length=100, help_text="The name the verdicts were imported under.")
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="imported_verdicts")
    text = models.ForeignKey(Text, on_delete=models.CASCADE, related_name="imported_verdicts")
    aspect = models.CharField(max_length=2, choices=ASPECTS)
    triple = models.JSONField()
    triple_hash = models.CharField(max_length=64, help_text="SHA-256 of the triple as JSON: what is unique.")
    supported = models.BooleanField(null=True, help_text="fs: whether the judge found the triple supported.")
    reply = models.TextField(blank=True, help_text="gs: the judge's reply, whose bracketed sub-triples count.")
    sub_triples = models.PositiveIntegerField(null=True, blank=True, help_text="gs without a reply: the count.")
    occurrence = models.PositiveIntegerField(
        default=0,
        help_text="Which occurrence of the triple in the output the verdict is on, from 0: a triple given twice in "
        "one output was judged twice, and each occurrence keeps its own verdict.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source", "system", "text", "aspect", "triple_hash", "occurrence"],
                name="one_imported_verdict_per_occurrence",
            ),
            models.CheckConstraint(
                condition=models.Q(aspect="fs", supported__isnull=False)
                | models.Q(aspect="gs", supported__isnull=True),
                name="imported_verdict_fits_its_aspect",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.aspect} verdict from {self.source} on {self.system} / {self.text}"


# How precisely a token's last use is recorded (the admin's "last used" column).
LAST_USE_PRECISION = timedelta(minutes=1)


def api_key_hash(key: str) -> str:
    # Keys are 256-bit random strings, so a plain SHA-256 is enough: there is nothing to brute-force.
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class ApiToken(models.Model):
    """A key for the JSON import API. Only its SHA-256 is stored; the key is shown once, when issued."""

    PREFIX_LENGTH = 8

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, blank=True, help_text="What the token is for, e.g. the machine using it.")
    prefix = models.CharField(max_length=PREFIX_LENGTH, editable=False, help_text="First characters of the key.")
    key_sha256 = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = "API token"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    @classmethod
    def issue(cls, user: User, name: str = "") -> tuple["ApiToken", str]:
        """Create a token for ``user``; returns it with the key, which is not stored anywhere."""
        key = secrets.token_urlsafe(32)
        token = cls.objects.create(user=user, name=name, prefix=key[: cls.PREFIX_LENGTH], key_sha256=api_key_hash(key))
        return token, key

    @classmethod
    def user_for_key(cls, key: str) -> User | None:
        """The active user a key belongs to, or None; records when the token was last used."""
        token = cls.objects.select_related("user").filter(key_sha256=api_key_hash(key)).first()
        if token is None or not token.user.is_active:
            return None
        token.record_use()
        return token.user

    def record_use(self) -> None:
        """Note the token's use, at most once per LAST_USE_PRECISION, and never at the request's cost.

        A script polling an import's status calls many times a minute: each call writing would
        queue behind every other writer (an import, annotators' saves) for the one SQLite write
        lock. The write is bookkeeping, in autocommit outside any transaction of the request; when
        the database refuses it (locked, read-only), the request goes on and the next use tries again.
        """
        now = timezone.now()
        if self.last_used_at is not None and now - self.last_used_at < LAST_USE_PRECISION:
            return
        try:
            type(self).objects.filter(pk=self.pk).update(last_used_at=now)
        except OperationalError:
            logger.warning("API token %s: its last use was not recorded (database busy)", self.prefix, exc_info=True)
