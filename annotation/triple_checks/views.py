"""Pages of triple-check campaigns: staff's list, creation and report; the annotator's triple page.

The annotator's page shows one text and one triple, addressed by the label's random
``public_id``: nothing on it names the system that wrote the triple, the item or the output.
A label belongs to its annotator only; anyone else gets 404, as for a label that does not exist.
"""

import csv
from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.forms import possible_annotators
from annotation.services.errors import AnnotationError, CampaignError
from annotation.triple_checks.adjudication import disagreements
from annotation.triple_checks.forms import TripleCheckForm
from annotation.triple_checks.models import MAX_FACTS, TripleCheck, TripleLabel
from annotation.triple_checks.practice_views import own_campaign, practice_url
from annotation.triple_checks.queries import LABEL_FIELDS, annotator_progress, judge_report, label_records
from annotation.triple_checks.services import (
    add_annotator,
    closed_triple_checks,
    create_triple_check,
    next_label,
    own_labels,
    practice_state,
    previous_label,
    remove_annotator,
    save_label,
    skip_label,
)
from annotation.triple_checks.statistics import FACT_COUNTS
from annotation.views.campaigns import close_or_reopen
from annotation.views.closed import closed_campaign_page, get_or_closed
from core.permissions import staff_required
from core.signed_in import SignedInRequest
from scoring.upload_handlers import refuse_oversized_file

STAFF_ONLY = "Triple-check campaigns are for staff."
QUESTIONS = [("fs", "Supported by the text (factualness)"), ("gs", "Facts in the triple (granularity)")]


@require_http_methods(["GET", "POST"])
@staff_required(STAFF_ONLY)
def triple_check_list(request: SignedInRequest) -> HttpResponse:
    form = TripleCheckForm(request.POST or None, request.FILES or None)
    if request.method == "POST":
        refuse_oversized_file(request, form, "practice_file")
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            campaign = create_triple_check(
                data["name"], data["dataset"], list(data["systems"]), list(data["annotators"]),
                judge_setting=data["judge_setting"], per_stratum=data["per_stratum"],
                overlap_share=data["overlap_share"], attention_share=data["attention_share"],
                practice=data["practice_file"], practice_pass_mark=form.pass_mark(),
                seed=data["sample_seed"], created_by=request.user,
            )  # fmt: skip
        except AnnotationError as error:
            form.add_error(None, str(error))
        else:
            messages.success(
                request, f"Triple-check campaign {campaign.name} created: {campaign.items.count()} triples."
            )
            return redirect(campaign)
    campaigns = TripleCheck.objects.select_related("dataset").order_by("-created_at", "-pk")
    return render(request, "annotation/triple_check_list.html", {"campaigns": campaigns, "form": form})


