"""The form that starts a triple-check campaign."""

from typing import Any, cast

from django import forms

from annotation.attention import MAX_ATTENTION_SHARE
from annotation.forms import (
    DEFAULT_PASS_PERCENT,
    KeptPracticeForm,
    PracticeFileField,
    SystemChoiceField,
    UserChoiceField,
    datasets_of_systems,
    pass_mark_field,
    possible_annotators,
)
from annotation.triple_checks.practice import TriplePracticeRecord, read_triple_practice_file
from annotation.triple_checks.queries import judge_label
from scoring.models import Dataset, System
from scoring.models.runs import ScoringRun


def judge_setting_choices() -> list[tuple[str, str]]:
    """Every setting with a finished run that judged factualness, newest first, named by dataset and judge."""
    choices: dict[str, str] = {}
    finished = (
        ScoringRun.objects.filter(status=ScoringRun.Status.DONE).exclude(fingerprint="").select_related("dataset")
    )
    for run in finished.order_by("-finished_at", "-pk"):
        if "fs" in run.metrics:
            label = f"{run.dataset.name} · {judge_label(run.provenance or {})} ({run.fingerprint[:8]})"
            choices.setdefault(run.fingerprint, label)
    return [("", "None: stratify by system only"), *choices.items()]


class TripleCheckForm(KeptPracticeForm):
    practice_record = TriplePracticeRecord
    practice_unit = "triples"
    name = forms.CharField(max_length=100)
    dataset = forms.ModelChoiceField(queryset=Dataset.objects.all())
    systems = SystemChoiceField(queryset=System.objects.filter(is_ground_truth=False))
    judge_setting = forms.ChoiceField(
        required=False, help_text="Whose factualness verdicts stratify the sample, so that rare verdicts are present."
    )
    per_stratum = forms.IntegerField(
        min_value=1, max_value=1000, initial=10, help_text="Triples per system and verdict."
    )
    annotators = UserChoiceField(queryset=possible_annotators())
    overlap_share = forms.FloatField(
        min_value=0.0, max_value=1.0, initial=0.5, help_text="Share of texts whose triples two annotators label."
    )
    attention_share = forms.FloatField(
        min_value=0.0,
        max_value=MAX_ATTENTION_SHARE,
        initial=0.0,
        help_text="Attention checks, as a share of the sample: triples of other texts, which the text cannot support.",
    )
    practice_file = PracticeFileField(
        required=False,
        reader=read_triple_practice_file,
        label="Practice round (optional)",
        help_text="JSON or JSON Lines of practice triples with reference answers and reasons "
        "(docs/triple-checks.md): annotators pass it before real triples.",
    )
    practice_pass_percent = pass_mark_field(required=False)
    sample_seed = forms.IntegerField(initial=0)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["judge_setting"]).choices = judge_setting_choices()
        cast(UserChoiceField, self.fields["annotators"]).queryset = possible_annotators()
        self.fields["systems"].widget.datasets_of = datasets_of_systems()

    def pass_mark(self) -> float:
        """The practice pass mark as a share (the form asks for a percentage; the default when empty)."""
        percent = self.cleaned_data.get("practice_pass_percent")
        return (DEFAULT_PASS_PERCENT if percent is None else percent) / 100
