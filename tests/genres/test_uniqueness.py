import numpy as np
import pytest

from scoring.genres.embedders import HashingEmbedder
from scoring.genres.similarity import embed_triple_lists, reference_uniqueness, uniqueness


def unit(*values):
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_no_triples_scores_zero():
    assert uniqueness(np.zeros((0, 4), dtype=np.float32), 0.5) == 0.0


def test_one_triple_scores_one():
    assert uniqueness(np.array([unit(1, 0, 0)]), 0.5) == 1.0


def test_share_of_ordered_pairs_below_threshold():
    # Rows 0 and 1 are the same direction; every other pair is orthogonal.
    embeddings = np.array([unit(1, 0, 0), unit(1, 0, 0), unit(0, 1, 0)])
    # 6 ordered pairs, (0,1) and (1,0) are repeats: 4 / 6.
    assert uniqueness(embeddings, 0.5) == pytest.approx(4 / 6)


def test_threshold_decides_what_counts_as_a_repeat():
    # cos = 0.8 between the two rows.
    embeddings = np.array([unit(1, 0), unit(0.8, 0.6)])
    assert uniqueness(embeddings, 0.9) == 1.0
    assert uniqueness(embeddings, 0.8 - 1e-6) == 0.0


def test_duplicate_triples_are_repeats():
    triple = ["Marie Curie", "born in", "Warsaw"]
    [embeddings] = embed_triple_lists([[triple, triple, triple]], HashingEmbedder())
    assert uniqueness(embeddings, 0.6) == 0.0


def test_distinct_facts_are_unique():
    triples = [["Marie Curie", "born in", "Warsaw"], ["Danube", "flows into", "Black Sea"]]
    [embeddings] = embed_triple_lists([triples], HashingEmbedder())
    assert uniqueness(embeddings, 0.6) == 1.0


def test_reference_rules_give_an_empty_output_one_and_agree_otherwise():
    # The authors' code returns 1 for a text without triples; the app's rules give 0.
    assert reference_uniqueness(np.zeros((0, 4), dtype=np.float32), 0.5) == 1.0
    embeddings = np.array([unit(1, 0, 0), unit(1, 0, 0), unit(0, 1, 0)])
    assert reference_uniqueness(embeddings, 0.5) == uniqueness(embeddings, 0.5) == pytest.approx(4 / 6)
    assert reference_uniqueness(embeddings[:1], 0.5) == 1.0
