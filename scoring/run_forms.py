"""The form that starts a scoring run from a dataset's page."""

from django import forms

from scoring.genres.embedders import EMBEDDERS
from scoring.genres.judges import JUDGES
from scoring.genres.prompts import MAX_TEMPLATE_CHARS, TEMPLATE_PLACEHOLDERS, PromptTemplate, TemplateError
from scoring.genres.scorer import METRICS, ScoreSettings
from scoring.models import ImportedVerdict, System
from scoring.runs import DEFAULT_CHUNK_TEXTS

MAX_CHUNK_TEXTS = 1000

METRIC_LABELS = {
    "ts": "Topical similarity (ts)",
    "us": "Uniqueness (us)",
    "fs": "Factualness (fs, judge)",
    "gs": "Granularity (gs, judge)",
    "cs": "Completeness (cs)",
    "prf": "Precision, recall, F1: exact and relaxed",
}
EMBEDDER_LABELS = {
    "hashing": "hashing: offline, no download",
    "minilm": "minilm: all-MiniLM-L6-v2 on the CPU",
    "openai": "openai: /v1/embeddings",
}
JUDGE_LABELS = {
    "heuristic": "heuristic: offline rules, no LLM",
    "openai": "openai: an LLM behind /v1",
    "recorded": "recorded: verdicts imported with import_verdicts, no LLM",
}


def prompt_template_field(aspect, name):
    placeholders = " and ".join(TEMPLATE_PLACEHOLDERS[aspect])
    return forms.CharField(
        label=f"{name} prompt template",
        required=False,
        strip=False,
        max_length=MAX_TEMPLATE_CHARS,
        widget=forms.Textarea(attrs={"rows": 4, "class": "mono"}),
        help_text=f"Optional, openai judge: the whole prompt, with {placeholders}. Empty: the app's own prompt.",
    )


class RunForm(forms.Form):
    systems = forms.ModelMultipleChoiceField(queryset=System.objects.none(), widget=forms.CheckboxSelectMultiple)
    metrics = forms.MultipleChoiceField(
        choices=[(metric, METRIC_LABELS[metric]) for metric in METRICS], widget=forms.CheckboxSelectMultiple
    )
    embedder = forms.ChoiceField(choices=[(name, EMBEDDER_LABELS.get(name, name)) for name in EMBEDDERS])
    judge = forms.ChoiceField(choices=[(name, JUDGE_LABELS.get(name, name)) for name in [*JUDGES, "recorded"]])
    verdict_source = forms.ChoiceField(
        label="Recorded verdicts",
        required=False,
        help_text="Recorded judge: the source name the verdicts were imported under.",
    )
    fs_prompt = prompt_template_field("fs", "Factualness")
    gs_prompt = prompt_template_field("gs", "Granularity")
    chunk_texts = forms.IntegerField(
        label="Texts per chunk",
        min_value=1,
        max_value=MAX_CHUNK_TEXTS,
        initial=DEFAULT_CHUNK_TEXTS,
        help_text="Each chunk (these texts, every system) is one job; workers share the chunks.",
    )

    def __init__(self, dataset, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.dataset = dataset
        systems = System.objects.filter(outputs__text__dataset=dataset).distinct().order_by("-is_ground_truth", "name")
        self.fields["systems"].queryset = systems
        self.initial.setdefault("systems", list(systems))
        self.initial.setdefault("metrics", list(METRICS))
        sources = ImportedVerdict.objects.filter(text__dataset=dataset).values_list("source", flat=True)
        sources = sources.distinct().order_by("source")
        self.fields["verdict_source"].choices = [("", "—"), *((source, source) for source in sources)]

    def choices(self):
        """(systems, metrics, embedder, judge) the run would use: the defaults before anything is
        submitted, the submitted choices once valid, None while they are not."""
        if not self.is_bound:
            return list(self.initial["systems"]), self.initial["metrics"], "hashing", "heuristic"
        if not self.is_valid():
            return None
        data = self.cleaned_data
        return list(data["systems"]), data["metrics"], data["embedder"], data["judge"]

    def clean(self):
        cleaned = super().clean()
        if (cleaned.get("judge") == "recorded") != bool(cleaned.get("verdict_source")):
            self.add_error("verdict_source", "Choose recorded verdicts with the recorded judge, and only with it.")
        for aspect in TEMPLATE_PLACEHOLDERS:
            text = cleaned.get(f"{aspect}_prompt")
            if not text or not text.strip():
                continue
            if cleaned.get("judge") != "openai":
                self.add_error(f"{aspect}_prompt", "A prompt template needs the openai judge.")
                continue
            try:
                PromptTemplate(aspect, text)
            except TemplateError as error:
                self.add_error(f"{aspect}_prompt", str(error))
        return cleaned

    def prompt_templates(self):
        """{aspect: template text} of the templates given; {} before the form is valid."""
        if not self.is_bound or not self.is_valid():
            return {}
        texts = {aspect: self.cleaned_data[f"{aspect}_prompt"] for aspect in TEMPLATE_PLACEHOLDERS}
        return {aspect: text for aspect, text in texts.items() if text.strip()}

    def score_settings(self):
        return ScoreSettings(
            embedder=self.cleaned_data["embedder"],
            judge=self.cleaned_data["judge"],
            prompt_templates=self.prompt_templates(),
            verdict_source=self.cleaned_data["verdict_source"],
        )
