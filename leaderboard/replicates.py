"""Replicates: several runs (seeds) of one model on one dataset, summarised as the mean and spread.

Each run is a system of its own (``System.replicate_group`` names the model, ``System.seed``
the run), so it is scored like any system; here the runs' system-level means are gathered per
group: for every value, the mean over runs, the sample standard deviation (n − 1; None for a
single run) and the range. Only groups with at least two runs on the dataset are replicates.
No Django here: the input is the leaderboard's score rows.
"""

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

MIN_RUNS = 2


def replicate_groups(rows: Iterable[dict[str, Any]], keys: Sequence[str]) -> list[dict[str, Any]]:
    """``[{"group", "runs": [{"system", "seed", "values"}], "mean", "sd", "min", "max"}]``, by group name.

    ``rows`` are score rows with ``system``, ``replicate_group``, ``seed`` and ``values``; a run
    without a value for a key (not scored, not applicable) is left out of that key's figures.
    """
    by_group: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if row.get("replicate_group"):
            by_group.setdefault(row["replicate_group"], []).append(row)
    groups = []
    for group, members in sorted(by_group.items()):
        if len(members) < MIN_RUNS:
            continue
        members = sorted(members, key=lambda row: _seed_order(row["seed"]))
        summary: dict[str, Any] = {"group": group, "runs": [], "mean": {}, "sd": {}, "min": {}, "max": {}}
        summary["runs"] = [
            {"system": row["system"], "seed": row["seed"], "values": {key: row["values"].get(key) for key in keys}}
            for row in members
        ]
        for key in keys:
            values = np.array([row["values"][key] for row in members if row["values"].get(key) is not None], float)
            present = values.size > 0
            summary["mean"][key] = float(values.mean()) if present else None
            summary["sd"][key] = float(values.std(ddof=1)) if values.size >= MIN_RUNS else None
            summary["min"][key] = float(values.min()) if present else None
            summary["max"][key] = float(values.max()) if present else None
        groups.append(summary)
    return groups


def _seed_order(seed: str) -> tuple[int, int, str]:
    """Numeric seeds in numeric order (2 before 10), then the others by name."""
    return (0, int(seed), "") if seed.isdigit() else (1, 0, seed)
