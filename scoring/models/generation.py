"""Generation runs: systems made by asking a model behind an OpenAI-compatible endpoint.

A run asks one model, with one stored prompt template and one set of settings, for the triples
of every text of a dataset, once per seed. It is chunked like a scoring run (``chunked``): each
chunk asks for its texts under every seed and commits the raw replies (``GenerationReply``) with
its "done". When the last chunk commits, the replies are parsed into one system per seed
(``scoring.generation_jobs.parse_run``), each a replicate of the run's group, and can be parsed
again later from the stored replies without asking the model.
"""

from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib.auth.models import User
from django.db import models, transaction
from django.urls import reverse
from django.utils import timezone

from scoring.genres.generation import (
    API_CHOICES,
    DEFAULT_TEMPLATE_NAME,
    DEFAULT_TEMPLATE_TEXT,
    GenerationSettings,
    check_template,
    group_name,
    system_names,
)
from scoring.models.catalogue import Dataset, System, Text
from scoring.models.chunked import DEFAULT_CHUNK_TEXTS, Chunk, ChunkedRun
from scoring.models.runs import RunRefused, ScoringRun

MAX_SEEDS = 20


class GenerationTemplate(models.Model):
    """A prompt template for generation, stored and versioned: a change is a new version, never an edit."""

    name = models.CharField(max_length=100)
    version = models.PositiveIntegerField()
    text = models.TextField(help_text="The whole prompt; $TEXT$ stands for the text.")
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [models.UniqueConstraint(fields=["name", "version"], name="one_generation_template_version")]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"

    @classmethod
    def default(cls) -> "GenerationTemplate":
        template, _ = cls.objects.get_or_create(
            name=DEFAULT_TEMPLATE_NAME, version=1, defaults={"text": DEFAULT_TEMPLATE_TEXT}
        )
        return template

    @classmethod
    @transaction.atomic
    def save_version(cls, name: str, text: str, user: User | None = None) -> "GenerationTemplate":
        """The template ``name`` with this text: its latest version if the text is the same, else a new one."""
        check_template(text)
        latest = cls.objects.select_for_update().filter(name=name).order_by("-version").first()
        if latest and latest.text == text.strip():
            return latest
        return cls.objects.create(
            name=name, version=latest.version + 1 if latest else 1, text=text.strip(), created_by=user
        )


