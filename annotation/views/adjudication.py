"""Adjudication pages (staff only): the items a campaign's annotators disagree on, one item with
every annotator's choices, comment and time beside both extractions, its resolution, and the
campaign's choice of the labels its ratings use (``annotation.adjudication``).

The extractions are shown as "A" and "B" without their systems' names, so the adjudicator judges
blind as the annotators did; the exports name them.
"""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotation import adjudication
from annotation.adjudication_forms import DisagreementFilterForm, RatingLabelsForm, ResolutionForm
from annotation.models import ASPECTS, Aspect, Campaign, Item, Label
from annotation.views.annotate import item_triples
from annotation.views.campaigns import STAFF_ONLY
from core.permissions import staff_required
from core.signed_in import SignedInRequest

DISAGREEMENTS_PER_PAGE = 25
CHOICE_NAMES = {Label.A: "A better", Label.B: "B better", Label.TIE: "Tie"}


@require_GET
@staff_required(STAFF_ONLY)
def adjudication_list(request: SignedInRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("dataset"), pk=pk)
    filter_form = DisagreementFilterForm(request.GET)
    found = adjudication.disagreements(campaign, **filter_form.filters())
    page = Paginator(found, DISAGREEMENTS_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "campaign": campaign,
        "filter_form": filter_form,
        "page": page,
        "query": query.urlencode(),
        "resolved": sum(disagreement.resolution is not None for disagreement in found),
        "choice_names": CHOICE_NAMES,
    }
    return render(request, "annotation/adjudication_list.html", context)


def campaign_item(pk: int, item_pk: int) -> Item:
    """A real item of the campaign: the item must belong to the campaign in the URL."""
    return get_object_or_404(
        Item.objects.select_related("campaign__dataset", "text", "system_a", "system_b"),
        pk=item_pk,
        campaign_id=pk,
        attention_worse="",
    )


def render_item(
    request: SignedInRequest, item: Item, form: ResolutionForm | None = None, status: int = 200
) -> HttpResponse:
    annotators = adjudication.item_judgements(item)
    resolutions = {resolution.aspect: resolution for resolution in item.resolutions.select_related("resolved_by")}
    rows = []
    for code in ASPECTS:
        labels = [view.labels[code] for view in annotators if code in view.labels]
        posted = form if form is not None and form.data.get("aspect") == code else None
        resolution = resolutions.get(code)
        initial = (
            {"aspect": code, "label": resolution.label, "note": resolution.note} if resolution else {"aspect": code}
        )
        rows.append(
            {
                "aspect": Aspect(code),
                "choices": [
                    (view, view.labels.get(code), view.assignment.canonical_to_shown(view.labels[code]))
                    if code in view.labels
                    else (view, None, None)
                    for view in annotators
                ],
                "margin": adjudication.margin(labels),
                "resolution": resolution,
                "form": (posted or ResolutionForm(initial=initial, auto_id=f"id_{code}_%s"))
                if len(labels) >= 2
                else None,
            }
        )
    a_triples, b_triples = item_triples(item)
    context = {
        "campaign": item.campaign,
        "item": item,
        "annotators": annotators,
        "rows": rows,
        "a_triples": a_triples,
        "b_triples": b_triples,
        "gold_triples": item.text.gold,
        "choice_names": CHOICE_NAMES,
    }
    return render(request, "annotation/adjudication_item.html", context, status=status)


@require_GET
@staff_required(STAFF_ONLY)
def adjudication_item(request: SignedInRequest, pk: int, item_pk: int) -> HttpResponse:
    return render_item(request, campaign_item(pk, item_pk))


@require_POST
@staff_required(STAFF_ONLY)
def adjudication_resolve(request: SignedInRequest, pk: int, item_pk: int) -> HttpResponse:
    item = campaign_item(pk, item_pk)
    form = ResolutionForm(request.POST, auto_id=f"id_{request.POST.get('aspect', '')}_%s")
    if not form.is_valid():
        messages.error(request, "Nothing was recorded: choose A better, tie or B better for one aspect.")
        return render_item(request, item, form, status=400)
    aspect = form.cleaned_data["aspect"]
    try:
        adjudication.resolve(item, aspect, form.cleaned_data["label"], form.cleaned_data["note"], request.user)
    except adjudication.AdjudicationError as error:
        messages.error(request, str(error))
        return render_item(request, item, form, status=400)
    messages.success(request, f"{Aspect(aspect).label} resolved: {CHOICE_NAMES[form.cleaned_data['label']]}.")
    return redirect(reverse("annotation:adjudication_item", args=[pk, item.pk]) + f"#aspect-{aspect}")


@require_POST
@staff_required(STAFF_ONLY)
def campaign_rating_labels(request: SignedInRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    form = RatingLabelsForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose which labels the ratings use.")
        return redirect(campaign)
    adjudication.set_rating_labels(campaign, form.cleaned_data["rating_labels"])
    messages.success(
        request, f"Ratings now use: {campaign.get_rating_labels_display().lower()}; the leaderboard is being rebuilt."
    )
    return redirect(campaign)
