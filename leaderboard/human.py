"""The human side of a leaderboard: campaigns, agreement, ratings and merged labels of a dataset.

Everything is read through ``annotation.battles`` (the one query that selects and orders
judgements) and computed by the pure modules; the result is plain data, ready to store.
"""

from django.db.models import Count, Max

from annotation import agreement, battles, ratings
from annotation.models import ASPECTS, Campaign, CampaignAnnotator, Item, Judgement
from leaderboard.correlation import interval_ranks
from leaderboard.plots import win_rate_matrix

RATING_METHODS = {"elo": ratings.elo_leaderboard, "bt": ratings.bradley_terry_leaderboard}


def rate(battles_of_aspect, rounds):
    """Both methods' leaderboards of one aspect's battles, each entry with its rank range.

    No battles, no ratings: every system would sit at the initial rating, which ranks nothing.
    """
    rated = {method: {} for method in RATING_METHODS}
    if not len(battles_of_aspect):
        return rated
    for method, leaderboard_of in RATING_METHODS.items():
        board = leaderboard_of(battles_of_aspect, rounds=rounds)
        for system, (best, worst) in interval_ranks(board).items():
            board[system]["rank"] = [best, worst]
        rated[method] = board
    return rated


def judgement_version(dataset):
    """Changes whenever a campaign of the dataset is made, a judgement saved, edited or deleted,
    or an annotator left out of ratings or taken back in."""
    campaigns = Campaign.objects.filter(dataset=dataset).aggregate(count=Count("pk"), last=Max("pk"))
    judgements = Judgement.objects.filter(assignment__item__campaign__dataset=dataset).aggregate(
        count=Count("pk"), last=Max("pk"), edited=Max("updated_at")
    )
    exclusions = CampaignAnnotator.objects.filter(campaign__dataset=dataset).aggregate(
        changed=Max("exclusion_changed_at")
    )
    return (
        campaigns["count"],
        campaigns["last"],
        judgements["count"],
        judgements["last"],
        judgements["edited"],
        exclusions["changed"],
    )


def campaign_summaries(dataset):
    return [
        {
            "name": campaign.name,
            "open": campaign.is_open,
            "imported": campaign.is_imported,
            "judgements": campaign.count,
        }
        for campaign in Campaign.objects.filter(dataset=dataset)
        .annotate(count=Count("items__assignments__judgements"))
        .order_by("created_at", "pk")
    ]


def merged_item_labels(campaigns, judgements):
    """``{aspect: {(text id, system A, system B): merged label}}`` from the campaigns' judgements."""
    item_keys = {
        pk: (text_id, system_a, system_b)
        for pk, text_id, system_a, system_b in Item.objects.filter(campaign__in=campaigns).values_list(
            "pk", "text_id", "system_a__name", "system_b__name"
        )
    }
    labels = {aspect: {} for aspect in ASPECTS}
    merged = agreement.merge(judgements)
    for (item, aspect), label in merged.items():
        # Two campaigns may hold the same text and pair: their merged labels are merged again.
        key = item_keys[item]
        previous = labels[aspect].get(key)
        labels[aspect][key] = label if previous is None else agreement.merge_labels([previous, label])
    return labels


def human_side(dataset, rounds=ratings.BOOTSTRAP_ROUNDS):
    """Campaigns, agreement, ratings (Elo and Bradley–Terry), win rates and merged labels.

    ``single_pass`` holds, beside the bootstrap medians, one pass of online Elo in import order:
    the GENRES paper's ratings, which depend on the order of play.
    """
    campaigns = battles.campaigns_of(dataset)
    judgements = battles.agreement_judgements(campaigns)
    figures = agreement.agreement(judgements)
    by_aspect = {aspect: battles.human_battles(campaigns, aspect) for aspect in ASPECTS}
    rated = {aspect: rate(by_aspect[aspect], rounds) for aspect in ASPECTS}
    return {
        "campaigns": campaign_summaries(dataset),
        "judgements": len(judgements),
        "systems": battles.systems_of(campaigns),
        "agreement": {
            aspect: {key: figures[aspect][key] for key in ("accuracy", "kappa", "alpha", "items", "pairs")}
            for aspect in ASPECTS
        },
        "ratings": {method: {aspect: rated[aspect][method] for aspect in ASPECTS} for method in RATING_METHODS},
        "single_pass": {
            aspect: ratings.single_pass_leaderboard(by_aspect[aspect]) if len(by_aspect[aspect]) else {}
            for aspect in ASPECTS
        },
        "win_rates": {aspect: win_rate_matrix(by_aspect[aspect]) for aspect in ASPECTS},
        "labels": merged_item_labels(campaigns, judgements),
    }
