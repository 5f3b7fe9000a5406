"""Agreement between annotators and merging of their judgements (pure functions, no Django).

A judgement is one annotator's label for one aspect of one item (a text and a pair of systems).
Labels are in canonical order: ``"a"`` says system A is better, ``"b"`` says system B is better,
``"tie"`` says neither. A page that shows system A on the right must first map the clicked side
with :func:`to_canonical`.

Agreement figures, per aspect, over items that at least two annotators judged:

* tie-discounted accuracy: 1 for the same label, 0.5 when exactly one label is a tie, 0 for
  opposite sides; averaged over annotator pairs pooled across items (an item judged by three
  annotators contributes three pairs);
* Cohen's kappa on the 3 × 3 table of those pooled pairs;
* Krippendorff's alpha, nominal, from the ``krippendorff`` package;
* Fleiss' kappa, generalised to items judged by different numbers of annotators;
* each annotator's tie-discounted accuracy against everyone who judged the same items;
* :func:`annotator_agreement`: each annotator against the others, pooled over the aspects,
  with Cohen's kappa as well (the quality view);
* :func:`pairwise_agreement`: every pair of annotators against each other, pooled over the
  aspects: the annotator × annotator matrix of the quality view.

Every figure is None, not 0, when there is nothing to compare (or, for kappa and alpha, when
chance agreement is already perfect, so the ratio is undefined).
"""

from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any, NamedTuple

import numpy as np

from scoring.genres.aspects import ASPECT_CODES

A, B, TIE = "a", "b", "tie"
LABELS = (A, B, TIE)

_OPPOSITE = {A: B, B: A, TIE: TIE}
# label_agreement of every pair of labels, in LABELS order, for the vectorised matrix.
_CREDIT = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.5, 0.5, 1.0]])
# Votes for the merge: a tie abstains, opposite sides cancel.
_VOTE = {A: 1, B: -1, TIE: 0}


# {annotator: label} of one item and aspect.
Labels = dict[Hashable, str]


class Judgement(NamedTuple):
    """One label; ``item`` and ``annotator`` are any hashable keys (database ids, names)."""

    item: Hashable
    aspect: str
    annotator: Hashable
    label: str


def to_canonical(label: str, swapped: bool) -> str:
    """The canonical label of a judgement made with the two systems shown in swapped places.

    ``swapped`` is True when system A was shown as the second option: "a" and "b" trade places
    and "tie" stays.
    """
    _check_label(label)
    return _OPPOSITE[label] if swapped else label


def label_agreement(first: str, second: str) -> float:
    """Tie-discounted agreement of two labels of one item: 1, 0.5 (one tie) or 0 (opposite)."""
    _check_label(first)
    _check_label(second)
    if first == second:
        return 1.0
    if TIE in (first, second):
        return 0.5
    return 0.0


def merge_labels(labels: Iterable[str]) -> str:
    """One label for an item from all its judgements.

    Two judgements: the same label gives that label, one tie gives the other label, opposite
    sides give a tie. Three or more: a label given by more than half of the annotators wins;
    otherwise the two-judgement rule generalised, i.e. ties abstain and "a" and "b" votes cancel,
    and the side with more votes wins (a tie when they balance). One judgement is kept as it is.
    """
    labels = list(labels)
    if not labels:
        raise ValueError("cannot merge an item without judgements")
    for label in labels:
        _check_label(label)
    commonest, count = Counter(labels).most_common(1)[0]
    if 2 * count > len(labels):
        return commonest
    net_vote = sum(_VOTE[label] for label in labels)
    return A if net_vote > 0 else B if net_vote < 0 else TIE


def merge(judgements: Iterable[Judgement]) -> dict[tuple[Hashable, str], str]:
    """Merged labels ``{(item, aspect): label}`` of an iterable of :class:`Judgement`.

    Keys come in the order of each item's first judgement (for online Elo's import order).
    """
    return {key: merge_labels(by_annotator.values()) for key, by_annotator in _group(judgements).items()}


def agreement(judgements: Iterable[Judgement]) -> dict[str, dict[str, Any]]:
    """Agreement figures per aspect of an iterable of :class:`Judgement`.

    Returns ``{aspect: figures}`` for every aspect in :data:`ASPECT_CODES`, where ``figures`` is::

        {"accuracy": float | None,   # tie-discounted accuracy over pooled annotator pairs
         "kappa": float | None,      # Cohen's kappa, pairs ordered by annotator key
         "alpha": float | None,      # Krippendorff's alpha, nominal
         "fleiss": float | None,     # Fleiss' kappa
         "items": int,               # items judged by two or more annotators
         "pairs": int,               # annotator pairs pooled over those items
         "annotators": {annotator: {"accuracy": float | None, "pairs": int}}}

    Raises ValueError naming the judgement when an aspect or label is unknown, or when an
    annotator judged the same aspect of the same item twice.
    """
    by_aspect: defaultdict[str, dict[Hashable, Labels]] = defaultdict(dict)
    for (item, aspect), by_annotator in _group(judgements).items():
        by_aspect[aspect][item] = by_annotator
    return {aspect: _aspect_agreement(by_aspect.get(aspect, {})) for aspect in ASPECT_CODES}


