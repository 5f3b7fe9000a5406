"""JSON API for scripts: ``Authorization: Token <key>``; imports are for staff users only.

The views are CSRF-exempt because they never look at the session cookie: a browser cannot be
tricked into sending the token header, so cross-site requests carry no authority here.
"""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt

from core import login_throttle
from core.signed_in import SignedInRequest
from scoring.forms import ImportForm, OutputsFileForm
from scoring.import_jobs import upload_state
from scoring.imports import ImportRefused
from scoring.models import ApiToken, Dataset, Upload
from scoring.upload_handlers import body_length_unknown, length_required_message

View = Callable[..., HttpResponse]


def error(message: str, status: int) -> JsonResponse:
    response = JsonResponse({"error": message}, status=status)
    if status == 401:
        response["WWW-Authenticate"] = 'Token realm="GENRES Arena API"'
    return response


def token_user(request: HttpRequest) -> User | JsonResponse:
    """The active user whose API token the request carries, or the JSON error to answer: 401, or
    429 while the client's address cools down after too many unknown tokens."""
    scheme, _, key = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "token" or not key.strip():
        return error("Send the header 'Authorization: Token <key>'.", 401)
    throttled = login_throttle.refusal(request)
    if throttled:
        return error(throttled, 429)
    user = ApiToken.user_for_key(key.strip())
    if user is None:
        login_throttle.record_failure(request)
        return error("Unknown API token, or its user is inactive.", 401)
    return user


IMPORTS_FOR_STAFF = "Only staff users may use the import API."


def token_required(
    reads_for_all: bool = False, read_permission: str | None = None, refusal: str = IMPORTS_FOR_STAFF
) -> Callable[[View], View]:
    """Authenticate by API token; 401 without a valid one, 403 (saying ``refusal``) for users who
    are not staff.

    With ``reads_for_all``, any token's user may GET (what every signed-in user reads on the
    pages); with ``read_permission``, the users who hold it (researchers: what they read on the
    pages). Other methods stay staff only. The view still checks each object it reads.
    """

    def decorator(view: View) -> View:
        @wraps(view)
        def authenticate(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            user = token_user(request)
            if isinstance(user, JsonResponse):
                return user
            may_read = reads_for_all or (read_permission is not None and user.has_perm(read_permission))
            if not user.is_staff and not (may_read and request.method == "GET"):
                return error(refusal, 403)
            request.user = user
            return view(request, *args, **kwargs)

        return csrf_exempt(authenticate)

    return decorator


def form_error(form: forms.Form) -> str:
    """One line naming each invalid field and why."""
    return "; ".join(
        f"{field}: {' '.join(map(str, messages))}" if field != "__all__" else " ".join(map(str, messages))
        for field, messages in form.errors.items()
    )


def invalid_form(form: forms.Form) -> JsonResponse:
    """400 naming every invalid field and why: ``{"error": all in one line, "fields": {field:
    [reasons]}}``, ``__all__`` holding what concerns no one field."""
    fields = {field: [str(message) for message in messages] for field, messages in form.errors.items()}
    return JsonResponse({"error": form_error(form), "fields": fields}, status=400)


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
    if body_length_unknown(request):
        return error(length_required_message(), 411)
    # Parsing the body runs the upload handlers, which may refuse an oversized file.
    data, files = request.POST, request.FILES
    refused = getattr(request, "upload_refused", None)
    if refused:
        return error(refused, 413)
    form = form_class(data, files, **form_kwargs)
    if not form.is_valid():
        return invalid_form(form)
    if form.runs_as_job():
        return JsonResponse(upload_state(form.queue(user=request.user)), status=202)
    try:
        summary = form.run_import(user=request.user)
    except ImportRefused as refusal:
        return error(str(refusal), 400)
    reply = {**summary.as_dict(), "status_url": reverse("scoring:api_upload", args=[summary.upload.pk])}
    return JsonResponse(reply, status=200 if summary.unchanged else 201)


@token_required()
@allow_methods("POST")
def dataset_outputs(request: SignedInRequest, name: str) -> JsonResponse:
    dataset = Dataset.objects.filter(name=name).first()
    if dataset is None:
        return error(f"No dataset named {name!r}.", 404)
    return run_upload(request, OutputsFileForm, dataset=dataset)


@token_required()
@allow_methods("GET")
def upload_status(request: SignedInRequest, pk: int) -> JsonResponse:
    """Where an upload stands: queued or importing (with progress), imported, unchanged or failed."""
    upload = Upload.objects.filter(pk=pk).first()
    if upload is None:
        return error(f"No upload {pk}.", 404)
    return JsonResponse(upload_state(upload))
