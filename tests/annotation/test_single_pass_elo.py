"""--bootstrap 0: one pass of online Elo in import order, as the GENRES paper computed its ratings."""

import io
import json

import pytest
from django.core.management import call_command

from annotation.ratings import Battles, single_pass_leaderboard
from tests.annotation.single_pass_fixtures import JUDGEMENTS, played_by_hand
from tests.factories import make_dataset

pytestmark = pytest.mark.django_db


def test_hand_played_elo_with_k_16():
    rating = played_by_hand(16)
    # 1: ±8. 2: beta at 992 expects 0.4885 against gamma at 1000 and loses 7.816.
    # 3: alpha at 1008 expects 0.50027 against gamma at 1007.816: a tie costs it 0.004.
    assert rating == pytest.approx({"alpha": 1007.9958, "beta": 984.1842, "gamma": 1007.8200}, abs=1e-4)


def test_single_pass_leaderboard_equals_the_hand_played_elo():
    battles = Battles.from_labels([("alpha", "beta", "a"), ("beta", "gamma", "b"), ("alpha", "gamma", "tie")])
    board = single_pass_leaderboard(battles, k=16)
    assert {system: entry["rating"] for system, entry in board.items()} == pytest.approx(played_by_hand(16))
    assert {system: entry["battles"] for system, entry in board.items()} == {"alpha": 2, "beta": 2, "gamma": 2}


def test_compute_ratings_bootstrap_zero_plays_the_imported_judgements_once(tmp_path):
    make_dataset(texts=1, systems=("alpha", "beta", "gamma"))
    path = tmp_path / "pilot.csv"
    path.write_text(JUDGEMENTS, encoding="utf-8")
    call_command("import_judgements", str(path), "--dataset", "toy", stdout=io.StringIO())
    for k in (16, 32):
        out = io.StringIO()
        call_command(
            "compute_ratings",
            "--dataset",
            "toy",
            "--aspect",
            "ts",
            "--bootstrap",
            "0",
            "--k",
            str(k),
            "--json",
            stdout=out,
        )
        result = json.loads(out.getvalue())
        assert result["bootstrap"] == 0
        board = result["aspects"]["ts"]
        assert {system: entry["rating"] for system, entry in board.items()} == pytest.approx(played_by_hand(k))
        assert all(set(entry) == {"rating", "battles"} for entry in board.values())  # no interval
    table = io.StringIO()
    call_command("compute_ratings", "--dataset", "toy", "--aspect", "ts", "--bootstrap", "0", stdout=table)
    lines = table.getvalue().splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["alpha", "gamma", "beta"]
    assert "(single pass)" in lines[1] and "1008.0" in lines[1]
