"""Error responses: the site's pages for people, JSON for the API under /api/.

Scripts read the API's replies as JSON, so an error there, even an unexpected one, answers
``{"error": "..."}`` like every refusal of the API views does, never an HTML page.
"""

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

API_PREFIX = "/api/"
UNEXPECTED = "Server error: the request failed unexpectedly; the server logged why."


def for_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if for_api(request):
        return JsonResponse({"error": "Bad request."}, status=400)
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
