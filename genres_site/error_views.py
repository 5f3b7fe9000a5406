"""Error responses: the site's pages for people, JSON for the API under /api/.

Scripts read the API's replies as JSON, so an error there, even an unexpected one, answers
``{"error": "..."}`` like every refusal of the API views does, never an HTML page. A bad request
anywhere answers JSON too when the client asks for it (``Accept: application/json``, as the
annotation page's script does), and a body over Django's form-data limit names that limit.
"""

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

API_PREFIX = "/api/"
UNEXPECTED = "Server error: the request failed unexpectedly; the server logged why."


def for_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def wants_json(request: HttpRequest) -> bool:
    return request.headers.get("Accept", "").startswith("application/json")


def bad_request_message(exception: Exception) -> str:
    """Why a request was refused, in words a client can act on; no internal detail."""
    if isinstance(exception, RequestDataTooBig):
        limit_mb = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / (1024 * 1024)
        return f"The request's form data is larger than the limit of {limit_mb:g} MB; nothing was saved."
    if isinstance(exception, TooManyFieldsSent):
        return f"The request has more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} form fields; nothing was saved."
    return "Bad request."


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if for_api(request) or wants_json(request):
        return JsonResponse({"error": bad_request_message(exception)}, status=400)
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if for_api(request):
        return JsonResponse({"error": str(exception) or "Permission denied."}, status=403)
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if for_api(request):
        return JsonResponse({"error": f"Nothing at {request.path}."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if for_api(request):
        # The traceback goes to the log (Django logs it before calling this), never to the caller.
        return JsonResponse({"error": UNEXPECTED}, status=500)
    return defaults.server_error(request)
