"""Annotator pages: campaigns home, the anonymous pairwise item page, saving, skipping, review, guidelines.

Anonymity is decided here: nothing rendered or returned names a system or carries the database
id of an item, a text or a system. Assignments are addressed only by their random ``public_id``,
and the two extractions are only "A" (left) and "B" (right), sides drawn per assignment.
"""

import time
from collections.abc import Iterable
from typing import Any
from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.paginator import Paginator
from django.db.models import Count, Max, OuterRef, Q, QuerySet, Subquery
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.timesince import timesince
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.forms import SIDES, JudgementForm
from annotation.guidelines import GUIDELINES_BY_CODE
from annotation.models import (
    ASPECTS,
    FIRST_ASPECTS,
    MAX_COMMENT_CHARS,
    Aspect,
    Assignment,
    Item,
    Label,
)
from annotation.queue_progress import progress_annotations, queue_progress
from annotation.services.errors import AnnotationError, VersionConflict
from annotation.services.judgements import Saved, save_judgements
from annotation.services.quality_control import practice_required
from annotation.services.queues import next_public_id, skip, text_progress
from annotation.triple_checks.services import annotator_triple_checks
from annotation.views.closed import closed_campaign_page, closed_campaigns, get_or_closed
from annotation.views.guidelines import guideline_html, guidelines_html
from annotation.views.own_assignments import (
    annotator_assignments,
    annotator_campaigns,
    get_own_assignment,
    get_own_assignment_to_save,
    has_practice_pending,
)
from core.compiled_queries import SAMPLE_IDS, CompiledQuery
from core.permissions import VIEW_OUTPUTS
from core.signed_in import SignedInRequest
from scoring.models import Output

# An assignment with what its query annotated (queue counts, practice_pending, last_change) and
# what the review list adds: attributes of the query, not of the model, so not typed.
AnnotatedAssignment = Any

REVIEW_PAGE_SIZE = 50


def _queue_count(**filters: Any) -> Subquery:
    """How many assignments of the same annotator and campaign match ``filters``, as a subquery."""
    queue = Assignment.objects.filter(
        annotator_id=OuterRef("annotator_id"), item__campaign_id=OuterRef("item__campaign_id")
    )
    # The filter sits in the count, not the WHERE: the group always has a row, so no count is NULL.
    counted = queue.order_by().values("annotator_id").annotate(count=Count("pk", filter=Q(**filters)))
    return Subquery(counted.values("count"))


def continue_url(campaign_id: int) -> str:
    return reverse("annotation:annotate_continue", args=[campaign_id])


def next_url(user: User, campaign_id: int) -> str:
    """The page of what comes next: the next item itself, sparing a redirect; at the end, the
    queue's own URL, which says that all is done."""
    following = next_public_id(user, campaign_id)
    if following is None:
        return continue_url(campaign_id)
    return reverse("annotation:annotate_item", args=[following])


def review_url(page: int, public_id: UUID) -> str:
    """The review list at ``page``, scrolled to the row of the item just changed."""
    query = f"?page={page}" if page else ""
    return f"{reverse('annotation:annotate_review')}{query}#item-{public_id}"


def previous_assignment(user: User, assignment: Assignment) -> Assignment | None:
    """The item the annotator saved before this one, in the same campaign, or None.

    "Before" is by the last change of a judgement, so pressing "previous" again walks further
    back through what was saved, whatever the queue order.
    """
    saved = (
        annotator_assignments(user)
        .filter(item__campaign_id=assignment.item.campaign_id, judgements__isnull=False)
        .annotate(last_change=Max("judgements__updated_at"))
    )
    own_change = assignment.judgements.aggregate(last=Max("updated_at"))["last"]
    earlier = saved.exclude(pk=assignment.pk)
    if own_change is not None:
        earlier = earlier.filter(last_change__lt=own_change)
    return earlier.order_by("-last_change", "-pk").first()


def shown_triples(assignment: Assignment) -> tuple[list[list[str]], list[list[str]]]:
    """The triples of the extraction on the left and on the right, as the annotator sees them."""
    a_triples, b_triples = item_triples(assignment.item)
    return (a_triples, b_triples) if assignment.a_on_left else (b_triples, a_triples)


