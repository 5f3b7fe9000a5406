"""Who may read which leaderboard.

Leaderboards are for signed-in users unless ``GENRES_PUBLIC_LEADERBOARD`` is on. Whatever the
setting, an annotator of an open campaign sees no leaderboard that names one of that campaign's
systems: systems are shared by datasets, and a leaderboard of another dataset would still tell
the verbose or repetitive system apart, and its rank would colour the judgements still to come.
A leaderboard names a system when the dataset has outputs of it (hence any scores) or a campaign
judging it (hence ratings). Removed annotators count too, since they may be added back.
"""

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Exists, OuterRef

from annotation.models import Campaign, CampaignAnnotator
from scoring.models import Dataset, Output


class LeaderboardHidden(Exception):
    """The user may not see this leaderboard; the message says why, in words for the user."""


def needs_sign_in(user: AbstractBaseUser | AnonymousUser) -> bool:
    return not (settings.GENRES_PUBLIC_LEADERBOARD or user.is_authenticated)


def hidden_dataset_ids(user: AbstractBaseUser | AnonymousUser) -> set[int]:
    """Ids of the datasets whose leaderboard names a system of an open campaign ``user`` annotates."""
    if not user.is_authenticated:
        return set()
    blind = CampaignAnnotator.objects.filter(annotator_id=user.pk, campaign__is_open=True).values("campaign__systems")
    if not blind.exists():
        return set()
    named = Dataset.objects.filter(
        Exists(Output.objects.filter(text__dataset=OuterRef("pk"), system__in=blind))
        | Exists(Campaign.objects.filter(dataset=OuterRef("pk"), systems__in=blind))
    )
    return set(named.values_list("pk", flat=True))


def check_visible(user: AbstractBaseUser | AnonymousUser, dataset: Dataset) -> None:
    """Raise :class:`LeaderboardHidden` when the leaderboard names a system ``user`` judges blind."""
    if dataset.pk in hidden_dataset_ids(user):
        raise LeaderboardHidden(
            f"You annotate an open campaign whose systems the {dataset.name} leaderboard names. It stays "
            "hidden from you until the campaign is closed, so that the systems you judge stay blind."
        )