@require_GET
@staff_required(STAFF_ONLY)
def triple_check(request: SignedInRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(TripleCheck.objects.select_related("dataset"), pk=pk)
    context = {
        "campaign": campaign,
        "progress": annotator_progress(campaign),
        "report": judge_report(campaign.dataset, [campaign]),
        "unsettled": sum(each.adjudication is None for each in disagreements(campaign)),
        "questions": QUESTIONS,
        "candidates": possible_annotators().exclude(pk__in=campaign.annotators.values("pk")).order_by("username"),
    }
    return render(request, "annotation/triple_check.html", context)


@require_POST
@staff_required(STAFF_ONLY)
def triple_check_annotators(request: SignedInRequest, pk: int) -> HttpResponse:
    """Add an annotator (``add``: a user id) or remove one (``remove``), rebalancing pending triples."""
    campaign = get_object_or_404(TripleCheck, pk=pk)
    action = "add" if "add" in request.POST else "remove"
    chosen = request.POST.get(action, "")
    annotator = User.objects.filter(pk=int(chosen)).first() if chosen.isdigit() else None
    try:
        if annotator is None:
            raise CampaignError("Choose an annotator.")
        (add_annotator if action == "add" else remove_annotator)(campaign, annotator)
    except AnnotationError as refusal:
        messages.error(request, str(refusal))
    else:
        done = "joined" if action == "add" else "left"
        messages.success(request, f"{annotator.get_username()} {done} {campaign.name}; pending triples rebalanced.")
    return redirect(campaign)


@require_http_methods(["GET", "POST"])
@staff_required(STAFF_ONLY)
def triple_check_toggle_open(request: SignedInRequest, pk: int) -> HttpResponse:
    """Close (once confirmed) or reopen, as a pairwise campaign (``annotation.views.campaigns``)."""
    campaign = get_object_or_404(TripleCheck, pk=pk)
    pending = TripleLabel.objects.filter(item__campaign=campaign, saved_at__isnull=True)
    return close_or_reopen(
        request, campaign, pending, "triple", ("Triple checks", reverse("annotation:triple_check_list"))
    )


@require_GET
@staff_required(STAFF_ONLY)
def triple_check_labels(request: SignedInRequest, pk: int) -> HttpResponse:
    """Every saved label of the campaign as CSV (systems and annotators named: staff only)."""
    campaign = get_object_or_404(TripleCheck, pk=pk)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="triple-check-{campaign.pk}-labels.csv"'
    writer = csv.DictWriter(response, fieldnames=LABEL_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(label_records([campaign]))
    return response


@require_GET
@login_required
@closed_campaign_page
def triple_next(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    campaign = own_campaign(request, campaign_id)
    if not practice_state(request.user, campaign).passed:
        return redirect(practice_url(campaign_id))
    following = next_label(request.user, campaign_id)
    if following is None:
        messages.success(request, "Every triple of this campaign is labelled. Thank you!")
        return redirect("annotation:annotate_home")
    return redirect("annotation:triple_label", following.public_id)


@require_http_methods(["GET", "POST"])
@login_required
@closed_campaign_page
def triple_label(request: SignedInRequest, public_id: UUID) -> HttpResponse:
    label = own_label(request.user, public_id, "item__campaign", "item__text")
    # Real triples open once the practice round is passed, whatever URL is asked for.
    if not practice_state(request.user, label.item.campaign).passed:
        return redirect(practice_url(label.item.campaign_id))
    error = ""
    if request.method == "POST":
        try:
            save_label(
                label, request.POST.get("supported", ""), request.POST.get("facts", ""), request.POST.get("seconds", "")
            )
        except AnnotationError as refusal:
            error = str(refusal)
        else:
            return redirect(reverse("annotation:triple_next", args=[label.item.campaign_id]))
    queue = own_labels(request.user).filter(item__campaign_id=label.item.campaign_id)
    context = {
        "label": label,
        "campaign": label.item.campaign,
        "text_content": label.item.text.content,
        "triple": label.item.triple,
        "done": queue.answered().count(),
        "assigned": queue.count(),
        "fact_counts": FACT_COUNTS,
        "max_facts": MAX_FACTS,
        "error": error,
        "previous": previous_label(label),
        "chosen_supported": request.POST.get("supported") if error else shown_answer(label.supported),
        "chosen_facts": request.POST.get("facts") if error else str(label.facts or ""),
    }
    return render(request, "annotation/triple_label.html", context, status=400 if error else 200)


@require_POST
@login_required
@closed_campaign_page
def triple_skip(request: SignedInRequest, public_id: UUID) -> HttpResponse:
    label = own_label(request.user, public_id, "item")
    try:
        skip_label(label)
    except AnnotationError as refusal:
        messages.error(request, str(refusal))
        return redirect("annotation:triple_label", label.public_id)
    return redirect("annotation:triple_next", label.item.campaign_id)


def own_label(user: User, public_id: UUID, *related: str) -> TripleLabel:
    """The user's label; ``CampaignClosed`` when its campaign is closed; 404 for anyone else's."""
    closed = closed_triple_checks(user).filter(items__labels__public_id=public_id, items__labels__annotator=user)
    return get_or_closed(own_labels(user).select_related(*related), closed, public_id=public_id)


def shown_answer(supported: bool | None) -> str:
    """A support answer as the form's value: "yes", "no", or "" when there is none."""
    return "" if supported is None else "yes" if supported else "no"
