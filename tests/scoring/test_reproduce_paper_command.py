"""``reproduce_paper`` on a release of this test's own, in the authors' layouts: a cdr sample of two
texts, its gold, two systems' parsed triples and their recorded verdicts, and printed tables."""

import json
import logging
import math

import pytest
from django.core.management import call_command
from redis import ConnectionError as RedisConnectionError

import leaderboard.jobs

pytestmark = pytest.mark.django_db

ASPIRIN = "Aspirin induced gastric ulcers in two patients."
LITHIUM = "Lithium caused tremor."
GOLD = {ASPIRIN: [["aspirin", "induces", "gastric ulcers"]], LITHIUM: [["lithium", "causes", "tremor"]]}
ALPHA = {ASPIRIN: [["aspirin", "induces", "gastric ulcers"], ["aspirin", "induces", "gastric ulcers"]], LITHIUM: []}
BETA = {ASPIRIN: [["aspirin", "treats", "ulcers"]], LITHIUM: [["lithium", "causes", "tremor"]]}


def write(path, content):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content), encoding="utf-8")


@pytest.fixture
def release(tmp_path):
    root = tmp_path / "GenRES"
    # The sample lists [head, tail, relation]; its texts are the benchmark's, the gold the processed file's.
    write(root / "datasets" / "cdr_rand_2.json", {ASPIRIN: [["aspirin", "gastric ulcers", "CID"]], LITHIUM: []})
    write(root / "datasets" / "processed" / "cdr_processed.json", GOLD)
    for model, triples in (("alpha", ALPHA), ("beta", BETA), ("groundtruth", GOLD)):
        write(root / "processed_results" / f"cdr_rand_2_{model}_1.json", triples)
    write(root / "processed_results" / "cdr_rand_2_beta_54.json", BETA)  # a replicate: not in the tables
    fs = root / "GREScores" / "factualness"
    gs = root / "GREScores" / "granularity"
    write(fs / "cdr_rand_2_alpha_1.json", {ASPIRIN: {"results": [True, False]}, LITHIUM: {"results": []}})
    write(fs / "cdr_rand_2_beta_1.json", {ASPIRIN: {"results": [False]}, LITHIUM: {"results": [True]}})
    write(gs / "cdr_rand_2_alpha_1.json", {ASPIRIN: {json.dumps(ALPHA[ASPIRIN][0]): "[a] [b]"}})
    write(gs / "cdr_rand_2_beta_1.json", {t: {json.dumps(triple): "[a]" for triple in BETA[t]} for t in BETA})
    write(gs / "cdr_rand_2_groundtruth_1.json", {t: {json.dumps(triple): "[a]" for triple in GOLD[t]} for t in GOLD})
    return root


@pytest.fixture
def published(tmp_path):
    path = tmp_path / "tables.json"
    tables = {
        "cdr": {
            "Ground truth": {"tri": "1.0", "tok": "3.0", "fs": "90.0", "gs": "100.0"},
            "alpha": {"tri": "1.0", "tok": "2.0", "ts": "10.0", "fs": "25.0", "gs": "13.5", "cs": "50.0"},
            "beta": {"tri": "1.0", "tok": "3.0", "ts": "20.0", "fs": "50.0", "gs": "100.0", "cs": "40.0"},
            "gamma": {"tri": "2.0", "tok": "4.0", "fs": "60.0", "gs": "80.0"},
        }
    }
    write(path, {"tables": tables})
    return path


class RedisDown:
    @property
    def connection(self):
        raise RedisConnectionError("no server")


def test_the_reproduction_prints_each_cell_beside_the_printed_one(
    release, published, tmp_path, capsys, caplog, monkeypatch
):
    monkeypatch.setattr(leaderboard.jobs, "_unreachable_warned", False)
    monkeypatch.setattr(leaderboard.jobs, "queue", RedisDown)
    caplog.set_level(logging.WARNING)
    scores = tmp_path / "scores.json"
    call_command(
        "reproduce_paper", str(release), "--published", str(published), "--datasets", "cdr", "--json", str(scores)
    )
    out = capsys.readouterr().out
    app = json.loads(scores.read_text())["cdr"]
    assert set(app) == {"Ground truth", "alpha", "beta"}  # the replicate is imported but not in the tables
    # alpha: the repeated triple's two occurrences judged True and False; LITHIUM empty, fs 0.
    assert app["alpha"]["fs"] == pytest.approx((1 / 2 + 0) / 2)
    # gs: ASPIRIN's one distinct triple with two sub-triples; LITHIUM without triples left out.
    assert app["alpha"]["gs"] == pytest.approx(math.exp(-2))
    assert app["Ground truth"]["gs"] == pytest.approx(1.0) and app["Ground truth"]["fs"] is None
    assert "| alpha | 1.0 / 1.0 | 2.0 / 2.0 |" in out
    assert "**– / 90.0**" in out  # no factualness verdicts on the gold triples in this release
    assert "| fs | 4 | 2 | 0 | 2 | 0 | 2 | 0.00 |" in out  # alpha and beta exact; Ground truth and gamma missing
    assert "Printed rows with no system in the app: cdr gamma" in out
    assert "| cdr | 2 |" in out  # τ over alpha and beta
    assert "Redis is unreachable" not in caplog.text
    assert out.count("No Redis server") == 1


def test_a_second_run_imports_nothing_new_and_gives_the_same_scores(release, published, tmp_path, capsys):
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    for scores in (first, second):
        call_command(
            "reproduce_paper", str(release), "--published", str(published), "--datasets", "cdr", "--json", str(scores)
        )
    assert json.loads(first.read_text()) == json.loads(second.read_text())
