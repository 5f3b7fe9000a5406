"""The human side of a leaderboard: campaigns, agreement, ratings and merged labels of a dataset.

Everything is read through ``annotation.judgement_queries`` (the one query that selects and orders
judgements) and computed by the pure modules; the result is plain data, ready to store.
"""

import hashlib
from collections.abc import Callable, Hashable, Mapping
from functools import cache as once
from pathlib import Path
from typing import Any, TypeVar, cast

import numpy as np
from django.core.cache import cache
from django.db.models import Count, Max, QuerySet

from annotation import agreement, judgement_queries, ratings
from annotation.models import (
    ASPECTS,
    Campaign,
    CampaignAnnotator,
    Item,
    Judgement,
    Resolution,
    TripleLabel,
)
from annotation.triple_checks.models import TripleAdjudication
from leaderboard import correlation
from leaderboard.correlation import interval_ranks
from scoring.models import Dataset

# A method's leaderboard of one aspect: each system's rating figures and its "rank" range.
RatedBoard = dict[str, dict[str, Any]]
Kept = TypeVar("Kept")

RATING_METHODS: dict[str, Callable[..., ratings.Leaderboard]] = {
    "elo": ratings.elo_leaderboard,
    "bt": ratings.bradley_terry_leaderboard,
}
# Ratings of one aspect's battles are kept for the builds that follow (``_kept_by_battles``); under
# a steady stream of saves each build makes new ones, so they expire soon.
RATINGS_KEPT_FOR = 10 * 60


def rate(battles_of_aspect: ratings.Battles, rounds: int) -> dict[str, RatedBoard]:
    """Both methods' leaderboards of one aspect's battles, each entry with its rank range.

    No battles, no ratings: every system would sit at the initial rating, which ranks nothing.
    Kept in the cache by the battles (``_kept_by_battles``).
    """
    return _kept_by_battles(f"ratings:{rounds}", battles_of_aspect, lambda: _rate(battles_of_aspect, rounds))


def _kept_by_battles(part: str, battles: ratings.Battles, compute: Callable[[], Kept]) -> Kept:
    """``part`` computed from ``battles`` alone, from the cache when these battles were seen lately.

    The ratings are deterministic (the bootstraps are seeded): the same battles always give the
    same ones. So a build after new judgements rates again only the aspects these changed (a save
    judges the first four aspects, or completeness alone).
    """
    digest = hashlib.sha256(_rating_code().encode("ascii"))
    digest.update(repr(battles.systems).encode("utf-8"))
    for array in (battles.a, battles.b, battles.outcome):
        digest.update(array.tobytes())
    # None only for a default of None: compute never returns it.
    return cast(Kept, cache.get_or_set(f"leaderboard:{part}:{digest.hexdigest()[:32]}", compute, RATINGS_KEPT_FOR))


