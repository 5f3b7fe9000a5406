"""Campaign pages for staff: list, create, progress and agreement, annotators.

Annotators never reach these: a signed-in user who is not staff gets 403, anyone else the
sign-in page. The work itself happens in ``annotation.services``; the downloads are in ``exports``.
"""

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.db.models import QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation import agreement, judgement_queries
from annotation.forms import AnnotatorChangeForm, CampaignCreateForm
from annotation.models import ASPECTS, Aspect, Assignment, Campaign, TripleCheck
from annotation.queue_progress import campaign_counts
from annotation.services.campaigns import add_annotator, create_campaign, remove_annotator, toggle_open
from annotation.services.errors import CampaignError
from core.permissions import staff_required
from core.signed_in import SignedInRequest
from scoring.upload_handlers import refuse_oversized_file

STAFF_ONLY = "Campaign pages are for staff."


@require_GET
@staff_required(STAFF_ONLY)
def campaign_list(request: SignedInRequest) -> HttpResponse:
    campaigns = Campaign.objects.select_related("dataset").annotate(**campaign_counts())
    return render(request, "annotation/campaign_list.html", {"campaigns": campaigns})


@require_http_methods(["GET", "POST"])
@staff_required(STAFF_ONLY)
def campaign_create(request: SignedInRequest) -> HttpResponse:
    form = CampaignCreateForm(request.POST or None, request.FILES or None)
    if request.method == "POST":
        refuse_oversized_file(request, form, "practice_file")
    if request.method == "POST" and form.is_valid():
        try:
            created = create_campaign(created_by=request.user, **form.service_arguments())
        except CampaignError as error:
            form.add_error(None, str(error))
        else:
            campaign = created.campaign
            items, texts = campaign.items.count(), campaign.texts.count()
            messages.success(
                request,
                f"Campaign {campaign.name} created: {items} item{pluralize(items)} on {texts} text{pluralize(texts)}.",
            )
            if created.texts_left_out:
                messages.warning(
                    request,
                    f"{created.texts_left_out} texts of {campaign.dataset.name} lack an output of a chosen system "
                    "and were left out of the sample.",
                )
            return redirect(campaign)
    context = {"form": form, "public_leaderboards": settings.GENRES_PUBLIC_LEADERBOARD}
    return render(request, "annotation/campaign_create.html", context)


def agreement_rows(campaign: Campaign) -> list[dict]:
    campaigns = judgement_queries.campaigns_of(campaign.dataset, campaign)
    figures = agreement.agreement(judgement_queries.agreement_judgements(campaigns))
    return [{"aspect": Aspect(code), **figures[code]} for code in ASPECTS]


@require_GET
@staff_required(STAFF_ONLY)
def campaign_detail(request: SignedInRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("dataset", "created_by"), pk=pk)
    assignments = Assignment.objects.filter(item__campaign=campaign)
    context = {
        "campaign": campaign,
        "systems": campaign.systems.all(),
        "text_count": campaign.texts.count(),
        "item_count": campaign.items.filter(attention_worse="").count(),
        "attention_count": campaign.items.exclude(attention_worse="").count(),
        "assignment_count": assignments.count(),
        "done_count": assignments.filter(status=Assignment.Status.DONE).count(),
        "doubly_judged_texts": campaign.doubly_judged_texts(),
        "progress": campaign.annotator_progress(),
        "agreement": agreement_rows(campaign),
        "annotator_form": AnnotatorChangeForm(),
        "rating_label_choices": Campaign.RatingLabels.choices,
    }
    return render(request, "annotation/campaign_detail.html", context)


@require_POST
@staff_required(STAFF_ONLY)
def campaign_annotators(request: SignedInRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    form = AnnotatorChangeForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose an annotator and whether to add or remove them.")
        return redirect(campaign)
    annotator = form.cleaned_data["annotator"]
    change = add_annotator if form.cleaned_data["action"] == form.ADD else remove_annotator
    try:
        summary = change(campaign, annotator)
    except CampaignError as error:
        messages.error(request, str(error))
    else:
        verb = "added" if change is add_annotator else "removed"
        messages.success(request, f"{annotator.get_username()} {verb}; queues rebalanced: {summary}.")
    return redirect(campaign)


@require_http_methods(["GET", "POST"])
@staff_required(STAFF_ONLY)
def campaign_toggle_open(request: SignedInRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    pending = Assignment.objects.filter(item__campaign=campaign, status=Assignment.Status.PENDING)
    return close_or_reopen(request, campaign, pending, "assignment", ("Campaigns", reverse("annotation:campaign_list")))


def close_or_reopen(
    request: SignedInRequest,
    campaign: Campaign | TripleCheck,
    pending: QuerySet[Any],
    pending_noun: str,
    listed_in: tuple[str, str],
) -> HttpResponse:
    """Reopen a closed campaign at once; close an open one only once confirmed: the GET, or a POST
    without ``confirm``, shows what closing stops (``pending`` work, with its ``annotator_id``),
    with the button that closes it; ``listed_in``: the name and address of the campaigns' list.
    Pairwise campaigns and triple checks alike."""
    if campaign.is_open and not (request.method == "POST" and request.POST.get("confirm") == "close"):
        context = {
            "campaign": campaign,
            "pending": pending.count(),
            "pending_noun": pending_noun,
            "annotators": pending.values("annotator_id").distinct().count(),
            "list_name": listed_in[0],
            "list_url": listed_in[1],
            "toggle_url": request.path,
        }
        return render(request, "annotation/campaign_close.html", context)
    if request.method == "GET":
        return redirect(campaign)
    try:
        toggle_open(campaign)
    except CampaignError as error:
        messages.error(request, str(error))
        return redirect(campaign)
    messages.success(request, f"Campaign {campaign.name} is {'open' if campaign.is_open else 'closed'}.")
    return redirect(campaign)
