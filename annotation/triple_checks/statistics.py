"""How far a judge agrees with humans on single triples (pure numpy, no Django).

Humans answer two questions per triple: is it supported by the text (factualness), and how many
facts does it bundle (granularity; 1 = an atomic fact). A judge's split verdict counts finer
triples with n = 1 already counted as 0 (``scoring.genres.judges.base.SplitVerdict``), so its
fact count is ``max(n, 1)``; a triple's granularity score is e^(−n) with that n for both.

Per judge, over the triples with a gold label and the judge's verdict:

* accuracy and Cohen's κ of supported / unsupported;
* precision and recall of "unsupported" (the judge's catch of unsupported triples);
* the mean absolute error of the fact count;

each with a 95% percentile bootstrap interval over triples. Means are weighted by each triple's
sampling weight (``sampling.Sampled.weight``), so they estimate the figures over the sampled
systems' whole output rather than over a sample where rare verdicts are over-represented.

Per system, the bias of the judge's FS and GS: the judge's estimate minus the humans', each
with its interval, resampled within the system. Both estimate the leaderboard's definition, a
mean per text of the mean over the text's triples, with an empty output counted as 0: a sampled
triple of an output of n triples stands for its sampling weight / n texts' worth of that mean
(a ratio estimate over the texts with triples), and the result is scaled by the share of the
system's texts that have triples (:func:`system_bias`).

Two judges on the same triples are compared by McNemar's exact test on the triples exactly one
of them gets right (factualness).

Every figure is None when there is nothing to compute it from (or κ when chance agreement is 1).
"""

import math
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

import numpy as np

from annotation.agreement import cohen_kappas, fleiss_kappa

BOOTSTRAP_ROUNDS = 1000
INTERVAL_PERCENTILES = (2.5, 97.5)
SEED = 0
ATOMIC = 1  # the fact count of a triple that cannot be split
# The answers an annotator can give for the fact count: 1 to 5, where 5 stands for "5 or more".
FACT_COUNTS = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class Estimate:
    value: float | None
    low: float | None
    high: float | None

    def as_dict(self) -> dict[str, float | None]:
        return {"value": self.value, "low": self.low, "high": self.high}


@dataclass(frozen=True)
class Sample:
    """Aligned arrays, one entry per triple with a gold label; NaN where the judge gave no verdict."""

    system: np.ndarray  # labels of the systems (any hashable)
    human_supported: np.ndarray  # bool
    human_facts: np.ndarray  # ≥ 1
    judge_supported: np.ndarray  # 1.0, 0.0 or NaN
    judge_facts: np.ndarray  # ≥ 1 or NaN
    weight: np.ndarray  # sampling weights (≥ 1)
    output_triples: np.ndarray  # triples of the output each one belongs to (≥ 1)

    @classmethod
    def of(
        cls,
        system: Sequence[Hashable],
        human_supported: Sequence[bool],
        human_facts: Sequence[int],
        judge_supported: Sequence[bool | None],
        judge_facts: Sequence[int | None],
        weight: Sequence[float] | None = None,
        output_triples: Sequence[int] | None = None,
    ) -> "Sample":
        return cls(
            system=np.array(system, dtype=object),
            human_supported=np.array(human_supported, dtype=bool),
            human_facts=np.array(human_facts, dtype=float),
            judge_supported=np.array([np.nan if value is None else float(value) for value in judge_supported]),
            judge_facts=np.array([np.nan if value is None else float(value) for value in judge_facts]),
            weight=np.ones(len(system)) if weight is None else np.array(weight, dtype=float),
            output_triples=np.ones(len(system)) if output_triples is None else np.array(output_triples, dtype=float),
        )

    def __len__(self) -> int:
        return len(self.system)


def judge_facts(n: int) -> int:
    """The fact count of a judge's split verdict (n finer triples, n = 1 counted as 0)."""
    return max(n, ATOMIC)


def granularity_score(facts: np.ndarray) -> np.ndarray:
    """e^(−n) per triple, n = 0 for an atomic triple and the fact count otherwise."""
    return np.exp(-np.where(facts <= ATOMIC, 0.0, facts))


