"""Forms of the campaign pages (staff only) and of the annotator's item page."""

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any, TypeVar, cast

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core import signing
from django.db.models import QuerySet

from annotation import practice
from annotation.access import output_readers, reader_refusal
from annotation.models import ASPECTS, MAX_ATTENTION_SHARE, MAX_COMMENT_CHARS, Aspect, Campaign
from scoring.genres.formats import FormatError
from scoring.models import Dataset, Output, System, name_validator

MAX_TEXT_REFERENCES_CHARS = 20_000
MAX_INSTRUCTIONS_CHARS = 10_000
KEPT_PRACTICE_SALT = "annotation.campaign-form.practice"
T = TypeVar("T")


def active_users() -> QuerySet[User]:
    return get_user_model().objects.filter(is_active=True).order_by("username")


def possible_annotators() -> QuerySet[User]:
    """Active users who may judge systems blind: none who may read outputs or leaderboards by their role."""
    return active_users().exclude(output_readers())


class UserChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, user: User) -> str:
        # Raters that import_judgements creates have no password: work given to them is never done.
        name = user.get_username()
        return name if user.has_usable_password() else f"{name} (cannot sign in)"

    def clean(self, value: Any) -> Any:
        # A reader is not offered, but a form posted by hand may name one: say who, and why.
        key = self.to_field_name or "pk"
        chosen = [choice for choice in value or [] if key != "pk" or str(choice).isdigit()]
        readers = list(active_users().filter(**{f"{key}__in": chosen}).filter(output_readers()))
        if readers:
            raise forms.ValidationError(reader_refusal(readers))
        return super().clean(value)


