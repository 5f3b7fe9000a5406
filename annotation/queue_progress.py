"""How far an annotator is in a campaign's queue, counted in pairs and in judgements.

A pair counts once its four first aspects are saved: that is the stage after which the page
moves on, while its completeness waits until every pair of the text has its four. The
judgements count every aspect saved, so each save shows. Attention checks count like any pair:
the figures must not tell them apart.
"""

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from annotation.models import ASPECTS, FIRST_ASPECTS, Assignment, Judgement, aspects_judged, first_aspects_judged


@dataclass(frozen=True)
class QueueProgress:
    pairs: int  # the annotator's assignments in the campaign
    pairs_judged: int  # of them, those with their four first aspects saved
    judgements: int  # aspects saved, over all the pairs

    @property
    def judgements_asked(self) -> int:
        return self.pairs * len(ASPECTS)


def _count(query: QuerySet[Any]) -> Coalesce:
    """The one count ``query`` yields (grouped to one row), 0 when it yields no row."""
    return Coalesce(Subquery(query, output_field=IntegerField()), Value(0))


def progress_annotations(campaign_id: int | OuterRef, annotator_id: int | OuterRef) -> dict[str, Coalesce]:
    """``queue_pairs``, ``queue_pairs_judged`` and ``queue_judgements`` of the annotator in the campaign, as subqueries
    to annotate a query with (the ids may be ``OuterRef``); ``QueueProgress`` reads them back."""
    queue = Assignment.objects.filter(annotator_id=annotator_id, item__campaign_id=campaign_id).order_by()
    judged = queue.annotate(first_aspects=first_aspects_judged()).filter(first_aspects=len(FIRST_ASPECTS))
    # Summed per assignment, each counted on the judgements' (assignment, aspect) index: a join of
    # the judgements to the queue would read every judgement of the campaign.
    judgements = queue.annotate(judgements_saved=aspects_judged())
    return {
        "queue_pairs": _count(queue.values("annotator_id").annotate(count=Count("pk")).values("count")),
        "queue_pairs_judged": _count(judged.values("annotator_id").annotate(count=Count("pk")).values("count")),
        "queue_judgements": _count(
            judgements.values("annotator_id").annotate(count=Sum("judgements_saved")).values("count")
        ),
    }


def queue_progress(annotated: Any) -> QueueProgress:
    """The ``QueueProgress`` of a row annotated with ``progress_annotations`` (attributes of the
    query, not of the model, so not typed)."""
    return QueueProgress(
        pairs=annotated.queue_pairs, pairs_judged=annotated.queue_pairs_judged, judgements=annotated.queue_judgements
    )


def campaign_counts() -> dict[str, Count | Coalesce]:
    """How far whole campaigns are, to annotate a query of campaigns with: ``item_count`` (real
    pairs, attention checks aside), ``assignment_count``, ``done_count`` (assignments done),
    ``judgement_count`` and ``annotator_count`` (active ones)."""
    return {
        "item_count": Count("items", filter=Q(items__attention_worse=""), distinct=True),
        "assignment_count": Count("items__assignments", distinct=True),
        "done_count": Count(
            "items__assignments", filter=Q(items__assignments__status=Assignment.Status.DONE), distinct=True
        ),
        # A subquery: one more join would multiply the rows the counts above go through.
        "judgement_count": _count(
            Judgement.objects.filter(assignment__item__campaign_id=OuterRef("pk"))
            .order_by()
            .values("assignment__item__campaign_id")
            .annotate(count=Count("pk"))
            .values("count")
        ),
        "annotator_count": Count("memberships", filter=Q(memberships__active=True), distinct=True),
    }
