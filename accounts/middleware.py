from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

DUE_SESSION_KEY = "accounts.password_change_due"


class PasswordChangeDueMiddleware:
    """Someone signed in with a password staff gave them goes to the password change form, from
    every page, until they have chosen their own (``accounts.views.passwords``)."""

    ALLOWED = ("password_change", "password_change_done", "logout")

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.session.get(DUE_SESSION_KEY) and request.path not in self.allowed_paths():
            return redirect("password_change")
        return self.get_response(request)

    def allowed_paths(self) -> set[str]:
        return {reverse(name) for name in self.ALLOWED}
