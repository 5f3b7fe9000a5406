import numpy as np
import pytest

from scoring.genres.similarity import completeness


def unit(*values):
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


GOLD = np.array([unit(1, 0, 0), unit(0, 1, 0), unit(0, 0, 1)])
# Matches gold 1 exactly and lies at cosine 1/√2 ≈ 0.707 from gold 2 and gold 3.
EXTRACTED = np.array([unit(1, 0, 0), unit(0, 1, 1)])


def test_share_of_gold_triples_with_a_close_extracted_triple():
    assert completeness(EXTRACTED, GOLD, 0.7) == 1.0
    assert completeness(EXTRACTED, GOLD, 0.8) == pytest.approx(1 / 3)


def test_no_gold_is_not_applicable():
    assert completeness(EXTRACTED, np.zeros((0, 3), dtype=np.float32), 0.5) is None


def test_no_extracted_triples_scores_zero():
    assert completeness(np.zeros((0, 3), dtype=np.float32), GOLD, 0.5) == 0.0


def test_extra_extracted_triples_do_not_lower_it():
    noisy = np.vstack([EXTRACTED, [unit(1, 1, 1)] * 5])
    assert completeness(noisy, GOLD, 0.8) == completeness(EXTRACTED, GOLD, 0.8)
