"""Django's own password change and reset views; choosing a password ends a forced change."""

from typing import Any

from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordChangeForm, SetPasswordForm
from django.http import HttpResponse

from accounts.middleware import DUE_SESSION_KEY
from accounts.models import PasswordChangeDue


class PasswordChangeView(auth_views.PasswordChangeView):
    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {**super().get_context_data(**kwargs), "password_change_due": DUE_SESSION_KEY in self.request.session}

    def form_valid(self, form: PasswordChangeForm) -> HttpResponse:
        response = super().form_valid(form)
        PasswordChangeDue.clear(form.user)
        self.request.session.pop(DUE_SESSION_KEY, None)
        return response


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    def form_valid(self, form: SetPasswordForm) -> HttpResponse:
        response = super().form_valid(form)
        PasswordChangeDue.clear(form.user)
        return response
