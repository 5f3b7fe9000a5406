"""The form that starts a scoring run from a dataset's page."""

from django import forms

from scoring.genres.embedders import EMBEDDERS
from scoring.genres.judges import JUDGES
from scoring.genres.rules import APP, RULE_LABELS
from scoring.genres.scorer import METRICS, ScoreSettings
from scoring.models import System
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
JUDGE_LABELS = {"heuristic": "heuristic: offline rules, no LLM", "openai": "openai: an LLM behind /v1"}


class RunForm(forms.Form):
    systems = forms.ModelMultipleChoiceField(queryset=System.objects.none(), widget=forms.CheckboxSelectMultiple)
    metrics = forms.MultipleChoiceField(
        choices=[(metric, METRIC_LABELS[metric]) for metric in METRICS], widget=forms.CheckboxSelectMultiple
    )
    embedder = forms.ChoiceField(choices=[(name, EMBEDDER_LABELS.get(name, name)) for name in EMBEDDERS])
    judge = forms.ChoiceField(choices=[(name, JUDGE_LABELS.get(name, name)) for name in JUDGES])
    rules = forms.ChoiceField(
        choices=list(RULE_LABELS.items()),
        initial=APP,
        required=False,  # a form posted without it (an older page, a script) keeps the app's rules
        help_text="The reference rules reproduce the GENRES authors' published numbers; see the docs on metrics.",
    )
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

    def choices(self):
        """(systems, metrics, embedder, judge) the run would use: the defaults before anything is
        submitted, the submitted choices once valid, None while they are not."""
        if not self.is_bound:
            return list(self.initial["systems"]), self.initial["metrics"], "hashing", "heuristic"
        if not self.is_valid():
            return None
        data = self.cleaned_data
        return list(data["systems"]), data["metrics"], data["embedder"], data["judge"]

    def score_settings(self):
        return ScoreSettings(
            embedder=self.cleaned_data["embedder"], judge=self.cleaned_data["judge"], rules=self.cleaned_data["rules"] or APP
        )
