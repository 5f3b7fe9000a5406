"""The three roles of the site and how each maps onto Django's user flags and permissions.

- staff: ``is_staff`` (uploads, runs, campaigns, accounts, the admin) and ``scoring.view_output``;
- researcher: ``scoring.view_output`` only: reads every page that names systems, changes nothing;
- annotator: neither: sees their own queue and judges the systems blind.

A superuser is staff when flagged staff (as everywhere on the site). This is the one place that
says which flag and permission make a role; the demo's accounts and the Accounts page both
assign roles through :func:`set_role`.
"""

from typing import Any

from django.contrib.auth.models import Permission, User
from django.db import models
from django.db.models import Exists, OuterRef, Q, QuerySet

from core.permissions import VIEW_OUTPUTS


class Role(models.TextChoices):
    STAFF = "staff", "Staff"
    RESEARCHER = "researcher", "Researcher"
    ANNOTATOR = "annotator", "Annotator"


APP_LABEL, CODENAME = VIEW_OUTPUTS.split(".")


def view_output_permission() -> Permission:
    return Permission.objects.get(content_type__app_label=APP_LABEL, codename=CODENAME)


def role_from(is_staff: bool, reads_outputs: bool) -> Role:
    if is_staff:
        return Role.STAFF
    return Role.RESEARCHER if reads_outputs else Role.ANNOTATOR


def role_of(user: User) -> Role:
    return role_from(user.is_staff, user.has_perm(VIEW_OUTPUTS))


def with_roles(users: QuerySet[User]) -> list[Any]:
    """The users of the queryset ``users``, each with its ``role`` attribute set, in one query
    however many users there are (``role_of`` asks the database twice per user)."""
    granted = Permission.objects.filter(
        Q(user=OuterRef("pk")) | Q(group__user=OuterRef("pk")), content_type__app_label=APP_LABEL, codename=CODENAME
    )
    annotated: list[Any] = list(users.annotate(reads_outputs=Exists(granted)))  # users with a role attribute
    for user in annotated:
        # Superusers have every permission without being granted it, as in has_perm.
        user.role = role_from(user.is_staff, user.reads_outputs or user.is_superuser)
    return annotated


def set_role(user: User, role: str) -> None:
    """Give ``user`` exactly ``role``: staff flags and the outputs permission, added or taken away.

    Only staff is superuser-capable: anyone given another role loses ``is_superuser`` too. The
    permission given through a group (in the admin) is the group's to take away."""
    role = Role(role)
    user.is_staff = role == Role.STAFF
    if role != Role.STAFF:
        user.is_superuser = False
    user.save(update_fields=["is_staff", "is_superuser"])
    if role == Role.ANNOTATOR:
        user.user_permissions.remove(view_output_permission())
    else:
        user.user_permissions.add(view_output_permission())
    # Django caches permissions on the user object; this one changed them.
    for cache in ("_perm_cache", "_user_perm_cache"):
        user.__dict__.pop(cache, None)