def _pair_outputs(text_id: int, system_a_id: int, system_b_id: int) -> QuerySet[Output, tuple[int, Any]]:
    """(system id, triples) of the two systems' outputs of the text."""
    return Output.objects.filter(text_id=text_id, system_id__in=[system_a_id, system_b_id]).values_list(
        "system_id", "triples"
    )


# Every item page reads it: compiled once per process (``core.compiled_queries``).
pair_outputs = CompiledQuery(_pair_outputs, SAMPLE_IDS)


def item_triples(item: Item) -> tuple[list[list[str]], list[list[str]]]:
    """The triples of system A's and system B's extraction, in canonical order.

    The ground-truth system has no stored outputs: its extraction is the text's gold triples.
    """
    triples = dict(pair_outputs(item.text_id, item.system_a_id, item.system_b_id))
    for system in (item.system_a, item.system_b):
        if system.is_ground_truth:
            triples[system.pk] = item.text.gold
    a_triples, b_triples = triples.get(item.system_a_id, []), triples.get(item.system_b_id, [])
    # An attention check: one side shows the worse copy of the system's output.
    if item.attention_worse == Label.A:
        a_triples = item.attention_triples
    elif item.attention_worse == Label.B:
        b_triples = item.attention_triples
    return a_triples, b_triples


