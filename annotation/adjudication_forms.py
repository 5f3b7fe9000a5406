"""Forms of the adjudication pages (staff only): the filter of disagreements, a resolution, and
the campaign's choice of the labels ratings use."""

from django import forms

from annotation.adjudication import ONE_TIE, OPPOSITE_SIDES
from annotation.models import MAX_RESOLUTION_NOTE_CHARS, Aspect, Campaign, Label

MARGINS = [(str(ONE_TIE), "Any disagreement"), (str(OPPOSITE_SIDES), "Opposite sides only (A against B)")]


class DisagreementFilterForm(forms.Form):
    aspect = forms.ChoiceField(choices=[("", "All aspects"), *Aspect.choices], required=False)
    # django-stubs type empty_value as a string; Django returns whatever is given, here a number.
    margin = forms.TypedChoiceField(
        choices=MARGINS,
        coerce=float,
        required=False,
        empty_value=ONE_TIE,  # type: ignore[arg-type]
    )

    def filters(self) -> dict:
        """Keyword arguments of ``adjudication.disagreements``; an invalid filter shows everything."""
        if not self.is_valid():
            return {"aspect": None, "min_margin": ONE_TIE}
        return {"aspect": self.cleaned_data["aspect"] or None, "min_margin": self.cleaned_data["margin"]}


class ResolutionForm(forms.Form):
    aspect = forms.ChoiceField(choices=Aspect.choices, widget=forms.HiddenInput)
    label = forms.ChoiceField(choices=Label.choices, widget=forms.RadioSelect, label="Resolution")
    note = forms.CharField(
        required=False,
        max_length=MAX_RESOLUTION_NOTE_CHARS,
        widget=forms.Textarea(attrs={"rows": 2}),
        label="Note",
        help_text="Why: kept with the resolution and exported.",
    )


class RatingLabelsForm(forms.Form):
    rating_labels = forms.ChoiceField(choices=Campaign.RatingLabels.choices, label="Ratings use")
