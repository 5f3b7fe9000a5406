"""The practice round of a triple check: its triples one by one, the reference answer and reason
after each, the result, a retake. Real triples open once an attempt passes (``views``)."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.services.errors import AnnotationError
from annotation.triple_checks.models import MAX_FACTS, TripleCheck
from annotation.triple_checks.services import (
    answer_practice,
    closed_triple_checks,
    own_labels,
    practice_state,
    retake_practice,
)
from annotation.triple_checks.statistics import FACT_COUNTS
from annotation.views.closed import closed_campaign_page, raise_if_closed
from core.signed_in import SignedInRequest


def own_campaign(request: SignedInRequest, campaign_id: int) -> TripleCheck:
    """An open triple check the user labels in; ``CampaignClosed`` for a closed one; 404 for any other."""
    if not own_labels(request.user).filter(item__campaign_id=campaign_id).exists():
        raise_if_closed(closed_triple_checks(request.user).filter(pk=campaign_id))
        raise Http404("No such triple-check campaign of yours.")
    return TripleCheck.objects.get(pk=campaign_id)


def practice_url(campaign_id: int) -> str:
    return reverse("annotation:triple_practice", args=[campaign_id])


@require_http_methods(["GET", "POST"])
@login_required
@closed_campaign_page
def triple_practice(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    campaign = own_campaign(request, campaign_id)
    state = practice_state(request.user, campaign)
    if state.passed:
        return redirect("annotation:triple_next", campaign.pk)
    item = state.next_item
    if item is None:
        return render(request, "annotation/triple_practice_result.html", {"campaign": campaign, "state": state})
    error = ""
    if request.method == "POST":
        try:
            answer_practice(request.user, item, request.POST.get("supported", ""), request.POST.get("facts", ""))
        except AnnotationError as refusal:
            error = str(refusal)
        else:
            return redirect("annotation:triple_practice_feedback", campaign.pk, item.position + 1)
    context = {
        **_page(campaign, state, item.position + 1, item.text, item.triple),
        "error": error,
        "chosen_supported": request.POST.get("supported", ""),
        "chosen_facts": request.POST.get("facts", ""),
    }
    return render(request, "annotation/triple_label.html", context, status=400 if error else 200)


@require_GET
@login_required
@closed_campaign_page
def triple_practice_feedback(request: SignedInRequest, campaign_id: int, number: int) -> HttpResponse:
    campaign = own_campaign(request, campaign_id)
    state = practice_state(request.user, campaign)
    item = next((each for each in state.items if each.position + 1 == number), None)
    answer = state.answers.get(item.pk) if item is not None else None
    if item is None or answer is None:
        return redirect(practice_url(campaign.pk))
    context = {
        **_page(campaign, state, number, item.text, item.triple),
        "feedback": item,
        "chosen_supported": "yes" if answer.supported else "no",
        "chosen_facts": str(answer.facts),
        "next_url": practice_url(campaign.pk),
    }
    return render(request, "annotation/triple_label.html", context)


@require_POST
@login_required
@closed_campaign_page
def triple_practice_retake(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    retake_practice(request.user, own_campaign(request, campaign_id))
    return redirect(practice_url(campaign_id))


def _page(campaign: TripleCheck, state: object, number: int, text: str, triple: list[str]) -> dict[str, object]:
    """What the triple page shows of a practice triple."""
    return {
        "campaign": campaign,
        "practice": state,
        "number": number,
        "text_content": text,
        "triple": triple,
        "done": number - 1,
        "assigned": len(getattr(state, "items", [])),
        "fact_counts": FACT_COUNTS,
        "max_facts": MAX_FACTS,
    }