def _agreement_figures(sample: Sample, rows: np.ndarray) -> dict[str, np.ndarray]:
    """The judge's figures on the triples ``rows`` (an index array, any leading shape: one
    bootstrap round per row)."""
    weight = sample.weight[rows]
    judged = ~np.isnan(sample.judge_supported[rows])
    fs_weight = np.where(judged, weight, 0.0)
    human_unsupported = ~sample.human_supported[rows]
    judge_unsupported = np.nan_to_num(sample.judge_supported[rows], nan=1.0) == 0.0
    # 2 × 2 tables, unsupported first: [[both, humans only], [judge only, neither]].
    cells = [
        [human_unsupported & judge_unsupported, human_unsupported & ~judge_unsupported],
        [~human_unsupported & judge_unsupported, ~human_unsupported & ~judge_unsupported],
    ]
    tables = np.stack([np.stack([(fs_weight * cell).sum(axis=-1) for cell in row], -1) for row in cells], -2)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = tables.sum(axis=(-2, -1))
        accuracy = (tables[..., 0, 0] + tables[..., 1, 1]) / total
        precision = tables[..., 0, 0] / (tables[..., 0, 0] + tables[..., 1, 0])
        recall = tables[..., 0, 0] / (tables[..., 0, 0] + tables[..., 0, 1])
        split = ~np.isnan(sample.judge_facts[rows])
        gs_weight = np.where(split, weight, 0.0)
        errors = np.abs(np.nan_to_num(sample.judge_facts[rows]) - sample.human_facts[rows])
        mae = (gs_weight * errors).sum(axis=-1) / gs_weight.sum(axis=-1)
    return {"accuracy": accuracy, "kappa": cohen_kappas(tables), "precision": precision, "recall": recall, "mae": mae}


def judge_agreement(sample: Sample, rounds: int = BOOTSTRAP_ROUNDS, seed: int = SEED) -> dict[str, Any]:
    """The judge's accuracy, κ, precision and recall of "unsupported" and the fact count's MAE,
    each an :class:`Estimate` as a dict; ``triples`` with a support verdict, ``split`` with a fact count."""
    everything = np.arange(len(sample))
    point = _agreement_figures(sample, everything)
    resampled = _agreement_figures(sample, _draws(everything, rounds, seed))
    return {
        **{name: _estimate(point[name], resampled[name]).as_dict() for name in point},
        "triples": int((~np.isnan(sample.judge_supported)).sum()),
        "split": int((~np.isnan(sample.judge_facts)).sum()),
    }


def system_bias(
    sample: Sample,
    rounds: int = BOOTSTRAP_ROUNDS,
    seed: int = SEED,
    answered_share: Mapping[Hashable, float] | None = None,
    empty_counts: Sequence[str] = ("fs", "gs"),
) -> dict[Hashable, dict[str, Any]]:
    """Per system, per aspect (``fs``, ``gs``): ``{"judge", "human", "bias", "triples"}``, the
    first three :class:`Estimate` as dicts, bias = judge − human, triples resampled within the system.

    Per text as the leaderboard's FS and GS: each triple weighs its sampling weight divided by the
    triples of its output, so every text with triples counts once whatever its length; the means
    are then scaled by ``answered_share[system]`` (the share of the system's texts with at least
    one triple; 1 when not given) for the aspects in ``empty_counts``, whose system mean counts an
    empty output as 0 (the reference rules leave it out of gs).
    """
    judge_values = {"fs": sample.judge_supported, "gs": granularity_score(sample.judge_facts)}
    human_values = {"fs": sample.human_supported.astype(float), "gs": granularity_score(sample.human_facts)}
    per_text_weight = sample.weight / sample.output_triples
    biases: dict[Hashable, dict[str, Any]] = {}
    for system in sorted(set(sample.system.tolist()), key=str):
        members = np.flatnonzero(sample.system == system)
        rows = _draws(members, rounds, seed)
        share = (answered_share or {}).get(system, 1.0)
        biases[system] = {
            aspect: _bias(
                judge_values[aspect],
                human_values[aspect],
                per_text_weight,
                members,
                rows,
                share if aspect in empty_counts else 1.0,
            )
            for aspect in judge_values
        }
    return biases


