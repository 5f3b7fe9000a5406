"""Who may read which leaderboard.

Leaderboards are for signed-in users unless ``GENRES_PUBLIC_LEADERBOARD`` is on. Whatever the
setting, an annotator of an open campaign sees no leaderboard that names one of that campaign's
systems: the rule of ``annotation.access.blind_dataset_ids``, which hides the dataset and text
pages from them too.
"""

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser

from core.permissions import blind_dataset_ids
from scoring.models import Dataset


class LeaderboardHidden(Exception):
    """The user may not see this leaderboard; the message says why, in words for the user."""


def needs_sign_in(user: AbstractBaseUser | AnonymousUser) -> bool:
    return not (settings.GENRES_PUBLIC_LEADERBOARD or user.is_authenticated)


def check_visible(user: AbstractBaseUser | AnonymousUser, dataset: Dataset) -> None:
    """Raise :class:`LeaderboardHidden` when the leaderboard names a system ``user`` judges blind."""
    if dataset.pk in blind_dataset_ids(user):
        raise LeaderboardHidden(
            f"You annotate an open campaign whose systems the {dataset.name} leaderboard names. It stays "
            "hidden from you until the campaign is closed, so that the systems you judge stay blind."
        )
