"""Who may open what: the access checks the views and sockets of every app share."""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseBase

View = Callable[..., HttpResponseBase]

# Pages and sockets that name systems or show their triples. Annotators judge blind (systems are
# anonymous to them), so these need the "view output" permission of scoring's Output model:
# superusers have it; give it to researchers.
VIEW_OUTPUTS = "scoring.view_output"


def staff_required(reason: str) -> Callable[[View], View]:
    """A view for staff only: anonymous users go to the sign-in page; signed-in users who are not
    staff get 403 with ``reason``, which the refusal page shows."""

    def decorator(view: View) -> View:
        @wraps(view)
        def check_staff(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if not request.user.is_staff:
                raise PermissionDenied(reason)
            return view(request, *args, **kwargs)

        return login_required(check_staff)

    return decorator
