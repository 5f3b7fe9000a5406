"""Scoring runs in the browser: start one from a dataset (with an estimate first), watch, cancel, resume."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.permissions import VIEW_OUTPUTS, check_not_blind, staff_required
from core.signed_in import SignedInRequest
from scoring.forms import RunForm
from scoring.genres.judges.base import RequestCount
from scoring.genres.prompts import templates_from_texts
from scoring.healing import resume_run
from scoring.jobs import enqueue_run, estimate_judge_requests
from scoring.models import Dataset
from scoring.models.chunked import ChunkedRun
from scoring.models.runs import RunRefused, ScoringRun
from scoring.progress import publish_progress
from scoring.score_tables import score_table
from scoring.views.pages import STAFF_ONLY


def run_for(pk: int) -> ScoringRun:
    return get_object_or_404(ScoringRun.objects.select_related("dataset", "created_by"), pk=pk)


def judge_estimate(form: RunForm) -> RequestCount | None:
    """The judge requests the form's run would make (its defaults before a submit); None while the
    choices are invalid or the judge cannot be set up (an error on ``judge`` then says why)."""
    choices = form.choices()
    if choices is None:
        return None
    systems, metrics, _embedder, judge = choices
    try:
        templates = templates_from_texts(form.prompt_templates())
        return estimate_judge_requests(form.dataset, systems, metrics, judge, templates)
    except ValueError as error:  # the judge cannot be set up, e.g. no OpenAI key
        form.add_error("judge", str(error))
        return None


def start_run(form: RunForm, user: User) -> ScoringRun:
    """Create the run of a valid form (one whose estimate was made) and queue its chunks; raises
    ``RunRefused`` saying why it cannot run. The page and the API both start runs here."""
    data = form.cleaned_data
    run = ScoringRun.create(
        form.dataset,
        list(data["systems"]),
        data["metrics"],
        form.score_settings(),
        user=user,
        chunk_texts=data["chunk_texts"],
    )
    enqueue_run(run)
    return run


@staff_required(STAFF_ONLY)
@require_http_methods(["GET", "POST"])
def run_new(request: SignedInRequest, name: str) -> HttpResponse:
    dataset = get_object_or_404(Dataset, name=name)
    form = RunForm(dataset, request.POST or None)
    choices = form.choices()  # before the estimate, which may add an error on the judge
    estimate = judge_estimate(form)
    if request.method == "POST" and request.POST.get("action") == "start" and estimate is not None:
        try:
            run = start_run(form, request.user)
        except RunRefused as error:
            form.add_error(None, str(error))
        else:
            chunks = run.chunks.count()
            messages.success(request, f"Scoring run {run.pk} queued: {chunks} chunk{pluralize(chunks)}.")
            return redirect(run)
    status = 400 if form.errors else 200
    context = {"dataset": dataset, "form": form, "estimate": estimate, "judge": choices[3] if choices else None}
    return render(request, "scoring/run_new.html", context, status=status)


@login_required
@permission_required(VIEW_OUTPUTS, raise_exception=True)
@require_GET
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = run_for(pk)
    check_not_blind(request.user, run.dataset)
    return render(
        request,
        "scoring/run_detail.html",
        {
            "run": run,
            "state": run.progress_state(),
            "systems": run.systems.order_by("-is_ground_truth", "name"),
            "score_table": score_table(run.system_scores.select_related("system"), run.heuristic_judge),
        },
    )


@login_required
@permission_required(VIEW_OUTPUTS, raise_exception=True)
@require_GET
def run_progress(request: HttpRequest, pk: int) -> JsonResponse:
    """The page's fallback when its websocket is down: the same state the socket sends."""
    run = run_for(pk)
    check_not_blind(request.user, run.dataset)
    return JsonResponse(run.progress_state())


@staff_required(STAFF_ONLY)
@require_POST
def run_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    return cancel_and_say(request, run_for(pk), "running chunks stop at their next system")


@staff_required(STAFF_ONLY)
@require_POST
def run_resume(request: HttpRequest, pk: int) -> HttpResponse:
    return resume_and_say(request, run_for(pk))


def cancel_and_say(request: HttpRequest, run: ChunkedRun, what_stops: str) -> HttpResponse:
    """Cancel a scoring or generation run, say so (or why not), and go back to its page."""
    if run.cancel():
        publish_progress(run)
        messages.success(request, f"{run} cancelled: {what_stops}.")
    else:
        messages.error(request, f"{run} is {run.get_status_display().lower()}; there is nothing to cancel.")
    return redirect(run)


def resume_and_say(request: HttpRequest, run: ChunkedRun) -> HttpResponse:
    """Resume a scoring or generation run, say what was queued again (or why not), and go back to its page."""
    try:
        queued = resume_run(run)
    except ValueError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"{run} resumed: {queued} unfinished chunk{pluralize(queued)} queued again.")
    return redirect(run)