@once
def _rating_code() -> str:
    """A digest of the code that makes the kept ratings: after a deploy that changes how ratings
    are made, the ones kept by the code before are never served."""
    digest = hashlib.sha256()
    for module in (ratings, correlation):
        digest.update(Path(module.__file__ or "").read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()


def _rate(battles_of_aspect: ratings.Battles, rounds: int) -> dict[str, RatedBoard]:
    rated: dict[str, RatedBoard] = {method: {} for method in RATING_METHODS}
    if not len(battles_of_aspect):
        return rated
    for method, leaderboard_of in RATING_METHODS.items():
        board: RatedBoard = leaderboard_of(battles_of_aspect, rounds=rounds)
        for system, (best, worst) in interval_ranks(board).items():
            board[system]["rank"] = [best, worst]
        rated[method] = board
    return rated


def single_pass(battles_of_aspect: ratings.Battles) -> ratings.Leaderboard:
    """One pass of online Elo in import order (no battles: none), kept by the battles like ``rate``."""
    if not len(battles_of_aspect):
        return {}
    return _kept_by_battles(
        "single-pass", battles_of_aspect, lambda: ratings.single_pass_leaderboard(battles_of_aspect)
    )


def win_rate_matrix(battles: ratings.Battles) -> dict[str, list[Any]]:
    """Row system's share of points against the column system (a tie counts half), and battle counts.

    Returns ``{"systems": [...], "rates": [[share or None]], "battles": [[count]]}``; a pair
    that never met has rate None.
    """
    wins = ratings.win_matrix(battles)
    counts = np.rint(wins + wins.T).astype(int)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = wins / counts
    return {
        "systems": list(battles.systems),
        "rates": [
            [None if count == 0 else float(rate) for rate, count in zip(row, row_counts, strict=True)]
            for row, row_counts in zip(rates, counts, strict=True)
        ],
        "battles": counts.tolist(),
    }


def judgement_version(dataset: Dataset) -> tuple[Any, ...]:
    """Changes whenever a campaign of the dataset is made, a judgement saved, edited or deleted,
    an annotator left out of ratings or taken back in, an item adjudicated, a campaign's
    choice of rating labels changed, or a triple-check campaign made, one of its labels saved or
    one of its triples adjudicated."""
    campaigns = Campaign.objects.filter(dataset=dataset).aggregate(count=Count("pk"), last=Max("pk"))
    judgements = Judgement.objects.filter(assignment__item__campaign__dataset=dataset).aggregate(
        count=Count("pk"), last=Max("pk"), edited=Max("updated_at")
    )
    exclusions = CampaignAnnotator.objects.filter(campaign__dataset=dataset).aggregate(
        changed=Max("exclusion_changed_at")
    )
    resolutions = Resolution.objects.filter(item__campaign__dataset=dataset).aggregate(
        count=Count("pk"), changed=Max("resolved_at")
    )
    adjudicated = Campaign.objects.filter(dataset=dataset, rating_labels=Campaign.RatingLabels.ADJUDICATED)
    triple_checks = TripleLabel.objects.filter(item__campaign__dataset=dataset).aggregate(
        campaigns=Count("item__campaign", distinct=True), saved=Count("saved_at"), last=Max("saved_at")
    )
    triple_adjudications = TripleAdjudication.objects.filter(item__campaign__dataset=dataset).aggregate(
        count=Count("pk"), changed=Max("adjudicated_at")
    )
    return (
        campaigns["count"],
        campaigns["last"],
        judgements["count"],
        judgements["last"],
        judgements["edited"],
        exclusions["changed"],
        resolutions["count"],
        resolutions["changed"],
        tuple(adjudicated.order_by("pk").values_list("pk", flat=True)),
        tuple(triple_checks.values()),
        tuple(triple_adjudications.values()),
    )


def campaign_summaries(dataset: Dataset) -> list[dict[str, Any]]:
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


def merged_item_labels(
    campaigns: QuerySet[Campaign], merged: Mapping[tuple[Hashable, str], str]
) -> dict[str, dict[tuple[int, str, str], str]]:
    """``{aspect: {(text id, system A, system B): merged label}}`` from the campaigns' merged labels
    ``{(item, aspect): label}`` (``agreement.merge``)."""
    item_keys: dict[Hashable, tuple[int, str, str]] = {
        pk: (text_id, system_a, system_b)
        for pk, text_id, system_a, system_b in Item.objects.filter(campaign__in=campaigns).values_list(
            "pk", "text_id", "system_a__name", "system_b__name"
        )
    }
    labels: dict[str, dict[tuple[int, str, str], str]] = {aspect: {} for aspect in ASPECTS}
    for (item, aspect), label in merged.items():
        # Two campaigns may hold the same text and pair: their merged labels are merged again.
        key = item_keys[item]
        previous = labels[aspect].get(key)
        labels[aspect][key] = label if previous is None else agreement.merge_labels([previous, label])
    return labels


def human_side(dataset: Dataset, rounds: int = ratings.BOOTSTRAP_ROUNDS) -> dict[str, Any]:
    """Campaigns, agreement, ratings (Elo and Bradley–Terry), win rates and merged labels.

    ``single_pass`` holds, beside the bootstrap medians, one pass of online Elo in import order:
    the GENRES paper's ratings, which depend on the order of play. The judgements are read and
    merged once for all of it (``judgement_queries.human_battles`` per aspect would read them five times more).
    """
    campaigns = judgement_queries.campaigns_of(dataset)
    rows = list(judgement_queries.judgement_rows(campaigns))
    judgements = judgement_queries.as_agreement_judgements(rows)
    figures = agreement.agreement(judgements)
    merged = judgement_queries.adjudicated(campaigns, agreement.merge(judgements))
    pair_of_item, systems = judgement_queries.item_pairs(rows), judgement_queries.systems_of(campaigns)
    by_aspect = {aspect: judgement_queries.merged_battles(merged, pair_of_item, aspect, systems) for aspect in ASPECTS}
    rated = {aspect: rate(by_aspect[aspect], rounds) for aspect in ASPECTS}
    return {
        "campaigns": campaign_summaries(dataset),
        "judgements": len(judgements),
        "systems": systems,
        "agreement": {
            aspect: {key: figures[aspect][key] for key in ("accuracy", "kappa", "alpha", "items", "pairs")}
            for aspect in ASPECTS
        },
        "ratings": {method: {aspect: rated[aspect][method] for aspect in ASPECTS} for method in RATING_METHODS},
        "single_pass": {aspect: single_pass(by_aspect[aspect]) for aspect in ASPECTS},
        "win_rates": {aspect: win_rate_matrix(by_aspect[aspect]) for aspect in ASPECTS},
        "labels": merged_item_labels(campaigns, merged),
    }
