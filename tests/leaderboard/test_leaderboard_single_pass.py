"""The leaderboard's single-pass Elo (import order, K 16) beside the bootstrap medians, labelled."""

import io

import pytest
from django.core.management import call_command
from django.urls import reverse

from leaderboard.contents import leaderboard
from leaderboard.exports import csv_text
from leaderboard.human import human_side
from tests.annotation.single_pass_fixtures import JUDGEMENTS, played_by_hand
from tests.factories import make_dataset
from tests.leaderboard.leaderboard_fixtures import get_built

pytestmark = pytest.mark.django_db


@pytest.fixture
def dataset(tmp_path):
    dataset = make_dataset(texts=1, systems=("alpha", "beta", "gamma"))[0]
    path = tmp_path / "pilot.csv"
    path.write_text(JUDGEMENTS, encoding="utf-8")
    call_command("import_judgements", str(path), "--dataset", "toy", stdout=io.StringIO())
    return dataset


def test_human_side_holds_the_hand_played_single_pass(dataset):
    single_pass = human_side(dataset, rounds=10)["single_pass"]
    assert {system: entry["rating"] for system, entry in single_pass["ts"].items()} == pytest.approx(played_by_hand(16))
    assert single_pass["fs"] == {}  # no judgements of that aspect, no ratings


def test_page_and_csv_show_it_labelled(admin_client, dataset):
    page = get_built(admin_client, reverse("leaderboard:dataset", args=["toy"])).content.decode()
    assert "Elo, single pass, import order" in page
    table = page.split('id="single-pass"')[1].split("</table>")[0]
    assert '<td data-sort="alpha">alpha</td><td class="num" data-sort="1007.99' in table
    rows = csv_text("human-ratings", leaderboard(dataset)).splitlines()
    assert any(row.startswith("elo_single_pass,ts,beta,984.18,,,2,") for row in rows)
