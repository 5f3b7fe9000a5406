"""How far the metric ranking agrees with the human one (pure functions, no Django).

* :func:`rank_correlation`: Kendall's τ-b and Spearman's ρ between two rankings over the
  systems both rank;
* :func:`item_agreement`: tie-discounted agreement between merged human labels and metric
  battle labels on the same (text, system pair) items;
* :func:`interval_ranks`: ranks that admit uncertainty: systems whose 95% intervals overlap
  share a range of ranks instead of being ordered by noise.
"""

import math
from collections.abc import Hashable, Mapping
from typing import Any

from annotation.agreement import label_agreement, to_canonical


def rank_correlation(first: Mapping[str, float | None], second: Mapping[str, float | None]) -> dict[str, Any]:
    """Kendall's τ-b and Spearman's ρ between two rankings ``{system: rating}``.

    Only systems present (and not None) in both count. Returns::

        {"systems": int,  # shared systems
         "kendall_tau": float | None, "kendall_p": float | None,
         "spearman_rho": float | None, "spearman_p": float | None}

    with None where fewer than two systems are shared or a coefficient is undefined (NaN,
    e.g. when one ranking gives every shared system the same rating).
    """
    from scipy import stats  # here, not at start-up: 1 s to import

    shared = sorted(
        (system for system in first.keys() & second.keys() if None not in (first[system], second[system])), key=str
    )
    x = [first[system] for system in shared]
    y = [second[system] for system in shared]
    result: dict[str, Any] = dict.fromkeys(("kendall_tau", "kendall_p", "spearman_rho", "spearman_p"), None)
    result["systems"] = len(shared)
    # A constant ranking has no order to correlate; checked here so scipy does not warn.
    if len(set(x)) < 2 or len(set(y)) < 2:
        return result
    kendall = stats.kendalltau(x, y)
    spearman = stats.spearmanr(x, y)
    result.update(
        kendall_tau=_defined(kendall.statistic),
        kendall_p=_defined(kendall.pvalue),
        spearman_rho=_defined(spearman.statistic),
        spearman_p=_defined(spearman.pvalue),
    )
    return result


def item_agreement(
    human_labels: Mapping[tuple[Hashable, str, str], str], metric_labels: Mapping[tuple[Hashable, str, str], str]
) -> dict[str, Any]:
    """Tie-discounted agreement of human and metric labels on the items both have.

    Both map ``(text, system_a, system_b)`` to "a", "b" or "tie". An item keyed with the two
    systems the other way round in ``metric_labels`` is matched too, its label mapped to the
    human key's order. Returns ``{"accuracy": float | None, "items": int}`` (None: no shared item).
    """
    scores: list[float] = []
    for (text, system_a, system_b), human_label in human_labels.items():
        if (text, system_a, system_b) in metric_labels:
            metric_label = metric_labels[text, system_a, system_b]
        elif (text, system_b, system_a) in metric_labels:
            metric_label = to_canonical(metric_labels[text, system_b, system_a], swapped=True)
        else:
            continue
        scores.append(label_agreement(human_label, metric_label))
    return {"accuracy": sum(scores) / len(scores) if scores else None, "items": len(scores)}


def interval_ranks(leaderboard: Mapping[str, Mapping[str, float]]) -> dict[str, tuple[int, int]]:
    """Rank ranges ``{system: (best, worst)}`` from ``{system: {"ci_low", "ci_high", ...}}``.

    A system is certainly behind every system whose lower bound lies above its upper bound, and
    certainly ahead of every system whose upper bound lies below its lower bound:
    ``best = 1 + #(systems certainly ahead)``, ``worst = #systems − #(systems certainly behind)``.
    ``best`` alone is the rank FastChat's arena shows; systems with overlapping intervals share it.
    """
    bounds = {system: (entry["ci_low"], entry["ci_high"]) for system, entry in leaderboard.items()}
    ranks: dict[str, tuple[int, int]] = {}
    for system, (low, high) in bounds.items():
        ahead = sum(1 for other_low, _ in bounds.values() if other_low > high)
        behind = sum(1 for _, other_high in bounds.values() if other_high < low)
        ranks[system] = (1 + ahead, len(bounds) - behind)
    return ranks


def _defined(value: float) -> float | None:
    number = float(value)
    return None if math.isnan(number) else number
