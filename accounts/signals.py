from typing import Any

from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest

from accounts.middleware import DUE_SESSION_KEY
from accounts.models import PasswordChangeDue


@receiver(user_logged_in)
def note_password_change_due(sender: Any, request: HttpRequest | None, user: User, **kwargs: Any) -> None:
    """Looked up once, at sign-in; the middleware then reads the session, not the database."""
    if request is not None and PasswordChangeDue.objects.filter(user=user).exists():
        request.session[DUE_SESSION_KEY] = True
