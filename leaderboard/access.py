"""Who may read which leaderboard.

Leaderboards are for signed-in users unless ``GENRES_PUBLIC_LEADERBOARD`` is on. Whatever the
setting, an annotator of an open campaign never sees the leaderboard of that campaign's
dataset: it names the systems they are judging blind, and their ranks would colour the
judgements still to come. Removed annotators count too, since they may be added back.
"""

from django.conf import settings

from annotation.models import CampaignAnnotator


class LeaderboardHidden(Exception):
    """The user may not see this leaderboard; the message says why, in words for the user."""


def needs_sign_in(user):
    return not (settings.GENRES_PUBLIC_LEADERBOARD or user.is_authenticated)


def hidden_dataset_ids(user):
    """Ids of the datasets whose leaderboard ``user`` may not see while their campaign is open."""
    if not user.is_authenticated:
        return set()
    return set(
        CampaignAnnotator.objects.filter(annotator=user, campaign__is_open=True).values_list(
            "campaign__dataset_id", flat=True
        )
    )


def check_visible(user, dataset):
    """Raise :class:`LeaderboardHidden` when ``user`` annotates an open campaign of ``dataset``."""
    if dataset.pk in hidden_dataset_ids(user):
        raise LeaderboardHidden(
            f"You annotate an open campaign on {dataset.name}. Its leaderboard names the systems you are "
            "judging blind, so it stays hidden from you until the campaign is closed."
        )
