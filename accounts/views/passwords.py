"""Django's own password change and reset views; choosing a password ends a forced change."""

from django.contrib.auth import views as auth_views

from accounts.middleware import DUE_SESSION_KEY
from accounts.models import PasswordChangeDue


class PasswordChangeView(auth_views.PasswordChangeView):
    def get_context_data(self, **kwargs):
        return {**super().get_context_data(**kwargs), "password_change_due": DUE_SESSION_KEY in self.request.session}

    def form_valid(self, form):
        response = super().form_valid(form)
        PasswordChangeDue.clear(self.request.user)
        self.request.session.pop(DUE_SESSION_KEY, None)
        return response


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    def form_valid(self, form):
        response = super().form_valid(form)
        PasswordChangeDue.clear(form.user)
        return response
