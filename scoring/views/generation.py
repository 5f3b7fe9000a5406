"""Generation runs in the browser and the API: start one from a dataset (its estimate first), watch
it, cancel, resume, parse its replies again; the API starts one and reads its status."""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.permissions import VIEW_OUTPUTS, check_not_blind, staff_required
from core.signed_in import SignedInRequest
from scoring.generation_forms import GenerationForm
from scoring.generation_jobs import SystemTaken, parse_run
from scoring.genres.generation import DEFAULT_TEMPLATE_TEXT
from scoring.models import Dataset, GenerationRun, GenerationTemplate
from scoring.models.runs import RunRefused
from scoring.views.api import allow_methods, error, invalid_form, token_required
from scoring.views.api_catalogue import OUTPUT_READERS, readable_dataset
from scoring.views.runs import cancel_and_say, resume_and_say

STAFF_ONLY = "Only staff can run generation."
UNPARSED_SHOWN = 200


def run_for(pk: int) -> GenerationRun:
    return get_object_or_404(GenerationRun.objects.select_related("dataset", "template", "created_by"), pk=pk)


@staff_required(STAFF_ONLY)
@require_http_methods(["GET", "POST"])
def generation_new(request: SignedInRequest, name: str) -> HttpResponse:
    dataset = get_object_or_404(Dataset, name=name)
    form = GenerationForm(dataset, request.POST or None)
    estimate = form.estimate() if request.method == "POST" else None
    if request.POST.get("action") == "start" and estimate is not None:
        try:
            run = form.start(request.user)
        except RunRefused as refused:
            form.add_error(None, str(refused))
        else:
            messages.success(request, f"Generation run {run.pk} queued: {run.chunks.count()} chunk(s).")
            return redirect(run)
    status = 400 if form.errors else 200
    context = {
        "dataset": dataset,
        "form": form,
        "estimate": estimate,
        "templates": GenerationTemplate.objects.select_related("created_by"),
        "default_template": DEFAULT_TEMPLATE_TEXT,  # shown while not yet stored (on its first use)
    }
    return render(request, "scoring/generation_new.html", context, status=status)


@login_required
@permission_required(VIEW_OUTPUTS, raise_exception=True)
@require_GET
def generation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = run_for(pk)
    check_not_blind(request.user, run.dataset)
    context = {
        "run": run,
        "state": run.progress_state(),
        "provenance": run.provenance(),
        "systems": run.systems.order_by("name"),
        "unparsed": run.replies.exclude(problem="")
        .select_related("text")
        .order_by("seed", "text__position")[:UNPARSED_SHOWN],
    }
    return render(request, "scoring/generation_detail.html", context)


@login_required
@permission_required(VIEW_OUTPUTS, raise_exception=True)
@require_GET
def generation_progress(request: HttpRequest, pk: int) -> JsonResponse:
    """The page's fallback when its websocket is down: the same state the socket sends."""
    run = run_for(pk)
    check_not_blind(request.user, run.dataset)
    return JsonResponse(run.progress_state())


@staff_required(STAFF_ONLY)
@require_POST
def generation_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    return cancel_and_say(request, run_for(pk), "running chunks stop once their requests are answered")


@staff_required(STAFF_ONLY)
@require_POST
def generation_resume(request: HttpRequest, pk: int) -> HttpResponse:
    return resume_and_say(request, run_for(pk))


@staff_required(STAFF_ONLY)
@require_POST
def generation_reparse(request: HttpRequest, pk: int) -> HttpResponse:
    """Parse the stored replies again (after a post-processor change, or a system renamed): the model is not asked."""
    run = run_for(pk)
    if run.status != GenerationRun.Status.DONE:
        messages.error(request, "Only a finished run's replies can be parsed again.")
        return redirect(run)
    try:
        systems = parse_run(run)
    except SystemTaken as taken:
        messages.error(request, str(taken))
    else:
        GenerationRun.objects.filter(pk=run.pk).update(error="")
        messages.success(request, f"Replies parsed again into {len(systems)} system{pluralize(len(systems))}.")
    return redirect(run)


# API -------------------------------------------------------------------------------------------


def generation_reply(run: GenerationRun, status: int = 200) -> JsonResponse:
    state: dict[str, Any] = run.progress_state()
    return JsonResponse(
        {
            **state,
            "dataset": run.dataset.name,
            "provenance": run.provenance(),
            "status_url": reverse("scoring:api_generation", args=[run.pk]),
        },
        status=status,
    )


@token_required(refusal="Only staff users may start generation runs.")
@allow_methods("POST")
def api_generation_start(request: SignedInRequest, name: str) -> JsonResponse:
    """Start a generation run: the page's fields (``GenerationForm``); 202 and its status, or 400 naming each invalid field."""
    dataset = Dataset.objects.filter(name=name).first()
    if dataset is None:
        return error(f"No dataset named {name!r}.", 404)
    form = GenerationForm(dataset, request.POST)
    if not form.is_runnable():  # not the estimate: a script starting a run does not read it
        return invalid_form(form)
    try:
        run = form.start(request.user)
    except RunRefused as refused:
        return error(str(refused), 400)
    return generation_reply(run, status=202)


@token_required(read_permission=VIEW_OUTPUTS, refusal=OUTPUT_READERS)
@allow_methods("GET")
def api_generation_status(request: SignedInRequest, pk: int) -> JsonResponse:
    run = GenerationRun.objects.select_related("dataset", "template").filter(pk=pk).first()
    if run is None:
        return error(f"No generation run {pk}.", 404)
    readable = readable_dataset(request, run.dataset.name)
    if isinstance(readable, JsonResponse):
        return readable
    return generation_reply(run)
