"""The campaign quality view's figures, per annotator, and the rule that flags outliers.

Per annotator: agreement with the others on the real items (tie-discounted accuracy and
Cohen's kappa, ``agreement.annotator_agreement``), attention-check accuracy, the practice
round's result, the median time per finished item, the number of judgements, whether their
judgements are left out of ratings. Everyone's figures are computed, the excluded included,
so that a researcher sees what they leave out.

An annotator is flagged when (docs/human-evaluation.md, "Quality control"):

* their attention-check accuracy is below :data:`MIN_ATTENTION_ACCURACY`;
* their agreement is more than :data:`AGREEMENT_GAP` below the median of the annotators'
  agreements (with :data:`MIN_PAIRS` compared judgements or more, and at least three annotators);
* their median time per finished item is below :data:`MIN_MEDIAN_SECONDS`.
"""

import statistics
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field

from django.db.models import F

from annotation import agreement
from annotation.models import ASPECTS, Aspect, Assignment, Campaign, CampaignAnnotator, Judgement, Label, PracticeAnswer

MIN_ATTENTION_ACCURACY = 0.8
AGREEMENT_GAP = 0.15
MIN_PAIRS = 5
MIN_MEDIAN_SECONDS = 10.0
MIN_ANNOTATORS_FOR_MEDIAN = 3


@dataclass
class AnnotatorQuality:
    membership: CampaignAnnotator  # with annotator and exclusion_changed_by
    judgements: int = 0
    items_done: int = 0
    median_seconds: float | None = None
    agreement: float | None = None
    kappa: float | None = None
    agreement_pairs: int = 0
    checks_answered: int = 0
    checks_passed: int = 0
    practice_correct: int | None = None  # in the latest attempt with answers
    practice_total: int | None = None
    flags: list[str] = field(default_factory=list)

    @property
    def username(self) -> str:
        return self.membership.annotator.get_username()

    @property
    def attention_accuracy(self) -> float | None:
        return self.checks_passed / self.checks_answered if self.checks_answered else None


def outlier_flags(row: AnnotatorQuality, median_agreement: float | None) -> list[str]:
    """The reasons, in words, to look at this annotator's work (module docstring)."""
    flags: list[str] = []
    accuracy = row.attention_accuracy
    if accuracy is not None and accuracy < MIN_ATTENTION_ACCURACY:
        flags.append(f"attention checks {accuracy:.0%} < {MIN_ATTENTION_ACCURACY:.0%}")
    if (
        median_agreement is not None
        and row.agreement is not None
        and row.agreement_pairs >= MIN_PAIRS
        and row.agreement < median_agreement - AGREEMENT_GAP
    ):
        flags.append(f"agreement {row.agreement:.2f}, median {median_agreement:.2f}")
    if row.median_seconds is not None and row.median_seconds < MIN_MEDIAN_SECONDS:
        flags.append(f"median {row.median_seconds:.0f} s per item < {MIN_MEDIAN_SECONDS:.0f} s")
    return flags


def attention_results(campaign: Campaign) -> list[tuple[int, int, bool]]:
    """``(assignment id, annotator id, passed)`` of every answered attention check of ``campaign``:
    passed when the checked aspect went to the side left as it was."""
    rows = (
        Judgement.objects.filter(assignment__item__campaign=campaign, aspect=F("assignment__item__attention_aspect"))
        .exclude(assignment__item__attention_worse="")
        .values_list("assignment_id", "assignment__annotator_id", "assignment__item__attention_worse", "label")
    )
    expected: dict[str, str] = {Label.A: Label.B, Label.B: Label.A}
    return [
        (assignment_id, annotator_id, label == expected[worse]) for assignment_id, annotator_id, worse, label in rows
    ]


