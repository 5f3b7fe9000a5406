"""The generation run form, shared by the staff page and the API."""

from typing import Any

from django import forms
from django.contrib.auth.models import User

from scoring.generation_jobs import enqueue_generation, estimate
from scoring.genres.generation import API_CHOICES, GenerationSettings, check_template
from scoring.genres.openai_backend import OPENAI_BASE_URL, environment
from scoring.genres.prompts import MAX_TEMPLATE_CHARS, TemplateError
from scoring.models import Dataset, GenerationRun, GenerationTemplate
from scoring.models.chunked import DEFAULT_CHUNK_TEXTS
from scoring.models.generation import MAX_SEEDS


class GenerationForm(forms.Form):
    base_url = forms.URLField(
        max_length=500, assume_scheme="https", label="Endpoint", help_text="An OpenAI-compatible base URL, …/v1."
    )
    model = forms.CharField(max_length=200)
    api = forms.ChoiceField(
        label="API",
        choices=[("auto", "auto (completions for *-instruct)"), *[(api, api) for api in API_CHOICES]],
        initial="auto",
    )
    template = forms.ModelChoiceField(
        GenerationTemplate.objects.all(), required=False, empty_label="the app's template (open-gre v1)"
    )
    new_template_name = forms.CharField(max_length=100, required=False, help_text="With a new template text: its name.")
    new_template = forms.CharField(
        required=False,
        max_length=MAX_TEMPLATE_CHARS,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="A new template, or a new version of the named one; $TEXT$ stands for the text.",
    )
    temperature = forms.FloatField(min_value=0, max_value=2, initial=0.0)
    max_tokens = forms.IntegerField(min_value=1, max_value=32_768, initial=512)
    seeds = forms.CharField(initial="1", help_text="Comma-separated integers; each makes a system (54,64,74,84).")
    group = forms.CharField(
        max_length=80, required=False, help_text="Replicate group and name stem; default: the model."
    )
    chunk_texts = forms.IntegerField(min_value=1, initial=DEFAULT_CHUNK_TEXTS, label="Texts per chunk")
    score_when_done = forms.BooleanField(required=False, label="Score the new systems when generation ends")

    def __init__(self, dataset: Dataset, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.dataset = dataset
        self.fields["base_url"].initial = environment("OPENAI_BASE_URL", OPENAI_BASE_URL)

    def clean_seeds(self) -> list[int]:
        try:
            seeds = sorted({int(item) for item in self.cleaned_data["seeds"].split(",") if item.strip()})
        except ValueError:
            raise forms.ValidationError("Write whole numbers separated by commas.") from None
        if not 1 <= len(seeds) <= MAX_SEEDS or any(not 0 <= seed < 2**63 for seed in seeds):
            raise forms.ValidationError(f"Between 1 and {MAX_SEEDS} seeds, each a number from 0.")
        return seeds

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        api = data["api"]
        if api == "auto":
            api = "completions" if data["model"].endswith("-instruct") else "chat"
        self.settings = GenerationSettings(
            data["base_url"], data["model"].strip(), api, data["temperature"], data["max_tokens"]
        )
        try:
            self.settings.check()
        except ValueError as error:
            self.add_error(None, str(error))
        if data["new_template"].strip() and not data["new_template_name"].strip():
            self.add_error("new_template_name", "Name the new template.")
        return data

    def prompt_template(self) -> str:
        data = self.cleaned_data
        if data["new_template"].strip():
            return str(data["new_template"])
        return (data["template"] or GenerationTemplate.default()).text

    def is_runnable(self) -> bool:
        """Whether the form is valid and its template usable (an error says why not)."""
        if not self.is_valid():
            return False
        try:
            check_template(self.prompt_template())
        except TemplateError as error:
            self.add_error("new_template", str(error))
            return False
        return True

    def estimate(self) -> dict[str, Any] | None:
        """What the run would ask (every prompt rendered, the cache asked); None while the form
        cannot run."""
        if not self.is_runnable():
            return None
        return estimate(self.dataset, self.settings, self.prompt_template(), self.cleaned_data["seeds"])

    def start(self, user: User) -> GenerationRun:
        """Create the run of a valid form and queue its chunks; ``RunRefused`` says why it cannot run."""
        data = self.cleaned_data
        template = data["template"]
        if data["new_template"].strip():
            template = GenerationTemplate.save_version(data["new_template_name"].strip(), data["new_template"], user)
        run = GenerationRun.create(
            self.dataset,
            self.settings,
            data["seeds"],
            template=template,
            group=data["group"].strip(),
            user=user,
            chunk_texts=data["chunk_texts"],
            score_when_done=data["score_when_done"],
        )
        enqueue_generation(run)
        return run
