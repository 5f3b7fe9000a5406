"""JSON import API for scripts: ``Authorization: Token <key>``, staff users only.

The views are CSRF-exempt because they never look at the session cookie: a browser cannot be
tricked into sending the token header, so cross-site requests carry no authority here.
"""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt

from core.signed_in import SignedInRequest
from scoring.forms import DatasetUploadForm, ImportForm, OutputsFileForm
from scoring.import_jobs import upload_state
from scoring.imports import ImportRefused
from scoring.models import ApiToken, Dataset, Upload
from scoring.queries import datasets_with_counts

View = Callable[..., HttpResponse]


def error(message: str, status: int) -> JsonResponse:
    response = JsonResponse({"error": message}, status=status)
    if status == 401:
        response["WWW-Authenticate"] = 'Token realm="GENRES Arena API"'
    return response


def token_required(view: View) -> View:
    """Authenticate by API token; 401 without a valid one, 403 for users who are not staff."""

    @wraps(view)
    def authenticate(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        scheme, _, key = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "token" or not key.strip():
            return error("Send the header 'Authorization: Token <key>'.", 401)
        user = ApiToken.user_for_key(key.strip())
        if user is None:
            return error("Unknown API token, or its user is inactive.", 401)
        if not user.is_staff:
            return error("Only staff users may use the import API.", 403)
        request.user = user
        return view(request, *args, **kwargs)

    return csrf_exempt(authenticate)


def form_error(form: forms.Form) -> str:
    """One line naming each invalid field and why."""
    return "; ".join(
        f"{field}: {' '.join(map(str, messages))}" if field != "__all__" else " ".join(map(str, messages))
        for field, messages in form.errors.items()
    )


def allow_methods(*methods: str) -> Callable[[View], View]:
    """Like require_http_methods, with the JSON error body every other reply of this API has."""

    def decorate(view: View) -> View:
        @wraps(view)
        def check_method(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in methods:
                response = error(f"Method {request.method} is not allowed here.", 405)
                response["Allow"] = ", ".join(methods)
                return response
            return view(request, *args, **kwargs)

        return check_method

    return decorate


def run_upload(request: SignedInRequest, form_class: type[ImportForm], **form_kwargs: Any) -> JsonResponse:
    """Validate and import, or queue a big file's import (202); the JSON reply for every outcome.

    Every reply about an upload carries its ``status_url``.
    """
    # Parsing the body runs the upload handlers, which may refuse an oversized file.
    data, files = request.POST, request.FILES
    refused = getattr(request, "upload_refused", None)
    if refused:
        return error(refused, 413)
    form = form_class(data, files, **form_kwargs)
    if not form.is_valid():
        return error(form_error(form), 400)
    if form.runs_as_job():
        return JsonResponse(upload_state(form.queue(user=request.user)), status=202)
    try:
        summary = form.run_import(user=request.user)
    except ImportRefused as refusal:
        return error(str(refusal), 400)
    reply = {**summary.as_dict(), "status_url": reverse("scoring:api_upload", args=[summary.upload.pk])}
    return JsonResponse(reply, status=200 if summary.unchanged else 201)


@token_required
@allow_methods("GET", "POST")
def datasets(request: SignedInRequest) -> JsonResponse:
    if request.method == "POST":
        return run_upload(request, DatasetUploadForm)
    return JsonResponse(
        {
            "datasets": [
                {
                    "name": dataset.name,
                    "level": dataset.level,
                    "domain": dataset.domain,
                    "description": dataset.description,
                    "texts": dataset.text_count,
                    "gold_triples": dataset.gold_count,
                    "systems": dataset.system_count,
                    "created_at": dataset.created_at.isoformat(),
                }
                for dataset in datasets_with_counts()
            ]
        }
    )


@token_required
@allow_methods("POST")
def dataset_outputs(request: SignedInRequest, name: str) -> JsonResponse:
    dataset = Dataset.objects.filter(name=name).first()
    if dataset is None:
        return error(f"No dataset named {name!r}.", 404)
    return run_upload(request, OutputsFileForm, dataset=dataset)


@token_required
@allow_methods("GET")
def upload_status(request: SignedInRequest, pk: int) -> JsonResponse:
    """Where an upload stands: queued or importing (with progress), imported, unchanged or failed."""
    upload = Upload.objects.filter(pk=pk).first()
    if upload is None:
        return error(f"No upload {pk}.", 404)
    return JsonResponse(upload_state(upload))