class GenerationRun(ChunkedRun):
    CHUNK_JOB = "scoring.generation_jobs.generate_chunk"
    JOB_PREFIX = "genres-generation"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="generation_runs")
    template = models.ForeignKey(GenerationTemplate, on_delete=models.PROTECT, related_name="runs")
    base_url = models.CharField(max_length=500, help_text="The endpoint; its key is never stored.")
    model = models.CharField(max_length=200)
    api = models.CharField(max_length=20, choices=[(api, api) for api in API_CHOICES])
    temperature = models.FloatField(default=0.0)
    max_tokens = models.PositiveIntegerField(default=512)
    seeds = models.JSONField(help_text="One system per seed.")
    group = models.CharField(max_length=100, help_text="The replicate group of the run's systems.")
    score_when_done = models.BooleanField(default=False)
    systems = models.ManyToManyField(System, blank=True, related_name="generation_runs")
    parsed_at = models.DateTimeField(null=True, blank=True)
    scoring_run = models.ForeignKey(
        ScoringRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="Scored when done."
    )

    class Meta(ChunkedRun.Meta):
        pass

    def __str__(self) -> str:
        return f"Generation run {self.pk} of {self.model} on {self.dataset}"

    def get_absolute_url(self) -> str:
        return reverse("scoring:generation", args=[self.pk])

    @classmethod
    @transaction.atomic
    def create(
        cls,
        dataset: Dataset,
        settings: GenerationSettings,
        seeds: Sequence[int],
        template: GenerationTemplate | None = None,
        group: str = "",
        user: User | None = None,
        chunk_texts: int = DEFAULT_CHUNK_TEXTS,
        score_when_done: bool = False,
    ) -> "GenerationRun":
        """A queued run with its chunks; RunRefused names what is wrong with the request."""
        seeds = sorted(set(seeds))
        if not seeds or len(seeds) > MAX_SEEDS:
            raise RunRefused(f"choose between 1 and {MAX_SEEDS} seeds")
        if chunk_texts < 1:
            raise RunRefused(f"a chunk needs at least one text, not {chunk_texts}")
        try:
            settings.check()
            group = group_name(group or settings.model)
        except ValueError as error:
            raise RunRefused(str(error)) from None
        names = [name for name, _seed in system_names(group, seeds).values()]
        labels = [label for _name, label in system_names(group, seeds).values()]
        taken = sorted(
            System.with_importing.filter(
                models.Q(name__in=names) | models.Q(replicate_group=group, seed__in=labels)
            ).values_list("name", flat=True)
        )
        if taken:
            raise RunRefused(f"system(s) {', '.join(taken)} exist already: choose another group name")
        text_ids = list(dataset.texts.order_by("position").values_list("pk", flat=True))
        if not text_ids:
            raise RunRefused(f'dataset "{dataset.name}" has no texts')
        template = template or GenerationTemplate.default()
        run = cls.objects.create(
            dataset=dataset,
            template=template,
            base_url=settings.base_url,
            model=settings.model,
            api=settings.api,
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            seeds=seeds,
            group=group,
            score_when_done=score_when_done,
            chunk_texts=chunk_texts,
            created_by=user,
            fingerprint=settings.fingerprint(template.text),
        )
        GenerationChunk.objects.bulk_create(
            GenerationChunk(run=run, index=number, text_ids=text_ids[start : start + chunk_texts])
            for number, start in enumerate(range(0, len(text_ids), chunk_texts))
        )
        return run

    def settings_object(self) -> GenerationSettings:
        return GenerationSettings(
            base_url=self.base_url,
            model=self.model,
            api=self.api,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
        )

    def system_name(self, seed: int) -> tuple[str, str]:
        """(system name, replicate seed label) of the system made with ``seed``."""
        return system_names(self.group, [seed])[seed]

    def provenance(self, seed: int | None = None) -> dict[str, Any]:
        """What produced the run's systems (one seed's, with ``seed``): never the endpoint's key."""
        described = {
            "generation_run": self.pk,
            **self.settings_object().described(),
            "template": {"name": self.template.name, "version": self.template.version},
            "seeds": self.seeds,
            "created_at": self.created_at.isoformat() if self.created_at else None,
            "finished_at": self.finished_at.isoformat() if self.finished_at else None,
        }
        if seed is not None:
            del described["seeds"]
            described["seed"] = seed
        return described

    @transaction.atomic
    def finish_if_complete(self) -> bool:
        """Mark the run done once every chunk is; True for the one caller that did (it then parses)."""
        finished = self.mark_done()
        self.refresh_from_db()
        return finished

    def progress_state(self) -> dict[str, Any]:
        """The run page's state: the chunks' counters, and the systems once the replies are parsed."""
        state, _totals = self.chunk_progress()
        systems = [
            {"name": system.name, "outputs": system.outputs.filter(text__dataset_id=self.dataset_id).count()}
            for system in self.systems.order_by("name")
        ]
        unparsed = self.replies.exclude(problem="").count()
        return {**state, "systems": systems, "unparsed": unparsed, "parsed": self.parsed_at is not None}


class GenerationChunk(Chunk):
    run = models.ForeignKey(GenerationRun, on_delete=models.CASCADE, related_name="chunks")
    text_ids = models.JSONField(help_text="The texts of this chunk, asked for under every seed of the run.")

    class Meta(Chunk.Meta):
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="unique_generation_chunk_index")]

    def count_so_far(self, requests: int, cache_hits: int) -> None:
        """The counters of a chunk still asking (requests answered so far), for its run's live progress;
        ``complete`` sets the final ones (requests sent, retries included)."""
        self._held().update(requests=requests, cache_hits=cache_hits)

    @transaction.atomic
    def complete(self, replies: Iterable["GenerationReply"], usage: dict[str, Any]) -> bool:
        """Store the chunk's replies and mark it done, together; False if another job took it over."""
        done = self._held().update(status=self.Status.DONE, finished_at=timezone.now(), **usage)
        if done:
            GenerationReply.objects.bulk_create(replies, batch_size=500)
        return bool(done)


class GenerationReply(models.Model):
    """One reply of the model, as it came, to one text under one seed; and what parsing it found."""

    run = models.ForeignKey(GenerationRun, on_delete=models.CASCADE, related_name="replies")
    text = models.ForeignKey(Text, on_delete=models.CASCADE, related_name="generation_replies")
    seed = models.BigIntegerField()
    raw = models.TextField(blank=True)
    error = models.TextField(blank=True, help_text="Why the request failed for good; empty when it was answered.")
    cached = models.BooleanField(default=False, help_text="Taken from the request cache, not asked again.")
    problem = models.TextField(blank=True, help_text="Why the reply gave no triples; empty when it parsed.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "seed", "text__position"]
        constraints = [models.UniqueConstraint(fields=["run", "text", "seed"], name="one_reply_per_run_text_seed")]

    def __str__(self) -> str:
        return f"reply of run {self.run_id} to {self.text_id} (seed {self.seed})"