def annotator_agreement(judgements: Iterable[Judgement]) -> dict[Hashable, dict[str, Any]]:
    """Each annotator's agreement with everyone else, pooled over the aspects.

    Every (item, aspect) that the annotator and another annotator judged gives one pair (the
    annotator's label, the other's). Returns ``{annotator: {"accuracy", "kappa", "pairs"}}``:
    the tie-discounted accuracy of those pairs and Cohen's kappa on them, the annotator the
    first rater and the others pooled as the second; None when there is nothing to compare.
    """
    pairs_of: defaultdict[Hashable, list[tuple[str, str]]] = defaultdict(list)
    for by_annotator in _group(judgements).values():
        for annotator, label in by_annotator.items():
            pairs_of[annotator].extend(
                (label, other_label) for other, other_label in by_annotator.items() if other != annotator
            )
    return {
        annotator: {
            "accuracy": _mean([label_agreement(first, second) for first, second in pairs]),
            "kappa": _cohen_kappa(pairs),
            "pairs": len(pairs),
        }
        for annotator, pairs in sorted(pairs_of.items(), key=lambda entry: _annotator_key(entry[0]))
    }


def pairwise_agreement(judgements: Iterable[Judgement]) -> dict[str, Any]:
    """Every pair of annotators against each other, pooled over the aspects.

    Each (item, aspect) both judged gives one pair of labels. Returns::

        {"annotators": [annotator, ...],          # sorted by key
         "accuracy": [[float | None]],           # tie-discounted accuracy, row vs column
         "kappa": [[float | None]],              # Cohen's kappa of the pair
         "pairs": [[int]]}                       # (item, aspect) both judged

    Symmetric matrices; the diagonal and pairs with nothing in common hold None (and 0 pairs).
    All pairs' 3 × 3 tables come from one matrix product of the labels one-hot encoded.
    """
    grouped = _group(judgements)
    annotators = sorted({annotator for labels in grouped.values() for annotator in labels}, key=_annotator_key)
    column = {annotator: position for position, annotator in enumerate(annotators)}
    label_index = {label: position for position, label in enumerate(LABELS)}
    size, kinds = len(annotators), len(LABELS)
    one_hot = np.zeros((len(grouped), size * kinds))
    for row, labels in enumerate(grouped.values()):
        for annotator, label in labels.items():
            one_hot[row, column[annotator] * kinds + label_index[label]] = 1.0
    # tables[i, j] is the 3 × 3 table of annotator i's labels (rows) against annotator j's.
    tables = (one_hot.T @ one_hot).reshape(size, kinds, size, kinds).transpose(0, 2, 1, 3)
    counts = tables.sum(axis=(2, 3))
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = (tables * _CREDIT).sum(axis=(2, 3)) / counts
    kappa = cohen_kappas(tables)
    shared = (counts > 0) & ~np.eye(size, dtype=bool)
    return {
        "annotators": annotators,
        "accuracy": _none_outside(accuracy, shared),
        "kappa": _none_outside(kappa, shared & ~np.isnan(kappa)),
        "pairs": np.where(shared, counts, 0).astype(int).tolist(),
    }


def fleiss_kappa(counts: np.ndarray) -> float | None:
    """Fleiss' kappa of a table ``counts[item, label]`` = how many annotators gave that label.

    Per item, the observed agreement is the share of ordered pairs of its annotators that agree,
    ``sum_k n_k (n_k − 1) / (n (n − 1))``; their mean over items is compared with the chance
    agreement ``sum_k p_k²``, ``p_k`` the share of all labels that are ``k``. Items with fewer than
    two labels are left out; an item may have any number of annotators (with the same number
    everywhere this is Fleiss' original definition). None without items, or when a single label
    is in use (chance agreement 1).
    """
    counts = np.asarray(counts, dtype=float)
    counts = counts[counts.sum(axis=1) >= 2]
    if not len(counts):
        return None
    raters = counts.sum(axis=1)
    observed = ((counts * (counts - 1)).sum(axis=1) / (raters * (raters - 1))).mean()
    shares = counts.sum(axis=0) / raters.sum()
    expected = float(shares @ shares)
    if np.isclose(expected, 1.0):
        return None
    return float((observed - expected) / (1.0 - expected))


