"""The API's campaigns: list, read (with each annotator's progress), create (staff); their
judgements, paged and filtered; their agreement, as the quality page shows it.

The rules are the exports' (``annotation.views.exports``): staff read every campaign with user
names; researchers (the view-output permission) read closed campaigns, annotators pseudonymised
as in the exports; annotators read none. Every figure comes from the code the pages use:
``queue_progress`` for progress, ``quality.agreement_matrix`` for agreement, the export rows for
judgements.
"""

from collections.abc import Iterable
from typing import Any

from django.db.models import OuterRef
from django.http import JsonResponse
from django.urls import reverse

from annotation import quality
from annotation.exports import CampaignFacts, export_judgements, judgement_record, member_pseudonyms, pseudonyms
from annotation.forms import CampaignApiForm
from annotation.models import ASPECTS, Campaign, Judgement
from annotation.queue_progress import campaign_counts, progress_annotations, queue_progress
from annotation.services.campaigns import create_campaign
from annotation.services.errors import CampaignError
from annotation.views.exports import FORMATS, NOT_A_READER, readable_campaigns, refusal
from core.permissions import VIEW_OUTPUTS
from core.signed_in import SignedInRequest
from scoring.upload_handlers import body_length_unknown, length_required_message
from scoring.views.api import allow_methods, error, invalid_form, token_required
from scoring.views.api_pages import QueryRefused, one_of, paged, query_errors, whole_number

CAMPAIGN_READERS = f"{NOT_A_READER} Creating a campaign is for staff."
AGREEMENT_FIGURES = ("accuracy", "kappa", "fleiss", "alpha", "items", "pairs")


def campaign_record(campaign: Any) -> dict[str, Any]:
    """A campaign annotated with ``campaign_counts``, as the API answers it."""
    return {
        "id": campaign.pk,
        "name": campaign.name,
        "dataset": campaign.dataset.name,
        "open": campaign.is_open,
        "imported": campaign.is_imported,
        "created_at": campaign.created_at.isoformat(),
        "pair_order": campaign.pair_order,
        "rating_labels": campaign.rating_labels,
        "overlap_share": campaign.overlap_share,
        "attention_share": campaign.attention_share,
        "items": campaign.item_count,
        "assignments": campaign.assignment_count,
        "assignments_done": campaign.done_count,
        "judgements": campaign.judgement_count,
        "annotators": campaign.annotator_count,
        "url": reverse("annotation:api_campaign", args=[campaign.pk]),
    }


def readable_campaign(user: Any, pk: int) -> Campaign:
    """Campaign ``pk``; ``QueryRefused`` with the 404, or the 403 saying why ``user`` may not read it."""
    campaign = Campaign.objects.select_related("dataset").filter(pk=pk).first()
    if campaign is None:
        raise QueryRefused(f"No campaign {pk}.", status=404)
    reason = refusal(user, campaign)
    if reason:
        raise QueryRefused(reason, status=403)
    return campaign


@token_required(read_permission=VIEW_OUTPUTS, refusal=CAMPAIGN_READERS)
@allow_methods("GET", "POST")
@query_errors
def campaigns(request: SignedInRequest) -> JsonResponse:
    """GET: the campaigns the user may read, oldest first. POST (staff): create one."""
    if request.method == "POST":
        return create(request)
    listed = readable_campaigns(request.user).annotate(**campaign_counts()).order_by("pk")
    return paged(request, listed, "campaigns", lambda page: map(campaign_record, page))


def create(request: SignedInRequest) -> JsonResponse:
    """The campaign form's fields (dataset, systems and annotators by name), checked as the page
    checks them; 201 and the campaign, or 400 naming each invalid field and why."""
    if body_length_unknown(request):
        return error(length_required_message(), 411)
    form = CampaignApiForm(request.POST, request.FILES)
    refused = getattr(request, "upload_refused", None)
    if refused:
        return error(refused, 413)
    if not form.is_valid():
        return invalid_form(form)
    try:
        created = create_campaign(created_by=request.user, **form.service_arguments())
    except CampaignError as refusal_of_service:
        form.add_error(None, str(refusal_of_service))
        return invalid_form(form)
    reply = campaign_detail_record(created.campaign, request.user)
    return JsonResponse({**reply, "texts_left_out": created.texts_left_out}, status=201)


