"""A tiny release of our own in the GENRES authors' file layout, and an embedder with set vectors."""

import json
from pathlib import Path

import numpy as np

TEXTS = [
    "The striker scored twice and the home team won the league final.",
    "Investors sold bank shares as the central bank raised interest rates.",
    "Doctors treated the patient with a new drug and the tumour shrank.",
]
GOLD = {
    TEXTS[0]: [["striker", "scored for", "home team"]],
    TEXTS[1]: [["investors", "sold", "bank shares"]],
    TEXTS[2]: [["doctors", "treated", "patient"]],
}
# "good" finds every gold triple once, "repeats" says one thing twice per text, "silent" says nothing.
OUTPUTS = {
    "good": {text: triples for text, triples in GOLD.items()},
    "repeats": {text: triples * 2 + [["x", "y", 7]] for text, triples in GOLD.items()},
    "silent": {text: [] for text in TEXTS},
}


def write_release(root: Path) -> Path:
    """The toy dataset "toy" (3 texts) as the release lays out a dataset and its outputs."""
    (root / "datasets" / "processed").mkdir(parents=True)
    (root / "processed_results").mkdir()
    (root / "datasets" / "toy_rand_3.json").write_text(json.dumps({text: [] for text in TEXTS}))
    (root / "datasets" / "toy_all.json").write_text(json.dumps({text: [] for text in TEXTS * 2}))
    (root / "datasets" / "processed" / "toy_processed.json").write_text(json.dumps(GOLD))
    for system, outputs in OUTPUTS.items():
        seed = 44 if system == "silent" else 1  # a system with only a seed-44 file (nyt10m's llama-2-7b)
        (root / "processed_results" / f"toy_rand_3_{system}_{seed}.json").write_text(json.dumps(outputs))
    return root


class SetVectorsEmbedder:
    """Each string's vector is given: "x" (1, 0), "y" (0.8, 0.6), "z" (0, 1), anything else (−1, 0).

    A triple of one string thrice, ["x", "x", "x"], has that string's vector, so the cosines of
    triples are known: x·y 0.8, y·z 0.6, x·z 0.
    """

    name = "set-vectors"
    model = "set-vectors"
    dimension = 2
    default_threshold = 0.75
    vectors = {"x": (1.0, 0.0), "y": (0.8, 0.6), "z": (0.0, 1.0)}

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.array([self.vectors.get(text, (-1.0, 0.0)) for text in texts], dtype=np.float32)


def same(string: str) -> list[str]:
    """The triple [string, string, string], whose vector is the string's."""
    return [string] * 3