def _aspect_agreement(items: Mapping[Hashable, Labels]) -> dict[str, Any]:
    """Figures for one aspect; ``items`` maps item → {annotator: label}."""
    shared = [by_annotator for by_annotator in items.values() if len(by_annotator) >= 2]
    # Pairs ordered by annotator key, so kappa's two "raters" are defined the same way every time.
    pairs = [
        (first, second)
        for by_annotator in shared
        for first, second in combinations(sorted(by_annotator.items(), key=_annotator_order), 2)
    ]
    scores = [label_agreement(first[1], second[1]) for first, second in pairs]

    scores_of: defaultdict[Hashable, list[float]] = defaultdict(list)
    for (first, second), score in zip(pairs, scores, strict=True):
        scores_of[first[0]].append(score)
        scores_of[second[0]].append(score)
    everyone = {annotator for by_annotator in items.values() for annotator in by_annotator}
    annotators = {
        annotator: {"accuracy": _mean(scores_of[annotator]), "pairs": len(scores_of[annotator])}
        for annotator in sorted(everyone, key=_annotator_key)
    }
    return {
        "accuracy": _mean(scores),
        "kappa": _cohen_kappa([(first[1], second[1]) for first, second in pairs]),
        "alpha": _krippendorff_alpha(shared),
        "fleiss": fleiss_kappa(_label_counts(shared)),
        "items": len(shared),
        "pairs": len(pairs),
        "annotators": annotators,
    }


def _cohen_kappa(label_pairs: Sequence[tuple[str, str]]) -> float | None:
    if not label_pairs:
        return None
    index = {label: position for position, label in enumerate(LABELS)}
    table = np.zeros((len(LABELS), len(LABELS)))
    for first, second in label_pairs:
        table[index[first], index[second]] += 1
    kappa = float(cohen_kappas(table)[()])
    return None if np.isnan(kappa) else kappa


def _none_outside(values: np.ndarray, keep: np.ndarray) -> list[Any]:
    """``values`` as nested lists, None wherever ``keep`` is False."""
    kept = values.astype(object)
    kept[~keep] = None
    return kept.tolist()


def cohen_kappas(tables: np.ndarray) -> np.ndarray:
    """Cohen's kappa of each square count table in the last two axes (3 × 3 here, 2 × 2 for the
    triple checks' support); NaN for an empty table or when chance agreement is 1."""
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = tables / tables.sum(axis=(-2, -1), keepdims=True)
        observed = np.trace(shares, axis1=-2, axis2=-1)
        expected = (shares.sum(axis=-1) * shares.sum(axis=-2)).sum(axis=-1)
        return np.where(np.isclose(expected, 1.0), np.nan, (observed - expected) / (1.0 - expected))


def _label_counts(shared_items: Sequence[Labels]) -> np.ndarray:
    """``counts[item, label]``: how many annotators gave each label, in :data:`LABELS` order."""
    label_counts = [Counter(by_annotator.values()) for by_annotator in shared_items]
    return np.array([[per_item[label] for label in LABELS] for per_item in label_counts], dtype=float).reshape(
        -1, len(LABELS)
    )


def _krippendorff_alpha(shared_items: Sequence[Labels]) -> float | None:
    import krippendorff  # here, not at start-up: 0.15 s to import

    if not shared_items:
        return None
    counts = _label_counts(shared_items)
    # With a single label in use, expected disagreement is 0 and alpha is 0/0.
    if np.count_nonzero(counts.sum(axis=0)) < 2:
        return None
    return float(krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"))


def _group(judgements: Iterable[Judgement]) -> dict[tuple[Hashable, str], Labels]:
    """``{(item, aspect): {annotator: label}}``, checking every judgement."""
    grouped: defaultdict[tuple[Hashable, str], Labels] = defaultdict(dict)
    for number, (item, aspect, annotator, label) in enumerate(judgements, start=1):
        where = f"judgement {number} (item {item!r}, annotator {annotator!r})"
        if aspect not in ASPECT_CODES:
            raise ValueError(f"{where}: unknown aspect {aspect!r}, expected one of {ASPECT_CODES}")
        if label not in LABELS:
            raise ValueError(f"{where}: unknown label {label!r}, expected one of {LABELS}")
        by_annotator = grouped[item, aspect]
        if annotator in by_annotator:
            raise ValueError(f"{where}: this annotator already judged aspect {aspect!r} of this item")
        by_annotator[annotator] = label
    return grouped


def _annotator_key(annotator: Hashable) -> tuple[str, Any]:
    # Keys of mixed types (ids and names) still sort, deterministically.
    return (type(annotator).__name__, annotator)


def _annotator_order(annotator_and_label: tuple[Hashable, str]) -> tuple[str, Any]:
    return _annotator_key(annotator_and_label[0])


def _check_label(label: object) -> None:
    if label not in LABELS:
        raise ValueError(f"unknown label {label!r}, expected one of {LABELS}")


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None
