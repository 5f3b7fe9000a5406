"""Calibration of φ, the cosine at or above which two triples count as the same fact.

``pairs.jsonl`` holds hand-written triple pairs: paraphrases of one fact ("same": true) and
pairs that differ in one fact while sharing much wording ("same": false). For an embedder, every
pair gets the cosine of its two triple embeddings, and φ is the cut that best separates the two
groups: the highest balanced accuracy (mean of the hit rates on each group), ties broken by F1 on
the paraphrases, then by the middle of the tied cuts. ``python -m scoring.genres.calibration``
runs it and records the outcome in ``results.json``; each embedder's ``default_threshold`` is the
threshold recorded there.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scoring.genres.embedders import Embedder
from scoring.genres.similarity import embed_triple_lists
from scoring.genres.triples import triple_problem

PAIRS_FILE = Path(__file__).with_name("pairs.jsonl")
RESULTS_FILE = Path(__file__).with_name("results.json")
QUANTILES = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)


@dataclass(frozen=True)
class CalibrationPair:
    a: list[str]
    b: list[str]
    same: bool
    kind: str


def load_pairs(path: str | Path = PAIRS_FILE) -> list[CalibrationPair]:
    """The pairs of a JSON-lines file; a bad line raises ValueError naming its number and the reason."""
    pairs = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            for side in ("a", "b"):
                problem = triple_problem(record[side])
                if problem:
                    raise ValueError(f"triple {side}: {problem}")
            if not isinstance(record["same"], bool):
                raise ValueError('"same" must be true or false')
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{path}, line {number}: {error}") from error
        pairs.append(CalibrationPair(record["a"], record["b"], record["same"], record.get("kind", "")))
    return pairs


def pair_cosines(pairs: Sequence[CalibrationPair], embedder: Embedder, mode: str = "sum") -> np.ndarray:
    """Cosine of each pair's two triple embeddings, all triples embedded in one call."""
    embeddings = embed_triple_lists([[pair.a for pair in pairs], [pair.b for pair in pairs]], embedder, mode)
    return np.einsum("ij,ij->i", embeddings[0], embeddings[1]).astype(np.float64)


def best_threshold(cosines: Sequence[float] | np.ndarray, same: Sequence[bool] | np.ndarray) -> dict[str, float]:
    """The cut that best separates ``same`` pairs (cosine ≥ cut) from the others, with its scores."""
    cosines = np.asarray(cosines, dtype=np.float64)
    same = np.asarray(same, dtype=bool)
    if same.all() or not same.any():
        raise ValueError("calibration needs both paraphrase pairs and different-fact pairs")
    values = np.unique(cosines)
    # Every distinct way of splitting the sorted cosines, cut halfway between neighbours.
    cuts = np.concatenate([[values[0] - 1e-3], (values[:-1] + values[1:]) / 2, [values[-1] + 1e-3]])
    predicted = cosines[None, :] >= cuts[:, None]
    true_positive = (predicted & same).sum(axis=1)
    false_positive = (predicted & ~same).sum(axis=1)
    recall = true_positive / same.sum()
    specificity = 1 - false_positive / (~same).sum()
    balanced_accuracy = (recall + specificity) / 2
    precision = np.divide(
        true_positive, true_positive + false_positive, out=np.zeros(len(cuts)), where=predicted.any(axis=1)
    )
    f1 = np.divide(2 * precision * recall, precision + recall, out=np.zeros(len(cuts)), where=(precision + recall) > 0)
    best = np.flatnonzero(balanced_accuracy == balanced_accuracy.max())
    best = best[f1[best] == f1[best].max()]
    chosen = best[len(best) // 2]
    return {
        "threshold": round(float(cuts[chosen]), 3),
        "balanced_accuracy": round(float(balanced_accuracy[chosen]), 4),
        "f1": round(float(f1[chosen]), 4),
        "recall_same": round(float(recall[chosen]), 4),
        "specificity_different": round(float(specificity[chosen]), 4),
    }


def quantiles(values: np.ndarray) -> dict[str, float]:
    return {f"q{round(q * 100):02d}": round(float(np.quantile(values, q)), 4) for q in QUANTILES}


def calibrate(embedder: Embedder, mode: str = "sum", pairs: Sequence[CalibrationPair] | None = None) -> dict[str, Any]:
    """The calibration record of one embedder: chosen φ, its scores and both cosine distributions."""
    chosen = load_pairs() if pairs is None else pairs
    cosines = pair_cosines(chosen, embedder, mode)
    same = np.array([pair.same for pair in chosen])
    return {
        "embedder": embedder.name,
        "model": embedder.model,
        "mode": mode,
        "pairs": {"same": int(same.sum()), "different": int((~same).sum())},
        **best_threshold(cosines, same),
        "cosine_quantiles": {"same": quantiles(cosines[same]), "different": quantiles(cosines[~same])},
    }
