"""benchmarks.paper_rankings on a tiny release of our own, in the authors' file layout."""

import dataclasses
import json

import pytest

from benchmarks import paper_rankings
from benchmarks.paper_rankings import SETTINGS, kendall_tau, load_benchmark

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


@pytest.fixture
def release(tmp_path, monkeypatch):
    monkeypatch.setitem(paper_rankings.SAMPLE_SIZES, "toy", 3)
    monkeypatch.setitem(paper_rankings.PAPER_TOPICS, "toy", 2)
    (tmp_path / "datasets" / "processed").mkdir(parents=True)
    (tmp_path / "processed_results").mkdir()
    (tmp_path / "datasets" / "toy_rand_3.json").write_text(json.dumps({text: [] for text in TEXTS}))
    (tmp_path / "datasets" / "toy_all.json").write_text(json.dumps({text: [] for text in TEXTS * 2}))
    (tmp_path / "datasets" / "processed" / "toy_processed.json").write_text(json.dumps(GOLD))
    for system, outputs in OUTPUTS.items():
        seed = 44 if system == "silent" else 1  # a system with only a seed-44 file (nyt10m's llama-2-7b)
        (tmp_path / "processed_results" / f"toy_rand_3_{system}_{seed}.json").write_text(json.dumps(outputs))
    return tmp_path


def test_load_reads_the_sample_the_gold_and_each_system_valid_triples(release):
    benchmark = load_benchmark(release, "toy", ["good", "repeats", "silent", "absent"])
    assert benchmark.texts == TEXTS and set(benchmark.outputs) == {"good", "repeats", "silent"}
    assert benchmark.outputs["repeats"][TEXTS[0]] == GOLD[TEXTS[0]] * 2  # the item with a number dropped
    assert benchmark.corpus == TEXTS  # datasets/toy_all.json, each text once as there


def test_kendall_tau_over_the_systems_both_sides_rank():
    assert kendall_tau({"a": 1, "b": 2, "c": 3}, {"a": 10, "b": 20, "c": 30, "d": 5}) == pytest.approx(1.0)
    assert kendall_tau({"a": 1, "b": 2, "c": 3}, {"a": 30, "b": 20, "c": 10}) == pytest.approx(-1.0)
    assert kendall_tau({"a": 1}, {"a": 1}) is None


def test_the_rules_decide_how_a_silent_system_ranks_on_uniqueness(release, tmp_path):
    benchmark = load_benchmark(release, "toy", list(OUTPUTS))
    embedders = {}

    def embedder_for(name):
        return embedders.setdefault(name, paper_rankings.get_embedder(name))

    app = paper_rankings.score_benchmark(benchmark, SETTINGS["default"], tmp_path / "lda", embedder_for)
    reference_setting = dataclasses.replace(SETTINGS["default"], rules="reference")
    reference = paper_rankings.score_benchmark(benchmark, reference_setting, tmp_path / "lda", embedder_for)
    assert app["us"] == {"good": 1.0, "repeats": 0.0, "silent": 0.0}
    assert reference["us"] == {"good": 1.0, "repeats": 0.0, "silent": 1.0}
    assert app["cs"]["good"] == app["cs"]["repeats"] == 1.0 and app["cs"]["silent"] == 0.0
    assert app["ts"]["silent"] == 0.0 < reference["ts"]["silent"]


def test_the_command_prints_one_row_of_taus_per_dataset(release, tmp_path, capsys):
    paper = {
        "tables": {
            "toy": {
                "Ground truth": {"ts": "9", "us": "9", "cs": "100"},
                "good": {"ts": "80", "us": "90", "cs": "50"},
                "repeats": {"ts": "70", "us": "20", "cs": "40"},
                "silent": {"ts": "5", "us": "95", "cs": "0"},
            }
        }
    }
    (tmp_path / "paper.json").write_text(json.dumps(paper))
    paper_rankings.main(
        [
            "--release",
            str(release),
            "--paper",
            str(tmp_path / "paper.json"),
            "--datasets",
            "toy",
            "--settings",
            "default",
        ]
    )
    row = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| toy ")]
    assert len(row) == 1 and row[0].split(" | ")[1] == "3"
