"""Downloads of a campaign's judgements (CSV, JSON Lines, Parquet), in the page and by API token,
and the page that lists the campaigns whose downloads the user may take.

Staff download any campaign's, with annotators' user names. Researchers (``scoring.view_output``
without staff) download a closed campaign's, annotators pseudonymised; an open campaign's stay
staff only. Annotators get 403. The page answers the signed-out with the sign-in page, the API
(``Authorization: Token <key>``, no session) with 401.
"""

from typing import cast

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from annotation import exports
from annotation.models import Campaign
from annotation.queue_progress import campaign_counts
from core.permissions import VIEW_OUTPUTS
from core.signed_in import SignedInRequest
from scoring.views.api import View, allow_methods, error, token_user

FORMATS = {
    "csv": (exports.csv_lines, "text/csv; charset=utf-8"),
    "jsonl": (exports.jsonl_lines, "application/x-ndjson; charset=utf-8"),
    "parquet": (exports.parquet_chunks, exports.PARQUET_TYPE),
}
NOT_A_READER = "Campaign exports are for staff and researchers."
STILL_OPEN = (
    "This campaign is still open: its exports are for staff until it is closed, so that no one "
    "reads the judgements while annotators are still making them."
)


def refusal(user: User, campaign: Campaign) -> str | None:
    """Why ``user`` may not download ``campaign``'s exports, or None when they may."""
    if user.is_staff:
        return None
    if not user.has_perm(VIEW_OUTPUTS):
        return NOT_A_READER
    return STILL_OPEN if campaign.is_open else None


def readable_campaigns(user: User) -> QuerySet[Campaign]:
    """The campaigns whose judgements ``user`` may read, as :func:`refusal` decides one by one."""
    campaigns = Campaign.objects.select_related("dataset")
    if user.is_staff:
        return campaigns
    if not user.has_perm(VIEW_OUTPUTS):
        return campaigns.none()
    return campaigns.filter(is_open=False)


def download(user: User, campaign: Campaign, file_format: str) -> StreamingHttpResponse:
    """The export as an attachment; pseudonymised for anyone but staff."""
    lines, content_type = FORMATS[file_format]
    response = StreamingHttpResponse(lines(campaign, not user.is_staff), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.pk}-judgements.{file_format}"'
    return response


@require_GET
@login_required
def campaign_exports(request: SignedInRequest) -> HttpResponse:
    """The page of the campaigns whose judgements the user may download, with the links."""
    if not (request.user.is_staff or request.user.has_perm(VIEW_OUTPUTS)):
        raise PermissionDenied(NOT_A_READER)
    campaigns = readable_campaigns(request.user).annotate(**campaign_counts()).order_by("-created_at", "-pk")
    return render(request, "annotation/campaign_exports.html", {"campaigns": campaigns})


@require_GET
@login_required
def campaign_export(request: SignedInRequest, pk: int, file_format: str) -> StreamingHttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("dataset"), pk=pk)
    reason = refusal(request.user, campaign)
    if reason:
        raise PermissionDenied(reason)
    return download(request.user, campaign, file_format)


def campaign_export_by_token(request: HttpRequest, pk: int, file_format: str) -> HttpResponseBase:
    user = token_user(request)
    if isinstance(user, JsonResponse):
        return user
    campaign = Campaign.objects.select_related("dataset").filter(pk=pk).first()
    if campaign is None:
        return error(f"No campaign {pk}.", 404)
    reason = refusal(user, campaign)
    if reason:
        return error(reason, 403)
    return download(user, campaign, file_format)


# The API's JSON 405 for another method; allow_methods is typed for the API's HttpResponse views,
# and a download streams.
campaign_export_api = csrf_exempt(allow_methods("GET")(cast(View, campaign_export_by_token)))
