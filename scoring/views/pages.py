"""The signed-in pages: datasets, one dataset, one text, one system, and the staff upload page."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.core.exceptions import BadRequest
from django.core.paginator import Paginator
from django.db.models.functions import Substr
from django.forms import Form
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.views.decorators.http import require_GET, require_http_methods

from core.permissions import VIEW_OUTPUTS, check_not_blind, staff_required
from core.signed_in import SignedInRequest
from scoring.forms import DatasetUploadForm, OutputsUploadForm
from scoring.import_jobs import upload_state
from scoring.imports import ImportRefused, ImportSummary
from scoring.models import Dataset, System, Text, Upload
from scoring.queries import (
    datasets_with_counts,
    generation_run_of,
    latest_output_upload,
    replicates_of,
    systems_of,
)
from scoring.score_tables import dataset_scores, system_scores, text_scores
from scoring.sql import JSONArrayLength

STAFF_ONLY = "Only staff can upload and run scoring."  # the refusal of the staff pages, here and in runs.py
TEXTS_PER_PAGE = 50
EXCERPT_CHARS = 160
RECENT_UPLOADS = 20
UPLOAD_FORMS = {"dataset": DatasetUploadForm, "outputs": OutputsUploadForm}


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "scoring/home.html", {"datasets": datasets_with_counts()})


@login_required
@permission_required(VIEW_OUTPUTS, raise_exception=True)
def dataset_detail(request: HttpRequest, name: str) -> HttpResponse:
    dataset = get_object_or_404(datasets_with_counts(), name=name)
    check_not_blind(request.user, dataset)
    texts = (
        dataset.texts.defer("content")
        .annotate(excerpt=Substr("content", 1, EXCERPT_CHARS + 1), gold_count=JSONArrayLength("gold"))
        .order_by("position")
    )
    page = Paginator(texts, TEXTS_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "scoring/dataset.html",
        {
            "dataset": dataset,
            "systems": systems_of(dataset),
            "page": page,
            "excerpt_chars": EXCERPT_CHARS,
            **dataset_scores(dataset, request.GET.get("settings")),
        },
    )


@login_required
@permission_required(VIEW_OUTPUTS, raise_exception=True)
def text_detail(request: HttpRequest, name: str, pk: int) -> HttpResponse:
    dataset = get_object_or_404(Dataset, name=name)
    text = get_object_or_404(Text.objects.select_related("dataset"), pk=pk, dataset=dataset)
    check_not_blind(request.user, text.dataset)
    # The gold triples are shown from the text itself; the Ground truth system would repeat them.
    outputs = list(
        text.outputs.of_complete_systems()
        .filter(system__is_ground_truth=False)
        .select_related("system")
        .order_by("system__name")
    )
    siblings = Text.objects.filter(dataset=text.dataset).values_list("pk", flat=True)
    return render(
        request,
        "scoring/text.html",
        {
            "text": text,
            "dataset": text.dataset,
            "outputs": outputs,
            "previous_pk": siblings.filter(position__lt=text.position).order_by("-position").first(),
            "next_pk": siblings.filter(position__gt=text.position).order_by("position").first(),
            **text_scores(text, outputs, request.GET.get("settings")),
        },
    )


@login_required
@permission_required(VIEW_OUTPUTS, raise_exception=True)
@require_GET
def system_detail(request: HttpRequest, name: str, system: str) -> HttpResponse:
    """One system on one dataset: what made it (a generation run, or an uploaded file), its
    outputs, its scores in every setting it was scored in, and its replicate group."""
    dataset = get_object_or_404(datasets_with_counts(), name=name)
    check_not_blind(request.user, dataset)
    shown = get_object_or_404(systems_of(dataset), name=system)
    return render(
        request,
        "scoring/system.html",
        {
            "dataset": dataset,
            "system": shown,
            "generation_run": generation_run_of(shown),
            "upload": latest_output_upload(shown, dataset),
            "replicates": replicates_of(shown, dataset),
            "scores": system_scores(shown, dataset),
        },
    )


def upload_report(summary: ImportSummary) -> str:
    """What the upload page says after an import: counts, and the first parse warnings."""
    if summary.unchanged:
        return (
            f"Unchanged: {summary.message} The file holds {summary.texts} text{pluralize(summary.texts)}, "
            f"{summary.triples} triple{pluralize(summary.triples)} "
            f"and {summary.warnings} parse warning{pluralize(summary.warnings)}."
        )
    return summary.report()


def invalid_form_report(form: Form) -> str:
    """The form's errors in one sentence, for the banner at the top of the page."""
    problems = [
        f"{form[field].label if field in form.fields else 'Form'}: {' '.join(map(str, errors))}"
        for field, errors in form.errors.items()
    ]
    return f"Nothing imported. {' '.join(problems)}"


@staff_required(STAFF_ONLY)
@require_http_methods(["GET", "POST"])
def upload(request: SignedInRequest) -> HttpResponse:
    forms = {kind: form_class(prefix=kind) for kind, form_class in UPLOAD_FORMS.items()}
    status = 200
    if request.method == "POST":
        kind = request.POST.get("kind")
        if kind not in UPLOAD_FORMS:
            raise BadRequest("Unknown upload form.")
        form = forms[kind] = UPLOAD_FORMS[kind](request.POST, request.FILES, prefix=kind)
        refused = getattr(request, "upload_refused", None)
        if refused:
            messages.error(request, refused)
            status = 413
        elif not form.is_valid():
            messages.error(request, invalid_form_report(form))
            status = 400
        elif form.runs_as_job():
            queued = form.queue(user=request.user)
            messages.info(request, f"{queued.file_name} is being imported in the background; its progress shows below.")
            return redirect("scoring:upload")
        else:
            try:
                summary = form.run_import(user=request.user)
            except ImportRefused as error:
                messages.error(request, str(error))
                status = 400
            else:
                messages.success(request, upload_report(summary))
                return redirect("scoring:upload")
    return render(
        request,
        "scoring/upload.html",
        {
            "dataset_form": forms["dataset"],
            "outputs_form": forms["outputs"],
            "system_names": System.objects.filter(is_ground_truth=False).values_list("name", flat=True),
            "uploads": Upload.objects.select_related("uploaded_by")[:RECENT_UPLOADS],
            "importing": [upload_state(upload) for upload in Upload.objects.filter(outcome__in=Upload.IN_PROGRESS)],
        },
        status=status,
    )


@staff_required(STAFF_ONLY)
@require_GET
def upload_progress(request: HttpRequest, pk: int) -> JsonResponse:
    """The upload page's fallback when its websocket is down: the state the socket sends."""
    return JsonResponse(upload_state(get_object_or_404(Upload, pk=pk)))
