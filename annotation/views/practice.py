"""The practice round: before real items, an annotator answers practice pairs and sees, after
each answer, the reference answer and why; an attempt that reaches the campaign's pass mark
opens the real items, a failed one can be retaken (its answers are kept for the quality view).

A practice pair is shown by the item page's own template and script (``annotate_item.html`` with
``practice`` set), so the round trains the real interface: the same keys, the text that stays
in view, the choices docked at the bottom of a phone; the answer comes back on the same page.
Practice pairs are the researcher's own examples, not system outputs: they name no system.
"""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.forms import SIDES, JudgementForm
from annotation.guidelines import GUIDELINES_BY_CODE
from annotation.models import ASPECTS, Aspect, CampaignAnnotator, PracticeAnswer, PracticeItem
from annotation.services.errors import AnnotationError
from annotation.services.quality_control import PracticeState, answer_practice, practice_state, retake_practice
from annotation.views.annotate import annotator_campaigns, continue_url
from annotation.views.closed import closed_campaign_page, closed_campaigns, get_or_closed
from annotation.views.guidelines import guideline_html, guidelines_html
from core.signed_in import SignedInRequest

SHOWN_ANSWER = {"a": "A better", "b": "B better", "tie": "Tie"}
SHOWN_SIDE = {"a": "left", "b": "right", "tie": "tie"}


def own_membership(request: SignedInRequest, campaign_id: int) -> CampaignAnnotator:
    """The annotator's membership of an open campaign they annotate that has a practice round; else
    404, or ``CampaignClosed`` when the campaign is closed."""
    membership = get_or_closed(
        CampaignAnnotator.objects.select_related("campaign"),
        closed_campaigns(request.user).filter(pk=campaign_id),
        campaign__in=annotator_campaigns(request.user),
        campaign_id=campaign_id,
        annotator=request.user,
    )
    if not membership.campaign.practice_items.exists():
        raise Http404("This campaign has no practice round.")
    return membership


def aspect_rows(
    item: PracticeItem, answer: PracticeAnswer | None = None, posted: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The aspects the practice item asks, with the reference answer and the annotator's, once
    given; before that, the choices of a refused answer (``posted``), kept."""
    rows: list[dict[str, Any]] = []
    for code in ASPECTS:
        if code not in item.reference:
            continue
        row = {
            "code": code,
            "name": Aspect(code).label,
            "question": GUIDELINES_BY_CODE[code].question,
            "guideline_html": guideline_html(code),
            "selected": (posted or {}).get(code, ""),
        }
        if answer is not None:
            given = answer.answers.get(code)
            row.update(
                given=SHOWN_ANSWER.get(given, "–"),
                reference=SHOWN_ANSWER[item.reference[code]],
                selected=SHOWN_SIDE.get(given, ""),
                correct=given == item.reference[code],
                locked=True,  # answered: shown, no longer chosen
            )
        rows.append(row)
    return rows


def render_practice(
    request: SignedInRequest,
    membership: CampaignAnnotator,
    state: PracticeState,
    item: PracticeItem,
    *,
    answer: PracticeAnswer | None = None,
    posted: dict[str, str] | None = None,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    campaign = membership.campaign
    number = state.items.index(item) + 1
    context = {
        "practice": {
            "state": state,
            "item": item,
            "number": number,
            "answer": answer,
            "next_url": reverse("annotation:annotate_practice", args=[campaign.pk]),
        },
        "campaign": campaign,
        "stage": "first",
        "text_content": item.text,
        "left_triples": item.triples_a,
        "right_triples": item.triples_b,
        "aspects": aspect_rows(item, answer, posted),
        "sides": SIDES,
        "error": error,
        "continue_url": continue_url(campaign.pk),
        "guidelines_html": guidelines_html(),
    }
    return render(request, "annotation/annotate_item.html", context, status=status)


def refuse_answer(
    request: SignedInRequest,
    membership: CampaignAnnotator,
    state: PracticeState,
    item: PracticeItem,
    error: str,
    posted: dict[str, str] | None = None,
) -> HttpResponse:
    """An answer not taken: the script gets the reason, the plain form its page back with the choices."""
    if request.headers.get("Accept", "").startswith("application/json"):
        return JsonResponse({"saved": False, "message": error}, status=400)
    return render_practice(request, membership, state, item, posted=posted, error=error, status=400)


@closed_campaign_page
@login_required
@require_http_methods(["GET", "POST"])
def practice(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    """The next practice pair of the attempt under way (GET), its answer (POST), or, when every
    pair is answered, the result with the way on: the real items, or a retake."""
    membership = own_membership(request, campaign_id)
    state = practice_state(membership)
    item = state.next_item
    if request.method == "GET":
        if state.passed or item is None:  # passed, or finished
            return render(request, "annotation/practice_result.html", {"campaign": membership.campaign, "state": state})
        return render_practice(request, membership, state, item)

    if item is None:
        return redirect("annotation:annotate_practice", campaign_id)
    form = JudgementForm({**request.POST.dict(), "version": 0})
    if not form.is_valid():
        return refuse_answer(request, membership, state, item, form.error_message())
    try:
        answer_practice(membership, item, form.labels())
    except AnnotationError as refusal:
        return refuse_answer(request, membership, state, item, str(refusal), posted=form.labels())
    feedback = reverse("annotation:annotate_practice_feedback", args=[campaign_id, state.items.index(item) + 1])
    if request.headers.get("Accept", "").startswith("application/json"):
        return JsonResponse({"saved": True, "message": "Answer taken.", "next_url": feedback})
    return redirect(feedback)


@closed_campaign_page
@login_required
@require_GET
def practice_feedback(request: SignedInRequest, campaign_id: int, number: int) -> HttpResponse:
    """A practice pair answered in the attempt under way: the answers beside the reference, and why."""
    membership = own_membership(request, campaign_id)
    state = practice_state(membership)
    if not 1 <= number <= len(state.items) or state.items[number - 1].pk not in state.answers:
        return redirect("annotation:annotate_practice", campaign_id)
    item = state.items[number - 1]
    return render_practice(request, membership, state, item, answer=state.answers[item.pk])


@closed_campaign_page
@login_required
@require_POST
def practice_retake(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    membership = own_membership(request, campaign_id)
    try:
        retake_practice(membership)
    except AnnotationError as refusal:
        messages.error(request, str(refusal))
    return redirect("annotation:annotate_practice", campaign_id)
