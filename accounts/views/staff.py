"""The staff Accounts page: who has an account and which role, invites, bulk creation."""

import csv

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import bulk
from accounts.forms import BulkAccountsForm, RoleForm
from accounts.models import Invite
from accounts.roles import Role, set_role, with_roles
from core.permissions import staff_required
from core.signed_in import SignedInRequest

STAFF_ONLY = "Only staff can manage accounts."
# Mail that never leaves this machine: staff may then show a user the reset link themselves.
LOCAL_MAIL_BACKENDS = {
    "django.core.mail.backends.console.EmailBackend",
    "django.core.mail.backends.filebased.EmailBackend",
    "django.core.mail.backends.locmem.EmailBackend",
}


def mail_stays_local() -> bool:
    return settings.EMAIL_BACKEND in LOCAL_MAIL_BACKENDS


def invite_url(request: HttpRequest, key: str) -> str:
    return request.build_absolute_uri(reverse("accounts:invite", args=[key]))


@staff_required(STAFF_ONLY)
@require_GET
def account_list(request: SignedInRequest) -> HttpResponse:
    users = get_user_model().objects.order_by("username").select_related("password_change_due")
    open_invites = Invite.objects.filter(used_at__isnull=True)
    users = users.prefetch_related(Prefetch("invites", queryset=open_invites, to_attr="open_invites"))
    context = {"accounts": with_roles(users), "roles": Role.choices, "reset_links": mail_stays_local()}
    return render(request, "accounts/account_list.html", context)


@staff_required(STAFF_ONLY)
@never_cache
@require_http_methods(["GET", "POST"])
def account_create(request: SignedInRequest) -> HttpResponse:
    form = BulkAccountsForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        made = bulk.make_accounts(form.cleaned_data["accounts"], form.cleaned_data["method"], request.user)
        rows = [(account, invite_url(request, account.invite_key) if account.invite_key else "") for account in made]
        if request.POST.get("answer") == "csv":
            return accounts_csv(rows)
        return render(request, "accounts/accounts_made.html", {"rows": rows})
    return render(request, "accounts/account_create.html", {"form": form})


def accounts_csv(rows: list[tuple[bulk.Made, str]]) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="new-accounts.csv"'
    writer = csv.writer(response)
    writer.writerow(["username", "email", "role", "invite_link", "password"])
    for account, link in rows:
        writer.writerow([account.username, account.email, account.role, link, account.password])
    return response


def changeable_account(request: SignedInRequest, pk: int) -> User:
    """The account ``pk``, if the signed-in staff member may change it: never their own (no one
    locks themselves out), and a superuser's only if they are one."""
    account = get_object_or_404(get_user_model(), pk=pk)
    if account == request.user:
        raise PermissionDenied("You cannot change your own role or deactivate yourself; ask another staff member.")
    if account.is_superuser and not request.user.is_superuser:
        raise PermissionDenied("Only a superuser can change a superuser's account.")
    return account


@staff_required(STAFF_ONLY)
@require_POST
def account_role(request: SignedInRequest, pk: int) -> HttpResponse:
    account = changeable_account(request, pk)
    form = RoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"{account.username}: choose a role among {', '.join(Role.values)}.")
    else:
        set_role(account, form.cleaned_data["role"])
        messages.success(request, f"{account.username} is now {Role(form.cleaned_data['role']).label.lower()}.")
    return redirect("accounts:list")


@staff_required(STAFF_ONLY)
@require_POST
def account_active(request: SignedInRequest, pk: int) -> HttpResponse:
    """Deactivate (no sign-in, no API token) or reactivate; the account and its work are kept."""
    account = changeable_account(request, pk)
    account.is_active = request.POST.get("active") == "1"
    account.save(update_fields=["is_active"])
    state = "reactivated" if account.is_active else "deactivated: it can no longer sign in or use its API tokens"
    messages.success(request, f"{account.username} is {state}.")
    return redirect("accounts:list")


def show_link_once(request: HttpRequest, account: User, path: str, kind: str) -> HttpResponse:
    context = {"account": account, "link": request.build_absolute_uri(path), "kind": kind}
    return render(request, "accounts/link_once.html", context)


@staff_required(STAFF_ONLY)
@never_cache
@require_POST
def account_invite(request: SignedInRequest, pk: int) -> HttpResponse:
    """A new invite link for the account (any unused one stops working), shown once."""
    account = changeable_account(request, pk)
    _, key = Invite.issue(account, request.user)
    return show_link_once(request, account, reverse("accounts:invite", args=[key]), "invite")


@staff_required(STAFF_ONLY)
@require_POST
def invite_revoke(request: SignedInRequest, pk: int) -> HttpResponse:
    account = get_object_or_404(get_user_model(), pk=pk)
    revoked, _ = Invite.objects.filter(user=account, used_at__isnull=True).delete()
    if revoked:
        messages.success(request, f"The invite of {account.username} is revoked: its link no longer works.")
    return redirect("accounts:list")


@staff_required(STAFF_ONLY)
@never_cache
@require_POST
def reset_link(request: SignedInRequest, pk: int) -> HttpResponse:
    """The password-reset link the reset form would mail, for a site whose mail stays on this machine."""
    if not mail_stays_local():
        raise Http404("Reset links are mailed: this site sends mail.")
    account = changeable_account(request, pk)
    uid, token = urlsafe_base64_encode(force_bytes(account.pk)), default_token_generator.make_token(account)
    path = reverse("password_reset_confirm", kwargs={"uidb64": uid, "token": token})
    return show_link_once(request, account, path, "reset")
