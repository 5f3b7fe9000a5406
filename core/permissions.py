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


# Which datasets a user judges blind is the annotation app's to say (``annotation.access``), and
# core and scoring import no app above them: the app registers its rule here when it loads.
BlindDatasets = Callable[[Any], set[int]]  # a user -> ids of the datasets they may not read
_blind_dataset_rules: list[BlindDatasets] = []


def register_blind_datasets(rule: BlindDatasets) -> None:
    """Add ``rule(user) -> set of dataset ids`` to the datasets ``blind_dataset_ids`` answers."""
    _blind_dataset_rules.append(rule)


def blind_dataset_ids(user: Any) -> set[int]:
    """Ids of the datasets whose outputs and leaderboards ``user`` may not read while annotating."""
    return set().union(*(rule(user) for rule in _blind_dataset_rules))


def check_not_blind(user: Any, dataset: Any) -> None:
    """403 (``PermissionDenied``) when ``user`` annotates blind a system that ``dataset``'s pages name."""
    if dataset.pk in blind_dataset_ids(user):
        raise PermissionDenied(
            f"You annotate an open campaign whose systems the {dataset.name} pages name. They stay hidden from "
            "you until the campaign is closed, so that the systems you judge stay blind."
        )
