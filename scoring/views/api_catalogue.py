"""The API's reads of the catalogue — datasets, a dataset's systems — and its scoring runs: start
one (staff) and read its status. Under the pages' rules: any user lists the datasets, as the
Datasets page shows everyone; systems and runs name systems, so they are for the users who may
read outputs (staff and researchers), and never for an annotator who judges them blind."""

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import JsonResponse
from django.urls import reverse

from core.permissions import VIEW_OUTPUTS, check_not_blind
from core.signed_in import SignedInRequest
from scoring.forms import DatasetUploadForm, RunApiForm
from scoring.models import Dataset
from scoring.models.runs import RunRefused, ScoringRun
from scoring.queries import datasets_with_counts, systems_of
from scoring.views.api import allow_methods, error, invalid_form, run_upload, token_required
from scoring.views.api_pages import paged, query_errors
from scoring.views.runs import judge_estimate, start_run

OUTPUT_READERS = "Systems and scoring runs are for staff and researchers (the view-output permission)."


def dataset_record(dataset: Any) -> dict[str, Any]:
    """A dataset of ``datasets_with_counts`` as the API answers it."""
    return {
        "name": dataset.name,
        "level": dataset.level,
        "domain": dataset.domain,
        "description": dataset.description,
        "texts": dataset.text_count,
        "gold_triples": dataset.gold_count,
        "systems": dataset.system_count,
        "created_at": dataset.created_at.isoformat(),
    }


@token_required(reads_for_all=True)
@allow_methods("GET", "POST")
@query_errors
def datasets(request: SignedInRequest) -> JsonResponse:
    if request.method == "POST":
        return run_upload(request, DatasetUploadForm)
    return paged(request, datasets_with_counts().order_by("name"), "datasets", lambda page: map(dataset_record, page))


@token_required(reads_for_all=True)
@allow_methods("GET")
def dataset_detail(request: SignedInRequest, name: str) -> JsonResponse:
    dataset = datasets_with_counts().filter(name=name).first()
    if dataset is None:
        return error(f"No dataset named {name!r}.", 404)
    return JsonResponse(dataset_record(dataset))


def readable_dataset(request: SignedInRequest, name: str) -> Dataset | JsonResponse:
    """The dataset ``name``, or the 404 or 403 to answer: its systems are named only to who may read them."""
    dataset = Dataset.objects.filter(name=name).first()
    if dataset is None:
        return error(f"No dataset named {name!r}.", 404)
    try:
        check_not_blind(request.user, dataset)
    except PermissionDenied as refused:
        return error(str(refused), 403)
    return dataset


def system_records(systems: list[Any]) -> list[dict[str, Any]]:
    return [
        {
            "name": system.name,
            "family": system.family,
            "ground_truth": system.is_ground_truth,
            "replicate_group": system.replicate_group,
            "seed": system.seed,
            "outputs": system.output_count,
            "triples": system.triple_count,
            "empty_outputs": system.empty_count,
            "parse_warnings": system.warning_count,
            "last_upload_at": system.last_upload_at.isoformat() if system.last_upload_at else None,
            "provenance": system.provenance,
        }
        for system in systems
    ]


@token_required(read_permission=VIEW_OUTPUTS, refusal=OUTPUT_READERS)
@allow_methods("GET")
@query_errors
def dataset_systems(request: SignedInRequest, name: str) -> JsonResponse:
    dataset = readable_dataset(request, name)
    if isinstance(dataset, JsonResponse):
        return dataset
    return paged(request, systems_of(dataset).order_by("-is_ground_truth", "name"), "systems", system_records)


def run_reply(run: ScoringRun, status: int = 200) -> JsonResponse:
    state = run.progress_state()
    return JsonResponse(
        {**state, "dataset": run.dataset.name, "status_url": reverse("scoring:api_run", args=[run.pk])}, status=status
    )


@token_required(refusal="Only staff users may start scoring runs.")
@allow_methods("POST")
def dataset_runs(request: SignedInRequest, name: str) -> JsonResponse:
    """Start a scoring run: the run form's fields (``RunApiForm``), checked as the page checks them; 202
    and its status, or 400 naming each invalid field and why."""
    dataset = Dataset.objects.filter(name=name).first()
    if dataset is None:
        return error(f"No dataset named {name!r}.", 404)
    form = RunApiForm(dataset, request.POST)
    if judge_estimate(form) is None:
        return invalid_form(form)
    try:
        run = start_run(form, request.user)
    except RunRefused as refused:
        return error(str(refused), 400)
    return run_reply(run, status=202)


@token_required(read_permission=VIEW_OUTPUTS, refusal=OUTPUT_READERS)
@allow_methods("GET")
def run_status(request: SignedInRequest, pk: int) -> JsonResponse:
    """A scoring run's status: what its page shows (the run page's rules: may read outputs, not blind)."""
    run = ScoringRun.objects.select_related("dataset").filter(pk=pk).first()
    if run is None:
        return error(f"No scoring run {pk}.", 404)
    readable = readable_dataset(request, run.dataset.name)
    if isinstance(readable, JsonResponse):
        return readable
    return run_reply(run)
