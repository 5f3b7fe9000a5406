"""Adjudication of a triple check (staff only): the triples its annotators disagree on, and one of
them with the text, the triple, its system, each annotator's answers and the form that records
the gold label (``adjudication``). Saving opens the next disagreement still unsettled, so a
campaign's disagreements can be settled in a row by keyboard (``js/triple_check.js``).
"""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from annotation.services.errors import AnnotationError
from annotation.triple_checks import adjudication
from annotation.triple_checks.models import MAX_FACTS, TripleCheck
from annotation.triple_checks.services import checked_answer
from annotation.triple_checks.statistics import FACT_COUNTS
from annotation.triple_checks.views import STAFF_ONLY, shown_answer
from core.permissions import staff_required
from core.signed_in import SignedInRequest


@require_GET
@staff_required(STAFF_ONLY)
def triple_adjudication_list(request: SignedInRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(TripleCheck.objects.select_related("dataset"), pk=pk)
    found = adjudication.disagreements(campaign)
    unsettled = [each for each in found if each.adjudication is None]
    context = {
        "campaign": campaign,
        "disagreements": found,
        "settled": len(found) - len(unsettled),
        "first_unsettled": unsettled[0] if unsettled else None,
    }
    return render(request, "annotation/triple_adjudication_list.html", context)


@require_http_methods(["GET", "POST"])
@staff_required(STAFF_ONLY)
def triple_adjudication_item(request: SignedInRequest, pk: int, item_pk: int) -> HttpResponse:
    """A disagreement and its form; a POST records the gold label and opens the next unsettled one."""
    campaign = get_object_or_404(TripleCheck.objects.select_related("dataset"), pk=pk)
    found = adjudication.disagreements(campaign)
    position = next((place for place, each in enumerate(found) if each.item.pk == item_pk), None)
    if position is None:
        get_object_or_404(campaign.items, pk=item_pk, attention=False)  # else 404: not a triple of the campaign
        messages.info(request, "Nothing to settle on that triple: its annotators agree, or fewer than two labelled it.")
        return redirect("annotation:triple_check_adjudication", campaign.pk)
    shown = found[position]
    error = ""
    if request.method == "POST":
        try:
            supported, facts = checked_answer(request.POST.get("supported", ""), request.POST.get("facts", ""))
            adjudication.adjudicate(shown.item, supported, facts, request.user)
        except AnnotationError as refusal:
            error = str(refusal)
        else:
            shown_label = f"{'supported' if supported else 'not supported'}, {facts} fact{pluralize(facts)}"
            messages.success(request, f"Gold label recorded: {shown_label}.")
            return redirect(_next_unsettled(campaign, found, position))
    chosen = shown.adjudication
    majority_supported, majority_facts = shown.majority
    context = {
        "campaign": campaign,
        "disagreement": shown,
        "number": position + 1,
        "count": len(found),
        "next": found[(position + 1) % len(found)] if len(found) > 1 else None,
        "previous": found[position - 1] if len(found) > 1 else None,
        "majority_supported": majority_supported,
        "majority_facts": majority_facts,
        "fact_counts": FACT_COUNTS,
        "max_facts": MAX_FACTS,
        "error": error,
        "chosen_supported": request.POST.get("supported")
        if error
        else shown_answer(chosen.supported if chosen else None),
        "chosen_facts": request.POST.get("facts") if error else str(chosen.facts if chosen else ""),
    }
    return render(request, "annotation/triple_adjudication_item.html", context, status=400 if error else 200)


def _next_unsettled(campaign: TripleCheck, found: list[adjudication.Disagreement], position: int) -> str:
    """The page of the first disagreement after ``position`` (wrapping round) still unsettled;
    the list when every one is settled."""
    for each in found[position + 1 :] + found[:position]:
        if each.adjudication is None:
            return reverse("annotation:triple_adjudication_item", args=[campaign.pk, each.item.pk])
    return reverse("annotation:triple_check_adjudication", args=[campaign.pk])
