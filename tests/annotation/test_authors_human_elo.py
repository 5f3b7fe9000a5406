"""The GENRES authors' human judgements (one CSV per aspect: sample_id,model_A_name,model_B_name,win)
imported with import_judgments --layout authors, then rated with compute_ratings --bootstrap 0:
the ratings equal one pass of online Elo (K 16, scale 400, base 10, start 1000) played by hand in
file order, as the authors' notebook computed their Figure 5. The files are written here with
this test's own content."""

import json
from collections import defaultdict

import pytest
from django.core.management import CommandError, call_command

from scoring.imports import import_outputs
from tests.scoring.run_fixtures import ECHO_OUTPUTS, jsonl, tiny_dataset

pytestmark = pytest.mark.django_db
NAMES = [
    "--system-name",
    "Groundtruth=Ground truth",
    "--system-name",
    "Echo-7b=Echo",
    "--system-name",
    "Other-70b=Other",
]
HEADER = "sample_id,model_A_name,model_B_name,win\n"
# Topical: the order matters for a single pass (Other wins late); ties count half.
TOPICAL = [
    (0, "Groundtruth", "Echo-7b", "model_B_win"),
    (0, "Groundtruth", "Other-70b", "model_B_win"),
    (0, "Echo-7b", "Other-70b", "model_A_win"),
    (1, "Groundtruth", "Echo-7b", "tie"),
    (1, "Echo-7b", "Other-70b", "model_B_win"),
    (2, "Other-70b", "Groundtruth", "model_A_win"),
    (2, "Echo-7b", "Other-70b", "model_B_win"),
]
COMPLETENESS = [(0, "Groundtruth", "Echo-7b", "model_A_win"), (1, "Other-70b", "Groundtruth", "model_B_win")]
SYSTEM = {"Groundtruth": "Ground truth", "Echo-7b": "Echo", "Other-70b": "Other"}


def hand_played_elo(rows: list[tuple[int, str, str, str]]) -> dict[str, float]:
    """The authors' compute_elo, written out: each battle once, in order."""
    rating: dict[str, float] = defaultdict(lambda: 1000.0)
    for _sample, model_a, model_b, win in rows:
        a, b = SYSTEM[model_a], SYSTEM[model_b]
        expected_a = 1 / (1 + 10 ** ((rating[b] - rating[a]) / 400))
        score_a = {"model_A_win": 1.0, "model_B_win": 0.0, "tie": 0.5}[win]
        rating[a], rating[b] = rating[a] + 16 * (score_a - expected_a), rating[b] + 16 * (expected_a - score_a)
    return dict(rating)


def write_csv(path, rows: list[tuple[int, str, str, str]]) -> str:
    path.write_text(HEADER + "".join(f"{sample}.0,{a},{b},{win}\n" for sample, a, b, win in rows), encoding="utf-8")
    return str(path)


@pytest.fixture
def study(tmp_path) -> list[str]:
    tiny_dataset()  # texts #1 to #3 (sample ids 0 to 2), Echo and Ground truth
    import_outputs(jsonl(ECHO_OUTPUTS), file_name="Other.jsonl", dataset="tiny", system_name="Other")
    return [
        write_csv(tmp_path / "Topical_merged.csv", TOPICAL),
        write_csv(tmp_path / "Completeness_merged.csv", COMPLETENESS),
    ]


def test_authors_judgements_rated_in_one_pass_equal_a_hand_played_elo(study, capsys):
    call_command("import_judgments", *study, "--dataset", "tiny", "--campaign", "paper", "--layout", "authors", *NAMES)
    capsys.readouterr()
    call_command(
        "compute_ratings",
        "--dataset",
        "tiny",
        "--bootstrap",
        "0",
        "--k",
        "16",
        "--order",
        "import",
        "--aspect",
        "ts",
        "--json",
    )
    board = json.loads(capsys.readouterr().out)["aspects"]["ts"]
    expected = hand_played_elo(TOPICAL)
    assert {system: row["rating"] for system, row in board.items()} == pytest.approx(expected)
    assert expected["Other"] > expected["Echo"] > expected["Ground truth"]
    call_command("compute_ratings", "--dataset", "tiny", "--bootstrap", "0", "--k", "16", "--aspect", "cs", "--json")
    board = json.loads(capsys.readouterr().out)["aspects"]["cs"]
    assert {system: row["rating"] for system, row in board.items()} == pytest.approx(hand_played_elo(COMPLETENESS))


def test_a_bad_authors_file_names_the_file_and_line_and_imports_nothing(study, tmp_path):
    bad = write_csv(
        tmp_path / "Granularity_merged.csv", [(0, "Groundtruth", "Echo-7b", "tie"), (7, "Echo-7b", "Other-70b", "tie")]
    )
    with pytest.raises(CommandError, match=r"Granularity_merged.csv line 3: sample_id '7.0' is not a position"):
        call_command("import_judgments", *study, bad, "--dataset", "tiny", "--layout", "authors", *NAMES)
    unnamed = write_csv(tmp_path / "votes.csv", TOPICAL)
    with pytest.raises(CommandError, match=r"votes\.csv: the file name does not start with an aspect"):
        call_command("import_judgments", unnamed, "--dataset", "tiny", "--layout", "authors", *NAMES)
    with pytest.raises(CommandError, match=r"Topical_merged\.csv line 2: unknown system 'Groundtruth' in system_a"):
        call_command("import_judgments", study[0], "--dataset", "tiny", "--layout", "authors")
    from annotation.models import Campaign

    assert not Campaign.objects.exists()
