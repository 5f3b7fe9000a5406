"""Replicates on the leaderboard: runs of one model gathered as mean ± sample SD, a table and a plot."""

import csv
import io

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from leaderboard.contents import ASPECT_NAMES
from leaderboard.plots.scores import replicate_points
from leaderboard.replicates import replicate_groups
from scoring.models import System
from tests.leaderboard.leaderboard_fixtures import get_built, scored_dataset


def row(system, group, seed, **values):
    return {"system": system, "replicate_group": group, "seed": seed, "values": values}


def test_mean_spread_and_range_over_runs_by_hand():
    rows = [
        row("m (seed 10)", "m", "10", gs=0.9, cs=None),
        row("m (seed 2)", "m", "2", gs=0.7, cs=0.4),
        row("m", "m", "1", gs=0.5, cs=None),
        row("solo", "", "", gs=0.3, cs=0.3),  # not a run of a group
        row("n", "n", "1", gs=0.2, cs=0.2),  # a group of one run is no replicate
    ]
    [group] = replicate_groups(rows, ["gs", "cs"])
    assert group["group"] == "m"
    assert [run["seed"] for run in group["runs"]] == ["1", "2", "10"]  # numeric order
    # gs: 0.5, 0.7, 0.9 -> mean 0.7; SD sqrt((0.2² + 0 + 0.2²) / 2) = 0.2.
    assert group["mean"]["gs"] == pytest.approx(0.7)
    assert group["sd"]["gs"] == pytest.approx(0.2)
    assert (group["min"]["gs"], group["max"]["gs"]) == (0.5, 0.9)
    # cs: only one run has a value: its mean, no spread.
    assert (group["mean"]["cs"], group["sd"]["cs"]) == (0.4, None)


def test_the_plot_has_points_and_a_mean_bar_per_aspect():
    rows = [
        row("m", "m", "1", ts=0.5, us=0.5, fs=0.5, gs=0.5, cs=0.5),
        row("m 2", "m", "2", ts=0.7, us=0.7, fs=0.7, gs=0.7, cs=0.7),
    ]
    figure = replicate_points(replicate_groups(rows, ["ts", "us", "fs", "gs", "cs"]), ASPECT_NAMES)
    assert len(figure["data"]) == 2 * len(ASPECT_NAMES)
    mean, points = figure["data"][:2]  # the points drawn over the mean
    assert points["y"] == [50.0, 70.0] and points["customdata"] == ["1", "2"]
    assert mean["y"] == [pytest.approx(60.0)] and mean["error_y"]["array"] == [
        pytest.approx(100 * 0.02**0.5)
    ]  # sqrt((0.1² + 0.1²) / 1)
    assert [trace.get("visible") for trace in figure["data"][2:4]] == [False, False]


@pytest.mark.django_db
def test_a_system_joins_a_replicate_group_once_per_seed():
    first, second = System.objects.create(name="m 1"), System.objects.create(name="m 2")
    first.join_replicates("m", "1")
    with pytest.raises(ValidationError, match="already this seed's run"):
        second.join_replicates("m", "1")
    with pytest.raises(ValidationError, match="not a run of a model"):
        System.ground_truth().join_replicates("m", "3")
    first.join_replicates("m", "1")  # again: nothing to do
    assert System.objects.filter(replicate_group="m").count() == 1


SEED_SCORES = {"m (seed 1)": 0.5, "m (seed 2)": 0.7, "m (seed 3)": 0.9, "solo": 0.2}


@pytest.mark.django_db
def test_page_and_csv_show_the_replicates(admin_client):
    dataset, systems = scored_dataset(
        systems=tuple(SEED_SCORES), score_of=lambda system, _position, _aspect: SEED_SCORES[system]
    )
    for system in systems:
        if system.name != "solo":
            system.join_replicates("m", system.name[-2])
    # The scores were stored before the systems joined: the next build reads the groups.
    page = get_built(admin_client, reverse("leaderboard:dataset", args=[dataset.name])).content.decode()
    table = page.split('id="replicates"')[1].split("</table>")[0]
    assert '<th scope="row" data-sort="m">m</th>' in table
    assert 'title="seeds 1, 2, 3">3</td>' in table
    assert 'title="runs from 50.0 to 90.0">70.0 ± 20.0</td>' in table
    assert 'data-plot="replicates"' in page
    response = admin_client.get(reverse("leaderboard:csv", args=[dataset.name, "replicates"]))
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(row["system"], row["statistic"], row["gs"]) for row in rows] == [
        ("m (seed 1)", "run", "0.5"),
        ("m (seed 2)", "run", "0.7"),
        ("m (seed 3)", "run", "0.9"),
        ("", "mean", "0.7"),
        ("", "sd", "0.2"),
        ("", "min", "0.5"),
        ("", "max", "0.9"),
    ]
