"""The request a view behind ``login_required`` (or a staff check) receives, for the type checker:
its ``user`` is a ``User``, never the anonymous one. Nothing changes at run time."""

from django.contrib.auth.models import User
from django.http import HttpRequest


class SignedInRequest(HttpRequest):
    user: User
