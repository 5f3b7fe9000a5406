"""The campaign quality page (staff only): per annotator agreement, attention checks, practice,
time and flags (``annotation.quality``); leaving an annotator out of ratings and back in; a new
practice round."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotation import quality
from annotation.forms import ExclusionForm, PracticeUploadForm
from annotation.models import Campaign
from annotation.services.quality_control import replace_practice_items, set_exclusion
from annotation.views.campaigns import STAFF_ONLY
from core.permissions import staff_required
from core.signed_in import SignedInRequest


def render_quality(
    request: SignedInRequest, campaign: Campaign, upload_form: PracticeUploadForm | None = None, status: int = 200
) -> HttpResponse:
    context = {
        "campaign": campaign,
        "rows": quality.campaign_quality(campaign),
        "matrix": quality.agreement_matrix(campaign),
        "practice_items": campaign.practice_items.count(),
        "attention_checks": campaign.items.exclude(attention_worse="").count(),
        "upload_form": upload_form
        or PracticeUploadForm(initial={"practice_pass_percent": round(campaign.practice_pass_mark * 100)}),
        "rules": {
            "attention": quality.MIN_ATTENTION_ACCURACY,
            "gap": quality.AGREEMENT_GAP,
            "pairs": quality.MIN_PAIRS,
            "seconds": quality.MIN_MEDIAN_SECONDS,
        },
    }
    return render(request, "annotation/campaign_quality.html", context, status=status)


@require_GET
@staff_required(STAFF_ONLY)
def campaign_quality(request: SignedInRequest, pk: int) -> HttpResponse:
    return render_quality(request, get_object_or_404(Campaign.objects.select_related("dataset"), pk=pk))


@require_POST
@staff_required(STAFF_ONLY)
def campaign_exclusion(request: SignedInRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=pk)
    form = ExclusionForm(campaign, request.POST)
    if not form.is_valid():
        messages.error(
            request, "Choose an annotator of this campaign and whether to leave them out or take them back in."
        )
        return redirect("annotation:campaign_quality", campaign.pk)
    annotator, excluded = form.cleaned_data["annotator"], form.cleaned_data["excluded"]
    set_exclusion(campaign, annotator, excluded=excluded, changed_by=request.user)
    name = annotator.get_username()
    if excluded:
        messages.success(
            request, f"{name}'s judgements are left out of ratings and agreement; the leaderboard is being rebuilt."
        )
    else:
        messages.success(request, f"{name}'s judgements count again; the leaderboard is being rebuilt.")
    return redirect(reverse("annotation:campaign_quality", args=[campaign.pk]) + f"#annotator-{name}")


@require_POST
@staff_required(STAFF_ONLY)
def campaign_practice_upload(request: SignedInRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("dataset"), pk=pk)
    form = PracticeUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return render_quality(request, campaign, upload_form=form, status=400)
    campaign.practice_pass_mark = form.cleaned_data["practice_pass_percent"] / 100
    campaign.save(update_fields=["practice_pass_mark"])
    records = form.cleaned_data["practice_file"]
    replace_practice_items(campaign, records)
    messages.success(request, f"Practice round replaced: {len(records)} pairs; every annotator takes it afresh.")
    return redirect("annotation:campaign_quality", campaign.pk)
