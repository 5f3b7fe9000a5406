"""The one query that turns stored judgements into inputs for agreement and ratings.

Agreement, the ``compute_*`` commands, the campaign page and the leaderboard all read human
judgements through these functions, so they select and order them the same way. Judgements
come in primary-key order, which is the order they were saved or imported: online Elo's
"import order".
"""

from collections.abc import Hashable, Iterable, Mapping

from django.db.models import Exists, OuterRef, QuerySet

from annotation import agreement, ratings
from annotation.models import ASPECTS, Campaign, CampaignAnnotator, Judgement, Resolution
from scoring.models import Dataset, System

# (item id, aspect, annotator id, label, system A name, system B name)
JudgementRow = tuple[int, str, int, str, str, str]


def campaigns_of(dataset: Dataset, campaign: Campaign | None = None) -> QuerySet[Campaign]:
    """The campaigns of ``dataset`` (all of them, or just ``campaign``, which must belong to it)."""
    campaigns = Campaign.objects.filter(dataset=dataset)
    if campaign is not None:
        campaigns = campaigns.filter(pk=campaign.pk)
    return campaigns


def find_campaigns(dataset_name: str, campaign_name: str | None = None) -> QuerySet[Campaign]:
    """``campaigns_of`` by name; LookupError with a message for the user when a name is unknown."""
    dataset = Dataset.objects.filter(name=dataset_name).first()
    if dataset is None:
        raise LookupError(f"No dataset named {dataset_name!r}.")
    campaign = None
    if campaign_name is not None:
        campaign = Campaign.objects.filter(dataset=dataset, name=campaign_name).first()
        if campaign is None:
            raise LookupError(f"No campaign named {campaign_name!r} on dataset {dataset_name}.")
    return campaigns_of(dataset, campaign)


def rated_judgements(campaigns: QuerySet[Campaign]) -> QuerySet[Judgement]:
    """The judgements of ``campaigns`` that ratings and agreement count: not those of attention
    checks, nor those of an annotator left out of the campaign's ratings (the quality view)."""
    excluded = CampaignAnnotator.objects.filter(
        campaign_id=OuterRef("assignment__item__campaign_id"),
        annotator_id=OuterRef("assignment__annotator_id"),
        excluded=True,
    )
    return Judgement.objects.filter(
        assignment__item__campaign__in=campaigns, assignment__item__attention_worse=""
    ).exclude(Exists(excluded))


def judgement_rows(
    campaigns: QuerySet[Campaign], aspects: Iterable[str] = ASPECTS
) -> QuerySet[Judgement, JudgementRow]:
    """``(item id, aspect, annotator id, label, system A name, system B name)`` in import order."""
    return (
        rated_judgements(campaigns)
        .filter(aspect__in=list(aspects))
        .order_by("pk")
        .values_list(
            "assignment__item_id",
            "aspect",
            "assignment__annotator_id",
            "label",
            "assignment__item__system_a__name",
            "assignment__item__system_b__name",
        )
    )


def agreement_judgements(campaigns: QuerySet[Campaign], aspects: Iterable[str] = ASPECTS) -> list[agreement.Judgement]:
    """Judgements as :class:`annotation.agreement.Judgement`, ready for ``agreement()`` and ``merge()``."""
    return as_agreement_judgements(judgement_rows(campaigns, aspects))


def as_agreement_judgements(rows: Iterable[JudgementRow]) -> list[agreement.Judgement]:
    """``judgement_rows`` as :class:`annotation.agreement.Judgement`."""
    return [
        agreement.Judgement(item=item, aspect=aspect, annotator=annotator, label=label)
        for item, aspect, annotator, label, _, _ in rows
    ]


def item_pairs(rows: Iterable[JudgementRow]) -> dict[Hashable, tuple[str, str]]:
    """``{item id: (system A name, system B name)}`` of ``judgement_rows``."""
    return {item: (system_a, system_b) for item, _, _, _, system_a, system_b in rows}


def merged_battles(
    merged_labels: Mapping[tuple[Hashable, str], str],
    pair_of_item: Mapping[Hashable, tuple[str, str]],
    aspect: str,
    systems: list[str],
) -> ratings.Battles:
    """One aspect's battles from merged labels ``{(item, aspect): label}`` (``agreement.merge``),
    each where its item was first judged."""
    records = [(*pair_of_item[item], label) for (item, code), label in merged_labels.items() if code == aspect]
    return ratings.Battles.from_labels(records, systems=systems)


def adjudicated(
    campaigns: QuerySet[Campaign], merged: Mapping[tuple[Hashable, str], str]
) -> dict[tuple[Hashable, str], str]:
    """The merged labels ``{(item, aspect): label}`` (``agreement.merge``) with the resolutions of
    the campaigns that rate adjudicated labels in place of theirs.

    Only items that still have counted judgements are touched, so an item keeps its place in the
    order of play (online Elo) and an item whose annotators are all left out stays out.
    """
    resolutions = Resolution.objects.filter(
        item__campaign__in=campaigns, item__campaign__rating_labels=Campaign.RatingLabels.ADJUDICATED
    ).values_list("item_id", "aspect", "label")
    result = dict(merged)
    for item_id, aspect, label in resolutions:
        if (item_id, aspect) in result:
            result[item_id, aspect] = label
    return result


def systems_of(campaigns: QuerySet[Campaign]) -> list[str]:
    """Names of every system the campaigns compare, in the systems' usual order."""
    return list(System.objects.filter(campaigns__in=campaigns).distinct().values_list("name", flat=True))


def human_battles(campaigns: QuerySet[Campaign], aspect: str, *, merged: bool = True) -> ratings.Battles:
    """The battles of one aspect as :class:`annotation.ratings.Battles`.

    ``merged`` first merges the judgements of an item judged more than once (the rule of
    ``agreement.merge_labels``, or staff's resolution in a campaign that rates adjudicated
    labels) into one battle, placed where the item was first judged; otherwise every judgement
    is a battle of its own.
    """
    rows = list(judgement_rows(campaigns, [aspect]))
    if merged:
        merged_labels = adjudicated(campaigns, agreement.merge(as_agreement_judgements(rows)))
        return merged_battles(merged_labels, item_pairs(rows), aspect, systems_of(campaigns))
    records = [(system_a, system_b, label) for _, _, _, label, system_a, system_b in rows]
    return ratings.Battles.from_labels(records, systems=systems_of(campaigns))