def render_item(
    request: SignedInRequest,
    assignment: AnnotatedAssignment,
    *,
    posted: dict[str, str] | None = None,
    posted_comment: str | None = None,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    """The item page, in one of three stages of the pair.

    "first": the four first aspects; "waiting": they are saved, but other pairs of the same text
    still lack theirs; "completeness": every pair of the text has them, so the gold triples and
    the completeness question are shown (``annotation.services.queues.TextProgress``).
    """
    progress = text_progress(assignment)
    left_triples, right_triples = shown_triples(assignment)
    saved = {aspect: label for aspect, (_, label) in progress.judgements[assignment.pk].items()}
    revealed = progress.gold_revealed
    if revealed:
        stage = "completeness"
    elif set(FIRST_ASPECTS) <= set(saved):
        stage = "waiting"
    else:
        stage = "first"
    aspects = [
        {
            "code": code,
            "name": Aspect(code).label,
            "question": GUIDELINES_BY_CODE[code].question,
            "guideline_html": guideline_html(code),
            "selected": (posted or {}).get(code)
            or (assignment.canonical_to_shown(saved[code]) if code in saved else ""),
            "locked": code in FIRST_ASPECTS and code in saved and progress.first_aspects_locked,
        }
        for code in (ASPECTS if revealed else FIRST_ASPECTS)
    ]
    campaign = assignment.item.campaign
    context = {
        "assignment": assignment,
        "campaign": campaign,
        "stage": stage,
        "revealed": revealed,
        "locked": progress.first_aspects_locked,
        "finished": assignment.status == Assignment.Status.DONE,
        "pairs": progress.pairs,
        "pair_number": progress.position(assignment.pk),
        "pairs_lacking": progress.lacking_first_aspects,
        "text_content": assignment.item.text.content,
        "left_triples": left_triples,
        "right_triples": right_triples,
        "aspects": aspects,
        "sides": SIDES,
        "version": assignment.version,
        "opened_at": f"{time.time():.3f}",
        "progress": queue_progress(assignment),
        "continue_url": continue_url(campaign.pk),
        "error": error,
        "comment": (posted_comment if posted_comment is not None else assignment.comment),
        "max_comment_chars": MAX_COMMENT_CHARS,
        "guidelines_html": guidelines_html(),
    }
    if revealed:
        context["gold_triples"] = assignment.item.text.gold
    return render(request, "annotation/annotate_item.html", context, status=status)


@login_required
@require_GET
def after_sign_in(request: SignedInRequest) -> HttpResponse:
    """Where signing in leads: staff and researchers to the datasets; annotators, who may not open
    the dataset pages (they name the systems), to their campaigns and "continue"."""
    if request.user.is_staff or request.user.has_perm(VIEW_OUTPUTS):
        return redirect("scoring:home")
    return redirect("annotation:annotate_home")


@login_required
@require_GET
def annotator_home(request: SignedInRequest) -> HttpResponse:
    campaigns = annotator_campaigns(request.user).annotate(
        **progress_annotations(OuterRef("pk"), request.user.pk),
        practice_pending=has_practice_pending(OuterRef("pk"), request.user.pk),
        assigned=Count("items__assignments", filter=Q(items__assignments__annotator=request.user)),
        done=Count(
            "items__assignments",
            filter=Q(items__assignments__annotator=request.user, items__assignments__status=Assignment.Status.DONE),
        ),
    )
    has_history = annotator_assignments(request.user).filter(judgements__isnull=False).exists()
    rows = [(campaign, queue_progress(campaign)) for campaign in campaigns]
    context = {"campaigns": rows, "has_history": has_history, "triple_checks": annotator_triple_checks(request.user)}
    return render(request, "annotation/home.html", context)


@closed_campaign_page
@login_required
@require_GET
def annotate_continue(request: SignedInRequest, campaign_id: int) -> HttpResponse:
    following = next_public_id(request.user, campaign_id)
    if following is None:
        campaign = get_or_closed(
            annotator_campaigns(request.user), closed_campaigns(request.user).filter(pk=campaign_id), pk=campaign_id
        )
        if practice_required(request.user, campaign.pk):
            return redirect("annotation:annotate_practice", campaign.pk)
        messages.success(request, f"Every item of {campaign.name} is judged. Thank you!")
        return redirect("annotation:annotate_home")
    return redirect("annotation:annotate_item", following)


def saved_message(saved: Saved) -> str:
    if saved.is_done:
        return "Saved. On to the next item."
    if saved.completed_first_aspects and saved.text.gold_revealed:
        if saved.text.pairs == 1:
            return "Saved. Now judge completeness against the reference triples."
        return (
            f"Saved. All {saved.text.pairs} pairs of this text have their four aspects: "
            "now completeness for each, against the reference triples."
        )
    if saved.completed_first_aspects:
        return "Saved. On to the next pair of this text; completeness comes once every pair has its four aspects."
    return "Saved."


@closed_campaign_page
@login_required
@require_http_methods(["GET", "POST"])
def annotate_item(request: SignedInRequest, public_id: UUID) -> HttpResponse:
    if request.method == "GET":
        assignment = get_own_assignment(request, public_id)
        if assignment.practice_pending:
            return redirect("annotation:annotate_practice", assignment.item.campaign_id)
        return render_item(request, assignment)

    assignment = get_own_assignment_to_save(request, public_id)
    wants_json = request.headers.get("Accept", "").startswith("application/json")
    if assignment.practice_pending:
        # The practice round was set after this page was opened: nothing is saved before it is passed.
        if wants_json:
            message = "This campaign now starts with a practice round: reload the page to take it."
            return JsonResponse({"saved": False, "message": message, "version": assignment.version}, status=409)
        return redirect("annotation:annotate_practice", assignment.item.campaign_id)
    form = JudgementForm(request.POST)
    if not form.is_valid():
        return refuse(request, assignment, form.error_message(), 400, wants_json)
    labels = form.labels()
    if not labels:
        return refuse(
            request, assignment, "Choose A better, tie or B better for an aspect before saving.", 400, wants_json
        )
    try:
        saved = save_judgements(
            assignment,
            labels,
            expected_version=form.cleaned_data["version"],
            seconds=form.seconds_spent(),
            comment=form.posted_comment(),
        )
    except VersionConflict as conflict:
        message = f"{conflict} Your choices are still on this page: save again to keep them instead."
        return refuse(
            request, assignment, message, 409, wants_json, posted=labels, posted_comment=form.posted_comment()
        )
    except AnnotationError as refusal:
        return refuse(
            request, assignment, str(refusal), 400, wants_json, posted=labels, posted_comment=form.posted_comment()
        )

    item_url = reverse("annotation:annotate_item", args=[assignment.public_id])
    # A finished stage of the pair moves on; a change that finishes nothing stays on the page.
    # An item reopened from the review list goes back there instead, whatever the save finished.
    moves_on = saved.is_done or saved.completed_first_aspects
    following: str | None
    if form.cleaned_data["return_to"] == "review":
        following = review_url(form.cleaned_data["review_page"], assignment.public_id)
    else:
        following = next_url(request.user, assignment.item.campaign_id) if moves_on else None
    message = saved_message(saved)
    if wants_json:
        return JsonResponse(
            {
                "saved": True,
                "message": message,
                "version": saved.assignment.version,
                "first_aspects_done": saved.first_aspects_done,
                "is_done": saved.is_done,
                "item_url": item_url,
                "next_url": following,
            }
        )
    messages.success(request, message)
    return redirect(following or item_url)


def refuse(
    request: SignedInRequest,
    assignment: Assignment,
    message: str,
    status: int,
    wants_json: bool,
    posted: dict[str, str] | None = None,
    posted_comment: str | None = None,
) -> HttpResponse:
    """A save that did not happen: the page or the script gets the reason and keeps the choices."""
    if wants_json:
        # The current version lets the annotator overwrite deliberately after a conflict.
        assignment.refresh_from_db(fields=["version"])
        return JsonResponse({"saved": False, "message": message, "version": assignment.version}, status=status)
    page_assignment = get_own_assignment(request, assignment.public_id)
    return render_item(
        request, page_assignment, posted=posted, posted_comment=posted_comment, error=message, status=status
    )


@closed_campaign_page
@login_required
@require_POST
def annotate_skip(request: SignedInRequest, public_id: UUID) -> HttpResponse:
    assignment = get_own_assignment_to_save(request, public_id)
    try:
        skip(assignment)
    except AnnotationError as refusal:
        messages.error(request, str(refusal))
        return redirect("annotation:annotate_item", assignment.public_id)
    messages.info(request, "Skipped: this text and its pairs wait at the end of your queue.")
    return redirect(next_url(request.user, assignment.item.campaign_id))


@closed_campaign_page
@login_required
@require_GET
def annotate_previous(request: SignedInRequest, public_id: UUID) -> HttpResponse:
    assignment = get_own_assignment_to_save(request, public_id)
    previous = previous_assignment(request.user, assignment)
    if previous is None:
        messages.info(request, "Nothing saved before this item in this campaign.")
        return redirect("annotation:annotate_item", assignment.public_id)
    return redirect("annotation:annotate_item", previous.public_id)


# What the review list shows for a choice, as the annotator saw it.
SHOWN_CHOICES = {"left": "A", "tie": "tie", "right": "B"}


def review_rows(assignments: Iterable[AnnotatedAssignment]) -> list[AnnotatedAssignment]:
    """Each assignment with what tells it apart in the review list: the choices as shown on its
    page (A, tie or B, in aspect order; None where not given) and how long ago it last changed."""
    now, rows = timezone.now(), list(assignments)
    for assignment in rows:
        given = {judgement.aspect: judgement.label for judgement in assignment.judgements.all()}
        assignment.choices = [
            (Aspect(code).label, SHOWN_CHOICES[assignment.canonical_to_shown(given[code])] if code in given else None)
            for code in ASPECTS
        ]
        age = now - assignment.last_change
        assignment.changed_ago = (
            "just now" if age.total_seconds() < 60 else f"{timesince(assignment.last_change, now)} ago"
        )
    return rows


@login_required
@require_GET
def annotate_review(request: SignedInRequest) -> HttpResponse:
    """Items the annotator has judged, most recently changed first, to reopen and change.

    Each row says where the item sits in the queue and which pair of its text it is, since
    the pairs of one text share the same excerpt."""
    judged = (
        annotator_assignments(request.user)
        .filter(judgements__isnull=False)
        .select_related("item__campaign", "item__text")
        .prefetch_related("judgements")
        .annotate(
            judged=Count("judgements"),
            last_change=Max("judgements__updated_at"),
            queue_size=_queue_count(),
            queue_number=_queue_count(queue_position__lte=OuterRef("queue_position")),
            text_pairs=_queue_count(item__text_id=OuterRef("item__text_id")),
            pair_number=_queue_count(
                item__text_id=OuterRef("item__text_id"), queue_position__lte=OuterRef("queue_position")
            ),
        )
        .order_by("-last_change", "-pk")
    )
    page = Paginator(judged, REVIEW_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "rows": review_rows(page.object_list),
        "aspect_count": len(ASPECTS),
        "aspect_names": [Aspect(code).label for code in ASPECTS],
    }
    return render(request, "annotation/annotate_review.html", context)