def _bias(
    judge: np.ndarray, human: np.ndarray, weight: np.ndarray, members: np.ndarray, rows: np.ndarray, share: float
) -> Any:
    def means(index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        present = np.where(np.isnan(judge[index]), 0.0, weight[index])
        with np.errstate(invalid="ignore", divide="ignore"):
            total = present.sum(axis=-1) / share
            return (present * np.nan_to_num(judge[index])).sum(axis=-1) / total, (present * human[index]).sum(
                axis=-1
            ) / total

    judge_point, human_point = means(members)
    judge_rounds, human_rounds = means(rows)
    return {
        "judge": _estimate(judge_point, judge_rounds).as_dict(),
        "human": _estimate(human_point, human_rounds).as_dict(),
        "bias": _estimate(judge_point - human_point, judge_rounds - human_rounds).as_dict(),
        "triples": int((~np.isnan(judge[members])).sum()),
    }


def paired_test(human_supported: Sequence[bool], first: Sequence[bool], second: Sequence[bool]) -> dict[str, Any]:
    """McNemar's exact test of two judges' support verdicts on the same triples.

    ``first_only``: triples only the first judge gets right; ``second_only`` likewise. Under "equally
    accurate" each such triple is a fair coin, so p = P(Binomial(first_only + second_only, ½)
    at least as lopsided), two-sided; 1 when no triple separates them.
    """
    truth = np.asarray(human_supported, dtype=bool)
    first_right = np.asarray(first, dtype=bool) == truth
    second_right = np.asarray(second, dtype=bool) == truth
    first_only = int((first_right & ~second_right).sum())
    second_only = int((second_right & ~first_right).sum())
    discordant = first_only + second_only
    # The binomial is symmetric at ½: twice the tail of the smaller count, at most 1.
    tail = sum(math.comb(discordant, count) for count in range(min(first_only, second_only) + 1))
    p_value = min(1.0, 2 * tail / 2**discordant)
    return {"first_only": first_only, "second_only": second_only, "p_value": p_value}


def gold_label(supported: Sequence[bool], facts: Sequence[int]) -> tuple[bool | None, int | None]:
    """The majority answer of a triple's annotators: (supported, facts).

    Supported is None when the votes are even (the triple waits for adjudication); the fact count
    is the lower median of the answers. Both None without answers.
    """
    if not supported:
        return None, None
    yes = sum(supported)
    verdict = None if 2 * yes == len(supported) else 2 * yes > len(supported)
    ordered = sorted(facts)
    return verdict, ordered[(len(ordered) - 1) // 2]


def annotator_agreement(
    answers: Sequence[Mapping[Hashable, Hashable]], categories: Sequence[Hashable]
) -> dict[str, Any]:
    """Agreement of annotators on one question, over triples answered by two or more.

    ``answers`` holds one ``{annotator: answer}`` per triple. Cohen's κ on the pooled pairs of
    annotators (each pair ordered by annotator), Fleiss' κ (``annotation.agreement``), and
    Krippendorff's α (nominal for support; interval for counts, whose distance matters).
    """
    shared = [by_annotator for by_annotator in answers if len(by_annotator) >= 2]
    index = {category: position for position, category in enumerate(categories)}
    table = np.zeros((len(categories), len(categories)))
    pairs = 0
    for by_annotator in shared:
        ordered = [answer for _, answer in sorted(by_annotator.items(), key=lambda entry: str(entry[0]))]
        for first, second in combinations(ordered, 2):
            table[index[first], index[second]] += 1
            pairs += 1
    counts = np.array([[Counter(each.values())[category] for category in categories] for each in shared], dtype=float)
    return {
        "kappa": _number(float(cohen_kappas(table))),
        "fleiss": fleiss_kappa(counts.reshape(-1, len(categories))),
        "alpha": _alpha(counts, categories),
        "items": len(shared),
        "pairs": pairs,
    }


def _alpha(counts: np.ndarray, categories: Sequence[Hashable]) -> float | None:
    import krippendorff  # here, not at start-up: 0.15 s to import

    if not len(counts) or np.count_nonzero(counts.sum(axis=0)) < 2:
        return None
    numeric = all(isinstance(category, int) and not isinstance(category, bool) for category in categories)
    level: Literal["interval", "nominal"] = "interval" if numeric else "nominal"
    values = np.array(categories, dtype=float) if numeric else None
    return _number(float(krippendorff.alpha(value_counts=counts, value_domain=values, level_of_measurement=level)))


def _draws(members: np.ndarray, rounds: int, seed: int) -> np.ndarray:
    """``rounds`` bootstrap resamples of ``members`` (rounds × len(members) indices)."""
    if rounds < 1:
        raise ValueError(f"At least one bootstrap round, not {rounds}.")
    rng = np.random.default_rng(seed)
    return members[rng.integers(0, max(len(members), 1), size=(rounds, len(members)))]


def _estimate(point: np.ndarray, rounds: np.ndarray) -> Estimate:
    value = _number(float(point))
    kept = rounds[np.isfinite(rounds)]
    if value is None or not len(kept):
        return Estimate(value, None, None)
    low, high = np.percentile(kept, INTERVAL_PERCENTILES)
    return Estimate(value, float(low), float(high))


def _number(value: float) -> float | None:
    return value if math.isfinite(value) else None
