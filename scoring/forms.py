"""Upload forms, shared by the upload page and the JSON API; both hand the file to scoring.imports,
or, when it is big, to an RQ job (scoring.import_jobs)."""

from django import forms

from scoring.genres import formats
from scoring.import_jobs import queue_import, runs_as_job
from scoring.imports import import_dataset, import_outputs
from scoring.models import Dataset, Upload, name_validator


class ImportForm(forms.Form):
    """A valid form's file is imported now (``run_import``) or by a job (``queue``), as its size says."""

    kind = None  # an Upload.Kind
    importer = None  # the import service of that kind

    def import_options(self):
        """What the import service takes besides the file and the user."""
        raise NotImplementedError

    def runs_as_job(self):
        return runs_as_job(self.cleaned_data["file"])

    def run_import(self, user):
        """Import the valid form's file; raises ImportRefused and changes nothing when a record is bad."""
        file = self.cleaned_data["file"]
        return self.importer(file, file_name=file.name, user=user, **self.import_options())

    def queue(self, user):
        """Queue the import of the valid form's file; the queued Upload."""
        file = self.cleaned_data["file"]
        return queue_import(self.kind, file, file_name=file.name, user=user, **self.import_options())


def format_choices(names):
    return [(formats.AUTO, "Detect from the file"), *((name, formats.FORMAT_NAMES[name]) for name in names)]


class DefaultedChoiceField(forms.ChoiceField):
    """A choice that falls back to its initial value when left out, so API callers may omit it."""

    def __init__(self, **kwargs):
        super().__init__(required=False, **kwargs)

    def clean(self, value):
        return super().clean(value) or self.initial


class FlagInput(forms.CheckboxInput):
    """A checkbox on the page; from API clients "0", "no" and "off" also mean false, not only "false"."""

    FALSE_VALUES = {"", "0", "false", "no", "off"}

    def value_from_datadict(self, data, files, name):
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

    def import_options(self):
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

    def __init__(self, *args, dataset=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.dataset = dataset

    def import_options(self):
        data = self.cleaned_data
        return {
            # By name: a queued import's options travel to the job as JSON-ready values.
            "dataset": self.dataset.name,
            "system_name": data["system"],
            **{key: data[key] for key in ("family", "format", "lenient")},
        }


class OutputsUploadForm(OutputsFileForm):
    """System outputs with the dataset chosen in the form (the upload page)."""

    dataset = forms.ModelChoiceField(queryset=Dataset.objects.all(), to_field_name="name", empty_label=None)
    field_order = ["dataset", "system", "family", "format", "lenient", "file"]

    def clean(self):
        cleaned = super().clean()
        self.dataset = cleaned.get("dataset")
        return cleaned
