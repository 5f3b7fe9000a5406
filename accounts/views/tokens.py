"""Each user's own API tokens: create (the key shown once, in the reply), list, revoke."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from accounts.forms import TokenForm
from accounts.roles import Role, role_of
from core.signed_in import SignedInRequest
from scoring.models import ApiToken


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def token_list(request: SignedInRequest) -> HttpResponse:
    form, issued = TokenForm(request.POST or None), None
    if request.method == "POST" and form.is_valid():
        # Rendered, not redirected: the key exists only in this reply.
        issued = ApiToken.issue(request.user, name=form.cleaned_data["name"])
        form = TokenForm()
    context = {
        "form": form,
        "tokens": request.user.api_tokens.all(),
        "issued": issued,
        "imports": role_of(request.user) == Role.STAFF,
    }
    return render(request, "accounts/tokens.html", context)


@login_required
@require_POST
def token_revoke(request: SignedInRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    token.delete()
    messages.success(request, f"Token {token.prefix}… {token.name} is revoked: it no longer opens the API.")
    return redirect("accounts:tokens")
