"""Triple embeddings and the two embedding metrics: uniqueness (us) and completeness (cs).

A triple's embedding is the element-wise sum of the unit-normalised embeddings of its subject,
relation and object ("sum", order-free as in the GENRES paper), or their concatenation ("concat",
for directed relations where swapping subject and object changes the fact). Either way the result is
normalised again, so a matrix product gives cosines directly.
"""

from collections.abc import Sequence

import numpy as np

from scoring.genres.embedders import Embedder, unit_rows

EMBEDDING_MODES = ("sum", "concat")


def embed_triple_lists(
    triple_lists: Sequence[Sequence[Sequence[str]]], embedder: Embedder, mode: str = "sum"
) -> list[np.ndarray]:
    """One (n_triples, d) unit matrix per list of triples, from a single ``embedder.embed`` call.

    Batching every element of every list into one call lets the embedder embed each distinct
    string once and reuse its cache for the rest.
    """
    if mode not in EMBEDDING_MODES:
        raise ValueError(f"unknown embedding mode {mode!r}; choose one of {', '.join(EMBEDDING_MODES)}")
    elements = [element for triples in triple_lists for triple in triples for element in triple]
    width = embedder.dimension * (3 if mode == "concat" else 1)
    if not elements:
        return [np.zeros((0, width), dtype=np.float32) for _ in triple_lists]
    per_element = unit_rows(np.asarray(embedder.embed(elements), dtype=np.float32))
    per_triple = per_element.reshape(-1, 3, per_element.shape[1])
    if mode == "sum":
        combined = per_triple.sum(axis=1)
    else:
        combined = per_triple.reshape(len(per_triple), -1)
    combined = unit_rows(combined)
    boundaries = np.cumsum([len(triples) for triples in triple_lists])[:-1]
    return np.split(combined, boundaries)


def uniqueness(embeddings: np.ndarray, threshold: float) -> float:
    """Share of ordered pairs (i ≠ j) of triples whose cosine is below ``threshold``.

    No triples: 0 (an empty answer earns nothing). One triple: 1 (nothing repeats it). Exact
    duplicates have cosine 1, so they always count as repeats.
    """
    count = len(embeddings)
    if count == 0:
        return 0.0
    if count == 1:
        return 1.0
    cosines = embeddings @ embeddings.T
    distinct_pairs = np.count_nonzero(cosines < threshold) - np.count_nonzero(np.diagonal(cosines) < threshold)
    return float(distinct_pairs / (count * (count - 1)))


def reference_uniqueness(embeddings: np.ndarray, threshold: float) -> float:
    """us under the reference rules: as ``uniqueness``, except that an output with no triple scores 1.

    The authors' code returns 1 for a text without triples (and their printed US column follows it,
    except for galactica-30b on cdr and docred: docs/reproducing.md), where the app's rules give an
    empty answer 0. A system that often answers nothing ranks high on the paper's uniqueness.
    """
    return 1.0 if len(embeddings) == 0 else uniqueness(embeddings, threshold)


def completeness(extracted: np.ndarray, gold: np.ndarray, threshold: float) -> float | None:
    """Share of gold triples whose most similar extracted triple has cosine ≥ ``threshold``.

    No gold triples: None (not applicable, left out of averages). No extracted triples: 0.
    """
    if len(gold) == 0:
        return None
    if len(extracted) == 0:
        return 0.0
    best = (gold @ extracted.T).max(axis=1)
    return float(np.count_nonzero(best >= threshold) / len(gold))
