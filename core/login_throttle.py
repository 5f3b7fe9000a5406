"""Sign-in throttling: per account and per address, counted in Redis, with a cool-down.

Every failed sign-in counts against the account's name and against the client's address; an
unknown API token counts against the address. Once a count reaches its limit, that account (or
address) is refused, right password or not, until GENRES_LOGIN_COOL_DOWN_SECONDS have passed
since its last failure: each failure during the cool-down starts it again. A successful sign-in
clears the account's count. The counts live in Redis (embedded or REDIS_URL), which every web
process and machine shares, not in the per-process cache of the one-machine mode.

When Redis is away the throttle lets sign-ins through (and logs it): a throttle must not become
an outage of its own.
"""

import hashlib
import logging
from typing import Any

import django_rq
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from redis.exceptions import RedisError

from core.compiled_queries import SAMPLE_IDS, CompiledQuery

logger = logging.getLogger(__name__)

KEY_PREFIX = "genres:login-failures:"


def account_key(username: str) -> str:
    # Hashed: the key names no account in Redis; case-folded: "Alice" and "alice" share one count.
    return f"{KEY_PREFIX}account:{hashlib.sha256(str(username).casefold().encode()).hexdigest()}"


def address_key(request: HttpRequest | None) -> str | None:
    return f"{KEY_PREFIX}address:{request.META.get('REMOTE_ADDR', '')}" if request is not None else None


def limits(request: HttpRequest | None, username: str | None = None) -> list[tuple[str, int]]:
    """(key, limit) of each count the attempt is checked against."""
    checks = [(address_key(request), settings.GENRES_LOGIN_FAILURES_PER_ADDRESS)]
    if username is not None:
        checks.append((account_key(username), settings.GENRES_LOGIN_FAILURES_PER_ACCOUNT))
    return [(key, limit) for key, limit in checks if key]


def refusal(request: HttpRequest | None, username: str | None = None) -> str | None:
    """Why the attempt is refused now, naming the wait, or None when it may go ahead."""
    try:
        redis = django_rq.get_connection()
        for key, limit in limits(request, username):
            if int(redis.get(key) or 0) >= limit:
                minutes = max(1, -(-max(redis.ttl(key), 0) // 60))
                return f"Too many failed sign-ins: try again in {minutes} minute{'s' if minutes > 1 else ''}."
    except RedisError:
        logger.warning("Sign-in throttle: Redis unreachable, attempt not checked", exc_info=True)
    return None


def record_failure(request: HttpRequest | None, username: str | None = None) -> None:
    try:
        pipeline = django_rq.get_connection().pipeline()
        for key, _limit in limits(request, username):
            pipeline.incr(key)
            pipeline.expire(key, settings.GENRES_LOGIN_COOL_DOWN_SECONDS)
        pipeline.execute()
    except RedisError:
        logger.warning("Sign-in throttle: Redis unreachable, failure not counted", exc_info=True)


def clear_account(username: str) -> None:
    try:
        django_rq.get_connection().delete(account_key(username))
    except RedisError:
        logger.warning("Sign-in throttle: Redis unreachable, count not cleared", exc_info=True)


class ThrottledModelBackend(ModelBackend):
    """Django's password check, refused during a cool-down.

    The refusal is a ValidationError: sign-in forms (Django's AuthenticationForm, the admin's)
    call ``authenticate`` from their ``clean`` and show it as the form's error, so the person
    reads why and for how long instead of "wrong password".
    """

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> User | None:
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        message = refusal(request, username)
        if message:
            raise ValidationError(message, code="throttled")
        user = super().authenticate(request, username, password, **kwargs)
        if user is None:
            record_failure(request, username)
        elif username is not None:
            clear_account(username)
        return user

    def get_user(self, user_id: Any) -> User | None:
        """The signed-in user of every request, by a query compiled once per process."""
        try:
            found = user_by_id(int(user_id))
        except (TypeError, ValueError):
            return None
        return found[0] if found and self.user_can_authenticate(found[0]) else None


def _user_by_id(user_id: int) -> Any:
    return get_user_model()._default_manager.filter(pk=user_id)


user_by_id = CompiledQuery(_user_by_id, SAMPLE_IDS[:1])
