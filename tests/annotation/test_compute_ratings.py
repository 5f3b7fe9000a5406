"""compute_ratings: Elo and Bradley–Terry from hand-made judgements, merged or all, and bad options."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation import ratings
from annotation.ratings import INITIAL_RATING
from tests.annotation.campaign_factories import import_judgement_rows
from tests.factories import make_dataset

pytestmark = pytest.mark.django_db


def import_csv(tmp_path, body, name="pilot"):
    import_judgement_rows(tmp_path, body, name)


def ratings_json(*extra):
    out = io.StringIO()
    call_command("compute_ratings", "--dataset", "toy", "--json", *extra, stdout=out)
    return json.loads(out.getvalue())


@pytest.fixture
def dataset():
    return make_dataset(texts=4, systems=("alpha", "beta", "gamma"))[0]


def test_one_battle_moves_elo_by_half_of_k(tmp_path, dataset):
    import_csv(tmp_path, "toy-1,alpha,beta,ts,carol,a\n")
    result = ratings_json("--aspect", "ts", "--bootstrap", "50", "--k", "16")
    assert result["method"] == "elo" and list(result["aspects"]) == ["ts"]
    board = result["aspects"]["ts"]
    # Equal ratings expect 0.5; a win moves each side by k · 0.5 = 8 in every bootstrap round.
    assert board["alpha"] == {"rating": 1008.0, "ci_low": 1008.0, "ci_high": 1008.0, "battles": 1}
    assert board["beta"]["rating"] == 992.0
    assert set(board) == {"alpha", "beta"}, "an imported campaign compares the systems its file names"


def clear_winner_body():
    # alpha beats beta and gamma, beta beats gamma, on every text, by two annotators.
    rows = []
    for text in ("toy-1", "toy-2", "toy-3", "toy-4"):
        for annotator in ("carol", "dave"):
            rows += [
                f"{text},alpha,beta,gs,{annotator},a",
                f"{text},gamma,alpha,gs,{annotator},b",
                f"{text},beta,gamma,gs,{annotator},a",
            ]
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize("method", ["elo", "bt"])
def test_ratings_order_the_systems(tmp_path, dataset, method):
    import_csv(tmp_path, clear_winner_body())
    board = ratings_json("--aspect", "gs", "--method", method, "--bootstrap", "100")["aspects"]["gs"]
    assert board["alpha"]["rating"] > board["beta"]["rating"] > board["gamma"]["rating"]
    for row in board.values():
        assert row["ci_low"] <= row["rating"] <= row["ci_high"]


def test_merged_counts_an_item_once_and_all_counts_every_judgement(tmp_path, dataset):
    import_csv(tmp_path, clear_winner_body())
    merged = ratings_json("--aspect", "gs", "--bootstrap", "10")["aspects"]["gs"]
    everything = ratings_json("--aspect", "gs", "--bootstrap", "10", "--all")["aspects"]["gs"]
    assert merged["alpha"]["battles"] == 4 * 2  # two pairs per text, merged over the two annotators
    assert everything["alpha"]["battles"] == 4 * 2 * 2


def test_opposite_judgements_merge_to_a_tie(tmp_path, dataset):
    import_csv(tmp_path, "toy-1,alpha,beta,fs,carol,a\ntoy-1,alpha,beta,fs,dave,b\n")
    board = ratings_json("--aspect", "fs", "--bootstrap", "5")["aspects"]["fs"]
    assert board["alpha"]["rating"] == board["beta"]["rating"] == INITIAL_RATING


def test_results_are_reproducible_with_a_seed(tmp_path, dataset):
    import_csv(tmp_path, clear_winner_body())
    options = ("--aspect", "gs", "--bootstrap", "30", "--order", "shuffle", "--seed", "5")
    assert ratings_json(*options) == ratings_json(*options)


def test_table_output_ranks_systems(tmp_path, dataset):
    import_csv(tmp_path, clear_winner_body())
    out = io.StringIO()
    call_command("compute_ratings", "--dataset", "toy", "--aspect", "gs", "--bootstrap", "20", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "Granularity (elo)"
    assert [line.split()[0] for line in lines[1:]] == ["alpha", "beta", "gamma"]


@pytest.mark.parametrize(
    "rating, printed",
    [
        (1005.494, "1005.5"),  # the paper's Figure 5 rounds it to 1005: the table does not round twice
        (1260.458, "1260.5"),
        (1005.45, "1005.5"),  # a binary float just above .45
        (1005.449, "1005.4"),
        (1005.04999, "1005.0"),
    ],
)
def test_the_table_prints_the_unrounded_rating_rounded_once(tmp_path, dataset, monkeypatch, rating, printed):
    import_csv(tmp_path, "toy-1,alpha,beta,gs,carol,a\n")
    board = {"alpha": {"rating": rating, "battles": 1}}
    monkeypatch.setattr(ratings, "single_pass_leaderboard", lambda battles, **options: board)
    out = io.StringIO()
    call_command("compute_ratings", "--dataset", "toy", "--aspect", "gs", "--bootstrap", "0", stdout=out)
    assert out.getvalue().splitlines()[1].split()[:2] == ["alpha", printed]


@pytest.mark.parametrize(
    "options, message",
    [
        (("--aspect", "cs"), "No judgements of completeness"),
        (("--bootstrap", "-1"), "--bootstrap must be 0 \\(a single pass\\) or more"),
        (("--k", "-2"), "--k must be positive"),
        (("--campaign", "other"), "No campaign named 'other'"),
    ],
)
def test_bad_requests_are_refused(tmp_path, dataset, options, message):
    import_csv(tmp_path, "toy-1,alpha,beta,ts,carol,a\n")
    with pytest.raises(CommandError, match=message):
        call_command("compute_ratings", "--dataset", "toy", *options, stdout=io.StringIO())
