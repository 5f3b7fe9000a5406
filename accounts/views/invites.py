from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.forms import SetPasswordForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from accounts.models import Invite


@sensitive_post_parameters()
@never_cache
@require_http_methods(["GET", "POST"])
def accept_invite(request: HttpRequest, key: str) -> HttpResponse:
    """The person invited sees their username and chooses a password; then they are signed in."""
    invite = Invite.pending_for_key(key)
    if invite is None or not invite.user.is_active:
        return render(request, "accounts/invite_invalid.html", status=404)
    form = SetPasswordForm(invite.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        if not invite.accept(form.cleaned_data["new_password1"]):
            return render(request, "accounts/invite_invalid.html", status=404)
        login(request, invite.user)
        messages.success(request, f"Welcome, {invite.user.get_username()}: your password is set.")
        return redirect(settings.LOGIN_REDIRECT_URL)
    return render(request, "accounts/invite_accept.html", {"form": form, "invited": invite.user})
