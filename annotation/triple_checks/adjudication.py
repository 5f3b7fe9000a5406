"""Adjudicating a triple check: the sampled triples its annotators disagree on, and staff's gold
label for one of them (``TripleAdjudication``), which then replaces the majority wherever the
gold label is read (``queries.gold_labels``).

A triple is a **disagreement** when two or more annotators saved an answer on it (attention
checks aside) and the answers differ, on support or on the fact count. One whose annotators
split evenly on support has no majority: it has no gold label until it is adjudicated.
Annotators are shown as "annotator 1, 2…" in the order of their user ids, the same numbers on
every triple of the campaign.
"""

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotation.adjudication import AdjudicationError, save_gold_label
from annotation.triple_checks import statistics
from annotation.triple_checks.models import TripleAdjudication, TripleCheck, TripleCheckItem, TripleLabel


@dataclass(frozen=True)
class Answer:
    annotator: int  # 1, 2… in the campaign (module docstring)
    supported: bool
    facts: int


@dataclass
class Disagreement:
    """One triple whose annotators disagree, with their answers and staff's label if recorded."""

    item: TripleCheckItem  # with its text, output and system
    answers: list[Answer]
    adjudication: TripleAdjudication | None

    @property
    def majority(self) -> tuple[bool | None, int | None]:
        """The annotators' gold label: (supported, facts); supported None on an even split."""
        return statistics.gold_label([each.supported for each in self.answers], [each.facts for each in self.answers])

    @property
    def split_on(self) -> str:
        """What the answers differ on: "support", "facts" or "support and facts"."""
        support = len({each.supported for each in self.answers}) > 1
        facts = len({each.facts for each in self.answers}) > 1
        return " and ".join(part for part, differs in (("support", support), ("facts", facts)) if differs)


def annotator_numbers(campaign: TripleCheck) -> dict[int, int]:
    """``{user id: 1, 2…}``: every annotator who saved a label in the campaign, by user id."""
    saved = TripleLabel.objects.answered().filter(item__campaign=campaign)
    ids = sorted(set(saved.values_list("annotator_id", flat=True)))
    return {annotator: number for number, annotator in enumerate(ids, start=1)}


def disagreements(campaign: TripleCheck) -> list[Disagreement]:
    """The campaign's disagreements (module docstring), in the order of their texts, then items."""
    numbers = annotator_numbers(campaign)
    answers: dict[int, list[Answer]] = {}
    saved = TripleLabel.objects.answered().filter(item__campaign=campaign, item__attention=False)
    for item_id, annotator_id, supported, facts in saved.values_list("item_id", "annotator_id", "supported", "facts"):
        answers.setdefault(item_id, []).append(Answer(numbers[annotator_id], bool(supported), int(facts or 0)))
    disputed = {
        item_id: sorted(found, key=lambda answer: answer.annotator)
        for item_id, found in answers.items()
        if len(set((each.supported, each.facts) for each in found)) > 1
    }
    items = (
        TripleCheckItem.objects.filter(pk__in=disputed)
        .select_related("text", "output__system", "adjudication__adjudicated_by")
        .order_by("text__position", "pk")
    )
    return [Disagreement(item, disputed[item.pk], getattr(item, "adjudication", None)) for item in items]


@transaction.atomic
def adjudicate(item: TripleCheckItem, supported: bool, facts: int, adjudicated_by: User) -> TripleAdjudication:
    """Record (or change) staff's gold label for ``item``, with who and when.

    Refused for a triple fewer than two annotators answered: there is nothing to settle. The
    leaderboards of the dataset are rebuilt by a job, as after a saved label.
    """
    if TripleLabel.objects.answered().filter(item=item).count() < 2:
        raise AdjudicationError("Only a triple that two or more annotators labelled can be adjudicated.")
    adjudication = TripleAdjudication.objects.filter(item=item).first() or TripleAdjudication(item=item)
    adjudication.supported, adjudication.facts = supported, facts
    adjudication.adjudicated_by, adjudication.adjudicated_at = adjudicated_by, timezone.now()
    save_gold_label(adjudication, item.campaign.dataset_id)
    return adjudication
