"""The adaptive pair order's side of next-item selection: reads the queue and the battles, lets
``annotation.adaptive`` choose (see there for the rule)."""

from typing import cast

from django.contrib.auth.models import User
from django.db.models import Count, Q

from annotation import adaptive, judgement_queries
from annotation.models import ASPECTS, FIRST_ASPECTS, Assignment, Campaign


def next_adaptive_assignment(annotator: User, campaign: Campaign | int) -> Assignment | None:
    """The annotator's next assignment in an adaptive ``campaign`` (an instance or an id; open, the
    annotator active), or None.

    Queries: the annotator's pending assignments, then the campaign's judgements per aspect.
    """
    pending = (
        Assignment.objects.filter(annotator=annotator, item__campaign=campaign, status=Assignment.Status.PENDING)
        .not_withheld()
        .annotate(first_judged=Count("judgements", filter=Q(judgements__aspect__in=FIRST_ASPECTS)))
        .values_list(
            "pk", "item__text_id", "item__system_a__name", "item__system_b__name", "queue_position", "first_judged"
        )
    )
    candidates = [
        adaptive.Candidate(
            key=pk,
            text=text,
            pair=(system_a, system_b),
            position=position,
            first_aspects_done=judged == len(FIRST_ASPECTS),
        )
        for pk, text, system_a, system_b, position, judged in pending
    ]
    if not candidates:
        return None
    campaigns = Campaign.objects.filter(pk=getattr(campaign, "pk", campaign))
    priorities = adaptive.pair_priorities(
        {aspect: judgement_queries.human_battles(campaigns, aspect) for aspect in ASPECTS}
    )
    chosen = adaptive.choose(candidates, priorities)
    return Assignment.objects.select_related("item").get(pk=cast(int, chosen))  # candidates are keyed by pk