def real_judgements(campaign: Campaign) -> list[agreement.Judgement]:
    """Every judgement of the campaign's real items (attention checks aside), everyone's: the
    quality page shows what a left-out annotator did too."""
    rows = Judgement.objects.filter(
        assignment__item__campaign=campaign, assignment__item__attention_worse=""
    ).values_list("assignment__item_id", "aspect", "assignment__annotator_id", "label")
    return [agreement.Judgement(*row) for row in rows]


@dataclass
class AgreementMatrix:
    """The annotator × annotator matrix (``agreement.pairwise_agreement``) with names, and
    Fleiss' kappa and Krippendorff's alpha per aspect (``agreement.agreement``)."""

    names: list[str]
    # (row annotator's name, [(accuracy, kappa, pairs) per column annotator])
    rows: list[tuple[str, list[tuple[float | None, float | None, int]]]]
    aspects: list[dict]


def agreement_matrix(campaign: Campaign, names_of: Mapping[int, str] | None = None) -> AgreementMatrix:
    """The campaign's matrix, annotators named by ``names_of`` (annotator id -> name; user names when None)."""
    judgements = real_judgements(campaign)
    matrix = agreement.pairwise_agreement(judgements)
    usernames = names_of if names_of is not None else dict(campaign.annotators.values_list("pk", "username"))
    figures = agreement.agreement(judgements)
    names = [usernames[annotator] for annotator in matrix["annotators"]]
    return AgreementMatrix(
        names=names,
        rows=[
            (name, list(zip(accuracy, kappa, pairs, strict=True)))
            for name, accuracy, kappa, pairs in zip(
                names, matrix["accuracy"], matrix["kappa"], matrix["pairs"], strict=True
            )
        ],
        aspects=[{"aspect": Aspect(code), **figures[code]} for code in ASPECTS],
    )


def campaign_quality(campaign: Campaign) -> list[AnnotatorQuality]:
    """One :class:`AnnotatorQuality` per annotator who joined ``campaign``, in order of joining."""
    memberships = list(
        campaign.memberships.select_related("annotator", "exclusion_changed_by").prefetch_related("practice_answers")
    )
    # Keyed by annotator id, as ``agreement.annotator_agreement`` keys its figures.
    rows: dict[Hashable, AnnotatorQuality] = {
        membership.annotator_id: AnnotatorQuality(membership) for membership in memberships
    }

    real = real_judgements(campaign)
    for judgement in real:
        rows[judgement.annotator].judgements += 1
    for annotator, figures in agreement.annotator_agreement(real).items():
        rows[annotator].agreement = figures["accuracy"]
        rows[annotator].kappa = figures["kappa"]
        rows[annotator].agreement_pairs = figures["pairs"]

    for _, annotator_id, passed in attention_results(campaign):
        rows[annotator_id].checks_answered += 1
        rows[annotator_id].checks_passed += passed

    seconds: dict[int, list[float]] = {}
    for annotator_id, spent in Assignment.objects.filter(
        item__campaign=campaign, status=Assignment.Status.DONE
    ).values_list("annotator_id", "seconds_spent"):
        seconds.setdefault(annotator_id, []).append(spent)
    for annotator_id, times in seconds.items():
        rows[annotator_id].items_done = len(times)
        rows[annotator_id].median_seconds = statistics.median(times)

    latest: dict[int, dict[int, list[PracticeAnswer]]] = {}
    for membership in memberships:
        for answer in membership.practice_answers.all():
            latest.setdefault(membership.annotator_id, {}).setdefault(answer.attempt, []).append(answer)
    for annotator_id, attempts in latest.items():
        answers = attempts[max(attempts)]
        rows[annotator_id].practice_correct = sum(answer.correct for answer in answers)
        rows[annotator_id].practice_total = sum(answer.total for answer in answers)

    compared = [
        row.agreement for row in rows.values() if row.agreement is not None and row.agreement_pairs >= MIN_PAIRS
    ]
    median_agreement = statistics.median(compared) if len(compared) >= MIN_ANNOTATORS_FOR_MEDIAN else None
    for row in rows.values():
        row.flags = outlier_flags(row, median_agreement)
    return list(rows.values())