def progress_records(campaign: Campaign, pseudonymise: bool) -> list[dict[str, Any]]:
    """Each annotator who joined, in order of joining: their queue's pairs, pairs judged and judgements."""
    names = member_pseudonyms(campaign) if pseudonymise else None
    memberships = (
        campaign.memberships.select_related("annotator")
        .annotate(**progress_annotations(campaign.pk, OuterRef("annotator_id")))
        .order_by("added_at", "pk")
    )
    records = []
    for membership in memberships:
        progress = queue_progress(membership)
        records.append(
            {
                "annotator": names[membership.annotator_id] if names else membership.annotator.get_username(),
                "active": membership.active,
                "excluded": membership.excluded,
                "pairs": progress.pairs,
                "pairs_judged": progress.pairs_judged,
                "judgements": progress.judgements,
                "judgements_asked": progress.judgements_asked,
            }
        )
    return records


def campaign_detail_record(campaign: Campaign, user: Any) -> dict[str, Any]:
    counted = Campaign.objects.select_related("dataset").annotate(**campaign_counts()).get(pk=campaign.pk)
    return {
        **campaign_record(counted),
        "systems": sorted(campaign.systems.values_list("name", flat=True)),
        "texts": campaign.texts.count(),
        "progress": progress_records(campaign, pseudonymise=not user.is_staff),
        "agreement_url": reverse("annotation:api_campaign_agreement", args=[campaign.pk]),
        "judgements_url": reverse("annotation:api_judgements") + f"?campaign={campaign.pk}",
        "exports": {suffix: reverse(f"annotation:api_campaign_{suffix}", args=[campaign.pk]) for suffix in FORMATS},
    }


@token_required(read_permission=VIEW_OUTPUTS, refusal=NOT_A_READER)
@allow_methods("GET")
@query_errors
def campaign(request: SignedInRequest, pk: int) -> JsonResponse:
    return JsonResponse(campaign_detail_record(readable_campaign(request.user, pk), request.user))


@token_required(read_permission=VIEW_OUTPUTS, refusal=NOT_A_READER)
@allow_methods("GET")
@query_errors
def campaign_agreement(request: SignedInRequest, pk: int) -> JsonResponse:
    """The quality page's agreement: per aspect, and annotator × annotator pooled over the aspects."""
    found = readable_campaign(request.user, pk)
    matrix = quality.agreement_matrix(found, None if request.user.is_staff else pseudonyms(found))
    return JsonResponse(
        {
            "campaign": found.pk,
            "aspects": {row["aspect"].value: {key: row[key] for key in AGREEMENT_FIGURES} for row in matrix.aspects},
            "annotators": matrix.names,
            "matrix": {
                figure: [[cell[position] for cell in cells] for _, cells in matrix.rows]
                for position, figure in enumerate(("accuracy", "kappa", "pairs"))
            },
        }
    )


def judgement_records(page: list[Judgement], pseudonymise: bool) -> Iterable[dict[str, Any]]:
    """The export rows of a page of judgements, which may span campaigns (each its own pseudonyms)."""
    campaign_ids = {judgement.assignment.item.campaign_id for judgement in page}
    facts = {
        campaign.pk: CampaignFacts.of(campaign, pseudonymise)
        for campaign in Campaign.objects.select_related("dataset").filter(pk__in=campaign_ids)
    }
    for judgement in page:
        campaign_id = judgement.assignment.item.campaign_id
        yield {"id": judgement.pk, "campaign_id": campaign_id, **judgement_record(judgement, facts[campaign_id])}


@token_required(read_permission=VIEW_OUTPUTS, refusal=NOT_A_READER)
@allow_methods("GET")
@query_errors
def judgements(request: SignedInRequest) -> JsonResponse:
    """Judgements of the campaigns the user may read (or of ``?campaign=``), in judgement order,
    of every aspect or ``?aspect=``: the export's rows, paged."""
    campaign_id, aspect = whole_number(request, "campaign"), one_of(request, "aspect", ASPECTS)
    if campaign_id is None:
        campaigns_read = readable_campaigns(request.user)
    else:
        campaigns_read = Campaign.objects.filter(pk=readable_campaign(request.user, campaign_id).pk)
    rows = export_judgements().filter(assignment__item__campaign__in=campaigns_read)
    if aspect:
        rows = rows.filter(aspect=aspect)
    return paged(request, rows, "judgements", lambda page: judgement_records(page, not request.user.is_staff))