class SystemCheckboxes(forms.CheckboxSelectMultiple):
    """Checkboxes that carry the datasets each system has outputs in (``data-datasets``, ids), so
    that static/js/campaign_form.js shows only the systems of the chosen dataset."""

    datasets_of: dict[int, list[tuple[int, str]]] = {}  # system id -> [(dataset id, dataset name)]

    def create_option(self, name: str, value: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option = super().create_option(name, value, *args, **kwargs)
        system_id = getattr(value, "value", value)
        option["attrs"]["data-datasets"] = " ".join(str(pk) for pk, _ in self.datasets_of.get(system_id, []))
        return option


class SystemChoiceField(forms.ModelMultipleChoiceField):
    """The systems, each labelled with the datasets it has outputs in (read without the script)."""

    widget = SystemCheckboxes

    def label_from_instance(self, system: System) -> str:
        datasets = self.widget.datasets_of.get(system.pk)
        if not datasets:
            return f"{system.name} (no outputs yet)"
        return f"{system.name} ({', '.join(name for _, name in datasets)})"


def datasets_of_systems() -> dict[int, list[tuple[int, str]]]:
    """system id -> the (id, name) of every dataset it has outputs in, by name: one query."""
    pairs = (
        Output.objects.filter(system__is_ground_truth=False)
        .values_list("system_id", "text__dataset_id", "text__dataset__name")
        .distinct()
        .order_by("system_id", "text__dataset__name")
    )
    datasets: dict[int, list[tuple[int, str]]] = {}
    for system_id, dataset_id, dataset_name in pairs:
        datasets.setdefault(system_id, []).append((dataset_id, dataset_name))
    return datasets


class PracticeFileField(forms.FileField):
    """A practice file (docs/formats.md), read into ``annotation.practice.PracticeRecord`` items,
    or by ``reader`` into a triple check's records."""

    def __init__(
        self, *args: Any, reader: Callable[[bytes], list[Any]] = practice.read_practice_file, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.reader = reader

    def clean(self, data: Any, initial: Any | None = None) -> list[Any]:
        upload = super().clean(data, initial)
        if not upload:
            return []
        if upload.size > practice.MAX_FILE_BYTES:
            raise forms.ValidationError(f"{upload.name}: larger than {practice.MAX_FILE_BYTES // 1_000_000} MB.")
        try:
            return self.reader(upload.read())
        except FormatError as error:
            raise forms.ValidationError(f"{upload.name}: {error}.") from None


DEFAULT_PASS_PERCENT = 80


def pass_mark_field(required: bool = True) -> forms.IntegerField:
    return forms.IntegerField(
        required=required,
        min_value=0,
        max_value=100,
        initial=DEFAULT_PASS_PERCENT,
        label="Practice pass mark (%)",
        help_text="Share of the practice round's reference answers to match before real items are served.",
    )


def _or_default(value: T | None, default: T) -> T:
    return default if value is None else value


class KeptPracticeForm(forms.Form):
    """A form with a practice file (``practice_file``) that outlives a form error.

    A browser never sends a chosen file again: after an error the practice round read from it
    travels in a signed hidden field, so the next submit keeps it, and ``kept_practice_name`` says
    which file that is. ``practice_record`` is the type of the file's records.
    """

    practice_record: type = practice.PracticeRecord
    practice_unit = "pairs"
    kept_practice = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kept_practice_name = ""  # the practice file the form holds, after clean()
        self.kept_practice_token = ""

    def clean(self) -> dict[str, Any]:
        super().clean()
        self._keep_practice(self.cleaned_data)
        return self.cleaned_data

    def _kept_practice_salt(self) -> str:
        # One per kind of record: a token of another form's practice file is refused, not misread.
        return f"{KEPT_PRACTICE_SALT}.{self.practice_record.__name__}"

    def clean_kept_practice(self) -> Any:
        token = self.cleaned_data["kept_practice"]
        if not token:
            return None
        try:
            return signing.loads(token, salt=self._kept_practice_salt())
        except signing.BadSignature:
            # Said beside the file field, where it is chosen again (this field is hidden).
            self.add_error("practice_file", "The practice file of the last try was lost: choose it again.")
            return None

    def _keep_practice(self, cleaned: dict[str, Any]) -> None:
        """Take the practice round from the file chosen now or, without one, from the last try."""
        upload = self.files.get("practice_file")
        kept: dict[str, Any]
        if cleaned.get("practice_file") and upload is not None:
            kept = {"name": upload.name, "records": [asdict(record) for record in cleaned["practice_file"]]}
        elif cleaned.get("kept_practice") and "practice_file" in cleaned:
            kept = cleaned["kept_practice"]
            cleaned["practice_file"] = [self.practice_record(**record) for record in kept["records"]]
        else:
            return
        self.kept_practice_name = f"{kept['name']} ({len(kept['records'])} {self.practice_unit})"
        self.kept_practice_token = signing.dumps(kept, salt=self._kept_practice_salt(), compress=True)
        # Shown again in the hidden field, which renders the form's data.
        data = cast(Any, self.data).copy()  # a QueryDict (several values a key) or a dict
        data[self.add_prefix("kept_practice")] = self.kept_practice_token
        self.data = data


class CampaignCreateForm(KeptPracticeForm):
    name = forms.CharField(max_length=100, validators=[name_validator])
    dataset = forms.ModelChoiceField(queryset=Dataset.objects.all())
    systems = SystemChoiceField(
        queryset=System.objects.filter(is_ground_truth=False),
        required=False,
        help_text="Only systems with outputs in the chosen dataset can be compared on it.",
    )
    include_ground_truth = forms.BooleanField(
        required=False,
        label='Add the gold triples as the system "Ground truth"',
        help_text="Texts without gold triples are then left out of the sample.",
    )
    sample_size = forms.IntegerField(
        required=False, min_value=1, label="Number of texts to sample", help_text="Drawn at random with the seed."
    )
    text_references = forms.CharField(
        required=False,
        max_length=MAX_TEXT_REFERENCES_CHARS,
        widget=forms.Textarea(attrs={"rows": 3}),
        label="Or these texts",
        help_text="Separated by commas or new lines: an external id, #N for the N-th text, or a text id.",
    )
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, help_text="Same seed, same sample and queues.")
    annotators = UserChoiceField(
        queryset=possible_annotators(),
        widget=forms.CheckboxSelectMultiple,
        help_text="Staff and users who may read system outputs are not offered: they cannot judge blind.",
    )
    overlap_percent = forms.IntegerField(
        min_value=0,
        max_value=100,
        initial=50,
        label="Overlap (%)",
        help_text="Share of texts judged by two different annotators, to measure agreement.",
    )
    pair_order = forms.ChoiceField(
        required=False,
        choices=Campaign.PairOrder.choices,
        initial=Campaign.PairOrder.QUEUE,
        label="Order of pairs",
        help_text="Adaptive serves next the pairs the judgements so far leave least certain: the four first "
        "aspects settle with fewer judgements, but completeness later, since a text's completeness waits until all "
        "its pairs are judged (the gold stays hidden until then), which the queue order reaches soonest. Annotators "
        "also change text more often.",
    )
    instructions = forms.CharField(
        required=False,
        max_length=MAX_INSTRUCTIONS_CHARS,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="Shown to the annotators of this campaign, above the general guidelines.",
    )
    practice_file = PracticeFileField(
        required=False,
        label="Practice round (optional)",
        help_text="JSON or JSON Lines of practice pairs with reference answers and reasons (docs/formats.md): "
        "annotators pass it before real items.",
    )
    practice_pass_percent = pass_mark_field(required=False)
    attention_percent = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=round(MAX_ATTENTION_SHARE * 100),
        initial=0,
        label="Attention checks (%)",
        help_text="Share of each queue made of pairs where one side is a copy of the other made clearly worse; "
        "never rated.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(UserChoiceField, self.fields["annotators"]).queryset = possible_annotators()
        self.fields["systems"].widget.datasets_of = datasets_of_systems()
        if not self.is_bound:
            self.initial.setdefault("seed", secrets.randbelow(1_000_000))

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if Campaign.objects.filter(name=name).exists():
            raise forms.ValidationError("A campaign with this name exists already.")
        return name

    def clean_text_references(self) -> list[str]:
        return [
            reference for reference in re.split(r"[,\n\r]+", self.cleaned_data["text_references"]) if reference.strip()
        ]

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        systems = list(cleaned.get("systems") or [])
        dataset = cleaned.get("dataset")
        elsewhere = [system for system in systems if dataset and not self._has_outputs_in(system, dataset)]
        if dataset and elsewhere:
            names = ", ".join(system.name for system in elsewhere)
            self.add_error(
                "systems",
                f"{names} {'has' if len(elsewhere) == 1 else 'have'} no outputs in {dataset.name}: "
                f"choose among {self._systems_of(dataset) or 'none (upload outputs for it first)'}.",
            )
        elif "systems" in cleaned and len(systems) + bool(cleaned.get("include_ground_truth")) < 2:
            self.add_error("systems", "Choose at least two systems (the ground truth counts as one).")
        if cleaned.get("sample_size") and cleaned.get("text_references"):
            self.add_error("text_references", "Give a number of texts to sample or a list of texts, not both.")
        elif not cleaned.get("sample_size") and not cleaned.get("text_references") and "text_references" in cleaned:
            self.add_error("sample_size", "Give a number of texts to sample, or list the texts.")
        return cleaned

    def _has_outputs_in(self, system: System, dataset: Dataset) -> bool:
        return any(pk == dataset.pk for pk, _ in self.fields["systems"].widget.datasets_of.get(system.pk, []))

    def _systems_of(self, dataset: Dataset) -> str:
        systems = cast(SystemChoiceField, self.fields["systems"]).queryset
        assert systems is not None  # the field is declared with one
        return ", ".join(system.name for system in systems if self._has_outputs_in(system, dataset))

    def chosen_systems(self) -> list[System]:
        systems = list(self.cleaned_data["systems"])
        if self.cleaned_data["include_ground_truth"]:
            systems.append(System.ground_truth())
        return systems

    def service_arguments(self) -> dict[str, Any]:
        """Keyword arguments for ``annotation.services.campaigns.create_campaign``."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "dataset": data["dataset"],
            "systems": self.chosen_systems(),
            "annotators": list(data["annotators"]),
            "seed": data["seed"],
            "overlap_share": data["overlap_percent"] / 100,
            "instructions": data["instructions"],
            "pair_order": data["pair_order"] or Campaign.PairOrder.QUEUE,
            "sample_size": data["sample_size"] or None,
            "text_references": [reference.strip() for reference in data["text_references"]] or None,
            "practice_items": data["practice_file"],
            "practice_pass_mark": _or_default(data["practice_pass_percent"], DEFAULT_PASS_PERCENT) / 100,
            "attention_share": (data["attention_percent"] or 0) / 100,
        }


class CampaignApiForm(CampaignCreateForm):
    """The campaign form as the API takes it: the same fields and checks, with the dataset and
    systems named by their names and the annotators by their usernames (a script knows those,
    not the ids the page's choices carry)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for field, key in (("dataset", "name"), ("systems", "name"), ("annotators", "username")):
            cast(forms.ModelChoiceField, self.fields[field]).to_field_name = key


class PracticeUploadForm(forms.Form):
    """A new practice round for an existing campaign (the quality page)."""

    practice_file = PracticeFileField(label="Practice file")
    practice_pass_percent = pass_mark_field()


class ExclusionForm(forms.Form):
    annotator = forms.ModelChoiceField(queryset=active_users(), to_field_name="username")
    excluded = forms.TypedChoiceField(
        choices=[("1", "Leave out"), ("0", "Take back in")], coerce=lambda value: value == "1"
    )

    def __init__(self, campaign: Campaign, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ModelChoiceField, self.fields["annotator"]).queryset = campaign.annotators.all()


class AnnotatorChangeForm(forms.Form):
    ADD, REMOVE = "add", "remove"

    annotator = forms.ModelChoiceField(queryset=active_users(), to_field_name="username")
    action = forms.ChoiceField(choices=[(ADD, "Add"), (REMOVE, "Remove")])

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ModelChoiceField, self.fields["annotator"]).queryset = active_users()


# What the annotator can answer for each aspect, in page order, with its keyboard shortcut.
SIDES = [("left", "A better", "1"), ("tie", "Tie", "2"), ("right", "B better", "3")]


class JudgementForm(forms.Form):
    """The posted choices: one optional field per aspect, plus what the save needs to be safe."""

    version = forms.IntegerField(min_value=0)
    seconds = forms.FloatField(required=False, min_value=0)
    opened_at = forms.FloatField(required=False)
    # An item reopened from the review list returns there after a save, to the same page of it.
    return_to = forms.ChoiceField(choices=[("review", "review")], required=False)
    review_page = forms.IntegerField(required=False, min_value=1)
    comment = forms.CharField(required=False, max_length=MAX_COMMENT_CHARS, strip=True, label="Comment")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for code in ASPECTS:
            self.fields[code] = forms.ChoiceField(
                choices=[(value, label) for value, label, _ in SIDES], required=False, label=Aspect(code).label
            )

    def labels(self) -> dict[str, str]:
        return {code: self.cleaned_data[code] for code in ASPECTS if self.cleaned_data[code]}

    def posted_comment(self) -> str | None:
        """The comment posted, or None when the form carried no comment field (it stays as it is)."""
        return self.cleaned_data["comment"] if "comment" in self.data else None

    def seconds_spent(self) -> float:
        """Time the script measured on the page; without the script, time since the page was rendered."""
        if self.cleaned_data["seconds"] is not None:
            return self.cleaned_data["seconds"]
        if self.cleaned_data["opened_at"] is not None:
            return time.time() - self.cleaned_data["opened_at"]
        return 0.0

    def error_message(self) -> str:
        return " ".join(
            f"{self.fields[name].label or name}: {' '.join(map(str, errors))}"
            if name in self.fields
            else " ".join(map(str, errors))
            for name, errors in self.errors.items()
        )
