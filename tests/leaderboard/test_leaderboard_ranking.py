"""The scores table reads like a result: ranked by the overall score (the mean of the five aspects
computed), a rank column whose ties are ranges, each cell carrying the rank by its own column for
the client's re-ranking; human tables in rank order even when a wide interval starts lower."""

import re

import pytest
from django.urls import reverse

from leaderboard.metrics import COLUMN_KEYS
from leaderboard.presenters import human_tables, overall, ranked_score_table
from tests.leaderboard.leaderboard_fixtures import get_built, scored_dataset

ASPECT_NAMES = [{"code": code, "name": code.upper()} for code in ("ts", "us", "fs", "gs", "cs")]


def row(system, ground_truth=False, **values):
    return {
        "system": system,
        "ground_truth": ground_truth,
        "current": True,
        "values": {**dict.fromkeys(COLUMN_KEYS), **values},
    }


def data_with(*rows):
    return {"setting": None, "scores": list(rows), "aspects": ASPECT_NAMES}


def test_overall_is_the_mean_of_the_aspects_computed():
    assert overall({"ts": 0.9, "us": 0.5, "fs": 0.4, "gs": 0.2, "cs": 0.5}) == pytest.approx(0.5)
    # No gold triples: completeness is not applicable and the mean is over the other four.
    assert overall({"ts": 0.8, "us": 0.4, "fs": 0.4, "gs": 0.4, "cs": None}) == pytest.approx(0.5)
    assert overall({"ts": None, "precision": 0.3}) is None


def test_rows_are_ranked_by_overall_with_ground_truth_first_and_unranked():
    table = ranked_score_table(
        data_with(
            row("alpha", ts=0.2, us=0.2, fs=0.2, gs=0.2, cs=0.2),
            row("Ground truth", ground_truth=True, ts=1.0, us=1.0, fs=1.0, gs=1.0, cs=1.0),
            row("beta", ts=0.9, us=0.9, fs=0.9, gs=0.9, cs=0.9),
            row("gamma", ts=0.5, us=0.5, fs=0.5, gs=0.5, cs=0.5),
        )
    )
    assert [entry["system"] for entry in table["rows"]] == ["Ground truth", "beta", "gamma", "alpha"]
    assert [entry["rank"].text for entry in table["rows"]] == ["—", "1", "2", "3"]
    headers = [header["key"] for header in table["headers"]]
    assert headers.index("overall") == headers.index("ts") - 1  # heads the GENRES group
    overall_cells = [entry["cells"][headers.index("overall")] for entry in table["rows"]]
    assert [cell.text for cell in overall_cells] == ["100.0", "90.0", "50.0", "20.0"]
    assert overall_cells[1].best and not overall_cells[0].best


def test_equal_values_as_shown_share_a_range_of_ranks_and_each_column_ranks_on_its_own():
    table = ranked_score_table(
        data_with(
            row("alpha", ts=0.50001, us=0.5, fs=0.5, gs=0.5, cs=0.5, empty_share=0.2),
            row("beta", ts=0.5, us=0.9, fs=0.5, gs=0.5, cs=0.1, empty_share=0.0),
            row("gamma", ts=0.1, us=0.5, fs=0.1, gs=0.1, cs=0.1, empty_share=0.1),
        )
    )
    keys = [header["key"] for header in table["headers"]]
    by_system = {entry["system"]: entry for entry in table["rows"]}
    ranks = {
        system: {key: cell.rank for key, cell in zip(keys, entry["cells"], strict=True)}
        for system, entry in by_system.items()
    }
    # ts 50.0 and 50.0 as shown: alpha and beta share ranks 1–2.
    assert ranks["alpha"]["ts"] == ranks["beta"]["ts"] == "1–2" and ranks["gamma"]["ts"] == "3"
    assert (ranks["beta"]["us"], ranks["alpha"]["us"], ranks["gamma"]["us"]) == ("1", "2–3", "2–3")
    # Fewer empty outputs is better.
    assert (ranks["beta"]["empty_share"], ranks["gamma"]["empty_share"], ranks["alpha"]["empty_share"]) == (
        "1",
        "2",
        "3",
    )
    # Counts rank nothing.
    assert ranks["alpha"]["triples_per_text"] == ""
    # Overall: alpha and beta both 50.0 as shown share ranks 1–2, with the reason on hover.
    assert by_system["alpha"]["rank"].text == by_system["beta"]["rank"].text == "1–2"
    assert by_system["alpha"]["rank"].title.startswith("Equal to other systems as shown")


def test_human_tables_list_systems_in_rank_order():
    def entry(rating, low, high, rank):
        return {"rating": rating, "ci_low": low, "ci_high": high, "battles": 10, "rank": rank}

    board = {
        # A higher rating with a wide interval ranks 3–7; the next one, narrower, 2–7.
        "wide": entry(1040, 900, 1100, [3, 7]),
        "narrow": entry(1030, 1000, 1060, [2, 7]),
        "top": entry(1200, 1150, 1250, [1, 1]),
    }
    data = {
        "aspects": ASPECT_NAMES[:1],
        "human": {"judgements": 30, "ratings": {"elo": {"ts": board}}},
    }
    rows = human_tables(data)["elo"][0]["rows"]
    assert [(item["system"], item["rank"].text) for item in rows] == [("top", "1"), ("narrow", "2–7"), ("wide", "3–7")]


@pytest.mark.django_db
def test_the_page_ranks_and_sorts_by_overall(admin_client):
    dataset, _ = scored_dataset(name="ranked")
    response = get_built(admin_client, reverse("leaderboard:dataset", args=[dataset.name]), {})
    html = response.content.decode()
    table = html[html.index('id="scores-table"') : html.index("</table>", html.index('id="scores-table"'))]
    assert re.findall(r'<th scope="row" class="system-col" data-sort="([^"]+)"', table) == ["alpha", "beta", "gamma"]
    assert re.findall(r'<td class="num rank-col">(\d)</td>', table) == ["1", "2", "3"]
    assert 'aria-sort="descending" title="Mean of the five GENRES aspect scores' in table
