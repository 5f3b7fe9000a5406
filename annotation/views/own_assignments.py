"""The annotator's own assignments and campaigns, as every annotator page looks them up.

The item page and the save read the assignment with its membership, withholding, progress and
practice subqueries on every request: those two querysets are compiled once per process
(``core.compiled_queries``), since building them cost more CPU than running them.
"""

from typing import Any
from uuid import UUID

from django.contrib.auth.models import User
from django.db.models import Exists, OuterRef, QuerySet

from annotation.models import Assignment, Campaign
from annotation.queue_progress import progress_annotations
from annotation.services.quality_control import practice_pending
from annotation.views.closed import closed_campaigns, get_or_closed
from core.compiled_queries import SAMPLE_IDS, SAMPLE_UUID, CompiledQuery
from core.signed_in import SignedInRequest

# An assignment with what its query annotated (queue counts, practice_pending): attributes of
# the query, not of the model, so not typed.
AnnotatedAssignment = Any


def annotator_campaigns(user: User) -> QuerySet[Campaign]:
    """Open campaigns in which ``user`` is an active annotator."""
    return Campaign.objects.filter(
        is_open=True, is_imported=False, memberships__annotator=user, memberships__active=True
    )


def annotator_assignments(user: User) -> QuerySet[Assignment]:
    """The assignments ``user`` may open: their own, in campaigns they still annotate, but none
    withheld from them (their text's gold was shown to them in another campaign)."""
    return Assignment.objects.filter(annotator=user, item__campaign__in=annotator_campaigns(user)).not_withheld()


def has_practice_pending(campaign_id: int | OuterRef, annotator_id: int | OuterRef) -> Exists:
    """Whether the annotator has a practice round still to pass in the campaign, as a subquery
    (the ids may be ``OuterRef``)."""
    return Exists(practice_pending().filter(campaign_id=campaign_id, annotator_id=annotator_id))


def _own_assignment_to_show(annotator_id: int, public_id: UUID) -> QuerySet[Assignment]:
    return (
        annotator_assignments(User(pk=annotator_id))
        .filter(public_id=public_id)
        .select_related("item__campaign", "item__text", "item__system_a", "item__system_b")
        .annotate(
            **progress_annotations(OuterRef("item__campaign_id"), OuterRef("annotator_id")),
            practice_pending=has_practice_pending(OuterRef("item__campaign_id"), OuterRef("annotator_id")),
        )
    )


def _own_assignment_to_save(annotator_id: int, public_id: UUID) -> QuerySet[Assignment]:
    return (
        annotator_assignments(User(pk=annotator_id))
        .filter(public_id=public_id)
        .select_related("item__campaign")
        .annotate(practice_pending=has_practice_pending(OuterRef("item__campaign_id"), OuterRef("annotator_id")))
    )


# Compiled once per process: building and compiling these subqueries cost more CPU than running them.
own_assignment_to_show = CompiledQuery(_own_assignment_to_show, (SAMPLE_IDS[0], SAMPLE_UUID))
own_assignment_to_save = CompiledQuery(_own_assignment_to_save, (SAMPLE_IDS[0], SAMPLE_UUID))


def _own_or_closed(query: CompiledQuery[Assignment], request: SignedInRequest, public_id: UUID) -> AnnotatedAssignment:
    """The annotator's assignment from ``query``. Anyone else's is a plain 404; one of a closed
    campaign raises ``CampaignClosed``."""
    found = query(request.user.pk, public_id)
    if found:
        return found[0]
    closed = closed_campaigns(request.user).filter(
        items__assignments__public_id=public_id, items__assignments__annotator=request.user
    )
    return get_or_closed(annotator_assignments(request.user), closed, public_id=public_id)


def get_own_assignment(request: SignedInRequest, public_id: UUID) -> AnnotatedAssignment:
    """The annotator's assignment, with all its page shows: one query."""
    return _own_or_closed(own_assignment_to_show, request, public_id)


def get_own_assignment_to_save(request: SignedInRequest, public_id: UUID) -> AnnotatedAssignment:
    """The annotator's assignment with what a save reads: no text, no outputs."""
    return _own_or_closed(own_assignment_to_save, request, public_id)
