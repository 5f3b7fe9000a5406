"""Upload forms, shared by the upload page and the JSON API; both hand the file to scoring.imports."""

from django import forms

from scoring.genres import formats
from scoring.imports import import_dataset, import_outputs
from scoring.models import Dataset, name_validator


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


class DatasetUploadForm(forms.Form):
    name = forms.CharField(max_length=100, validators=[name_validator])
    level = DefaultedChoiceField(choices=Dataset.Level.choices, initial=Dataset.Level.SENTENCE)
    domain = DefaultedChoiceField(choices=Dataset.Domain.choices, initial=Dataset.Domain.GENERAL)
    description = forms.CharField(required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 3}))
    format = DefaultedChoiceField(choices=format_choices(formats.DATASET_FORMATS), initial=formats.AUTO)
    file = forms.FileField(help_text="Texts with their gold triples: triples JSON or JSON Lines.")

    def run_import(self, user):
        """Import the valid form's file; raises ImportRefused and changes nothing when a record is bad."""
        data = self.cleaned_data
        return import_dataset(
            data["file"],
            file_name=data["file"].name,
            name=data["name"],
            level=data["level"],
            domain=data["domain"],
            description=data["description"],
            format=data["format"],
            user=user,
        )


class OutputsFileForm(forms.Form):
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

    def __init__(self, *args, dataset=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.dataset = dataset

    def run_import(self, user):
        """Import the valid form's file; raises ImportRefused and changes nothing when a record is bad."""
        data = self.cleaned_data
        return import_outputs(
            data["file"],
            file_name=data["file"].name,
            dataset=self.dataset,
            system_name=data["system"],
            family=data["family"],
            format=data["format"],
            lenient=data["lenient"],
            user=user,
        )


class OutputsUploadForm(OutputsFileForm):
    """System outputs with the dataset chosen in the form (the upload page)."""

    dataset = forms.ModelChoiceField(queryset=Dataset.objects.all(), to_field_name="name", empty_label=None)
    field_order = ["dataset", "system", "family", "format", "lenient", "file"]

    def clean(self):
        cleaned = super().clean()
        self.dataset = cleaned.get("dataset")
        return cleaned
