"""What an annotator meets in a campaign that staff closed, pairwise or triple check: a page that
says so (403), in place of the 404 that anything else not theirs to open gets. A script's save
gets the same words as JSON.

The getters of the annotator pages raise :class:`CampaignClosed` when what was asked for is the
annotator's own, in a campaign they still annotate, that is closed (:func:`closed_campaigns`,
``annotation.triple_checks.services.closed_triple_checks``); :func:`closed_campaign_page` turns
it into the page.
"""

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from django.contrib.auth.models import User
from django.db.models import Model, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render

from annotation.models import Campaign, TripleCheck

M = TypeVar("M", bound=Model)
View = TypeVar("View", bound=Callable[..., HttpResponse])


class CampaignClosed(Exception):
    def __init__(self, campaign: Campaign | TripleCheck) -> None:
        super().__init__(f"The campaign {campaign.name} is closed.")
        self.campaign = campaign


def closed_campaigns(user: User) -> QuerySet[Campaign]:
    """The closed pairwise campaigns ``user`` still annotates."""
    return Campaign.objects.filter(
        is_open=False, is_imported=False, memberships__annotator=user, memberships__active=True
    )


def raise_if_closed(closed: QuerySet[Campaign] | QuerySet[TripleCheck]) -> None:
    """:class:`CampaignClosed` for the first of ``closed``, if any."""
    campaign = closed.first()
    if campaign is not None:
        raise CampaignClosed(campaign)


def get_or_closed(queryset: QuerySet[M], closed: QuerySet[Campaign] | QuerySet[TripleCheck], **lookup: Any) -> M:
    """``get_object_or_404(queryset, **lookup)``; but when ``closed`` (the closed campaigns the
    user annotates that hold what was asked for) has one, :class:`CampaignClosed` instead of the 404."""
    try:
        return get_object_or_404(queryset, **lookup)
    except Http404:
        raise_if_closed(closed)
        raise


def closed_campaign_page(view: View) -> View:
    """The annotator view, whose ``CampaignClosed`` becomes the "campaign closed" page (JSON for a script)."""

    @wraps(view)
    def view_or_closed_page(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except CampaignClosed as closed:
            message = f"{closed} Your judgements so far are kept; nothing more can be judged until staff reopen it."
            if request.headers.get("Accept", "").startswith("application/json"):
                return JsonResponse({"saved": False, "message": message}, status=403)
            return render(
                request,
                "annotation/campaign_closed.html",
                {"campaign": closed.campaign, "message": message},
                status=403,
            )

    return cast(View, view_or_closed_page)
