"""benchmarks.paper_scale: φ fitted on the release's per-system levels, on files of our own."""

import json

import pytest

from benchmarks import paper_scale
from benchmarks.paper_rankings import Benchmark
from tests.benchmarks.toy_release import TEXTS, SetVectorsEmbedder, same


def write_results(release, us, cs):
    (release / "GREScores" / "results_new").mkdir(parents=True)
    (release / "GREScores" / "results").mkdir(parents=True)
    (release / "GREScores" / "results_new" / "US.json").write_text(json.dumps({"toy_rand_3": us}))
    (release / "GREScores" / "results" / "CS_old.json").write_text(json.dumps({"toy_rand_3": cs}))


def test_the_release_names_a_system_with_its_seed_in_us_and_without_in_cs(release):
    write_results(release, {"good-1": 0.9, "silent-44": 1.0, "other-1": 0.2}, {"good": 0.5, "repeats": 0.25})
    systems = ["good", "repeats", "silent"]
    assert paper_scale.released_means(release, "toy", "us", systems) == {"good": 0.9, "silent": 1.0}
    assert paper_scale.released_means(release, "toy", "cs", systems) == {"good": 0.5, "repeats": 0.25}


def test_each_system_is_scored_at_every_threshold_of_the_grid():
    # Text 1: the two triples have cosine 0.8; the gold z is at 0.6 from y and 0 from x.
    # Text 2: no triples (us 1 under the reference rules, cs 0).
    benchmark = Benchmark(
        "toy",
        TEXTS[:2],
        {TEXTS[0]: [same("z")], TEXTS[1]: [same("x")]},
        {"one": {TEXTS[0]: [same("x"), same("y")], TEXTS[1]: []}},
        TEXTS,
    )
    curves = paper_scale.system_curves(benchmark, SetVectorsEmbedder(), [0.5, 0.7, 0.9])
    assert [means["one"] for means in curves["us"]] == [0.5, 0.5, 1.0]  # the pair counts below 0.9 only
    assert [means["one"] for means in curves["cs"]] == [0.5, 0.0, 0.0]  # z is found at 0.6 ≥ 0.5 only


def test_the_fit_picks_the_threshold_closest_to_the_release_over_the_fit_datasets():
    curves = {
        "d1": [{"a": 0.9, "b": 0.8}, {"a": 0.6, "b": 0.5}, {"a": 0.3, "b": 0.2}],
        "d2": [{"a": 0.9}, {"a": 0.8}, {"a": 0.7}],
    }
    released = {"d1": {"a": 0.55, "b": 0.45, "gone": 1.0}, "d2": {"a": 0.7}}
    # d1's errors 0.13, 0.005, 0.125; d2's 0.04, 0.01, 0.
    assert paper_scale.fitted_index(curves, released, ["d1"]) == 1
    assert paper_scale.fitted_index(curves, released, ["d2"]) == 2
    assert paper_scale.fitted_index(curves, released, ["d1", "d2"]) == 1  # 0.015 against 0.125


def test_the_rank_fit_picks_the_threshold_with_the_highest_mean_tau():
    taus = {"d1": [0.2, 0.9, 0.5], "d2": [0.8, None, 0.6], "d3": [None, None, None]}
    assert paper_scale.rank_fitted_index(taus, ["d1"]) == 1
    assert paper_scale.rank_fitted_index(taus, ["d2"]) == 0
    assert paper_scale.rank_fitted_index(taus, ["d1", "d2"]) == 1  # 0.9 alone beats 0.55 and 0.5
    assert paper_scale.rank_fitted_index(taus, ["d3"]) == 0  # no τ anywhere: the first


def test_only_the_cells_printed_as_the_release_holds_them_count_as_released():
    printed = {"a": 90.0, "b": 1.1, "c": 50.0}
    assert paper_scale.printed_as_released(printed, {"a": 0.9004, "b": 0.989}) == {"a": 90.0}


def test_a_grid_is_a_range_with_both_ends_or_a_list():
    assert paper_scale.parse_grid("0.3:0.5:0.1") == [0.3, 0.4, 0.5]
    assert paper_scale.parse_grid("0.2,0.6") == [0.2, 0.6]


@pytest.fixture
def paper(tmp_path):
    tables = {
        "tables": {
            "toy": {
                "Ground truth": {"us": "9", "cs": "100"},
                "good": {"us": "90", "cs": "50"},
                "repeats": {"us": "20", "cs": "40"},
                "silent": {"us": "95", "cs": "0"},
            }
        }
    }
    path = tmp_path / "paper.json"
    path.write_text(json.dumps(tables))
    return path


def test_the_command_prints_the_tau_curve_and_the_fitted_threshold(release, paper, capsys):
    write_results(release, {"good-1": 1.0, "repeats-1": 0.0, "silent-44": 1.0}, {"good": 1.0, "repeats": 1.0})
    paper_scale.main(["--release", str(release), "--paper", str(paper), "--datasets", "toy"])
    out = capsys.readouterr().out
    for aspect in ("us", "cs"):
        assert f"{aspect}: Kendall τ against the printed column at each φ" in out
        assert f"{aspect}, fitted on toy: levels (least squared error against the release's files) φ\n0.30;" in out
    assert "| 0.30 (levels) (ranks) | " in out and "| 0.95 | " in out  # the curve, every 0.05 from 0.30
    assert "| toy | – | – | – | – | – |" in out  # no other dataset to fit on
