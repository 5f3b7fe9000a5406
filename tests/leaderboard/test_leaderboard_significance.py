"""The leaderboard's intervals and significance: section, figures and CSVs, on hand-checked data."""

import csv
import io

import pytest
from django.urls import reverse

from tests.leaderboard.leaderboard_fixtures import (
    HUMAN_ORDER,
    get_built,
    judged_campaign,
    ranking_labels,
    scored_dataset,
)

pytestmark = pytest.mark.django_db


def table(client, dataset, name):
    response = get_built(client, reverse("leaderboard:csv", args=[dataset.name, name]))
    assert response.status_code == 200
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_eight_texts_separate_three_systems_four_do_not(admin_client):
    # Every text scores alpha 0.9, beta 0.5, gamma 0.1. With 8 texts a pair's exact sign-flip
    # p-value is 2/256, Holm-adjusted 3 × 2/256 = 0.0234 for the first pair (and 0.0234 after
    # the running maximum for the others): all three apart. With 4 texts, 3 × 2/16 = 0.375: none.
    eight, systems = scored_dataset(name="eight", texts=8)
    judged_campaign(eight, systems, ranking_labels(HUMAN_ORDER), is_open=False)
    four, _ = scored_dataset(name="four", texts=4)

    intervals = {(row["aspect"], row["system"]): row for row in table(admin_client, eight, "score-intervals")}
    assert intervals["ts", "alpha"] == {
        "aspect": "ts", "system": "alpha", "mean": "0.9", "ci_low": "0.9", "ci_high": "0.9", "texts": "8",
        "rank_best": "1", "rank_worst": "1",
    }  # fmt: skip
    assert (intervals["cs", "gamma"]["rank_best"], intervals["cs", "gamma"]["rank_worst"]) == ("3", "3")
    tests = {
        (row["source"], row["aspect"], row["system"], row["opponent"]): row
        for row in table(admin_client, eight, "significance")
    }
    alpha_beta = tests["scores", "ts", "alpha", "beta"]
    assert (alpha_beta["difference"], alpha_beta["p_holm"], alpha_beta["shared_texts"], alpha_beta["apart"]) == (
        "0.4", "0.0234", "8", "1",
    )  # fmt: skip
    assert tests["scores", "ts", "gamma", "alpha"]["apart"] == "-1"
    # Human Elo from 8 texts × 3 pairs of unanimous battles: a rating row for every ordered pair.
    assert {row["apart"] for key, row in tests.items() if key[0] == "elo"} <= {"-1", "0", "1"}
    assert len([key for key in tests if key[:2] == ("elo", "ts")]) == 6

    ranks = {
        (row["aspect"], row["system"]): (row["rank_best"], row["rank_worst"])
        for row in table(admin_client, four, "score-intervals")
    }
    assert set(ranks.values()) == {("1", "3")}
    assert {row["apart"] for row in table(admin_client, four, "significance")} == {"0"}


def test_the_page_shows_intervals_ranks_and_both_matrices(admin_client):
    dataset, systems = scored_dataset(name="eight", texts=8)
    judged_campaign(dataset, systems, ranking_labels(HUMAN_ORDER), is_open=False)
    page = get_built(admin_client, reverse("leaderboard:dataset", args=[dataset.name])).content.decode()
    section = page[page.index('data-section="significance"') : page.index('data-section="human"')]
    assert "How sure the GENRES ranking is" in section
    assert '<span class="interval" title="95% bootstrap interval">90.0 – 90.0</span>' in section
    assert "10000 sign patterns" in section and "Holm-corrected" in section
    assert f'href="{reverse("leaderboard:csv", args=[dataset.name, "score-intervals"])}"' in section
    assert 'data-plot="significance"' in page and 'data-plot="human_significance" data-by-method' in page

    plots = get_built(admin_client, reverse("leaderboard:sections", args=[dataset.name])).json()["plots"]
    ts = plots["significance"]["data"][0]
    assert ts["x"] == ["alpha", "beta", "gamma"]
    assert ts["z"][0] == [None, 1, 1] and ts["z"][2] == [-1, -1, None]
    assert ts["text"][0][1] == "+40.0"
    human_ts = plots["human_significance"]["elo"]["data"][0]
    assert sorted(human_ts["x"]) == ["alpha", "beta", "gamma"]


def test_the_section_says_so_when_nothing_is_scored(admin_client):
    from tests.factories import make_dataset

    dataset, _ = make_dataset(name="unscored", texts=2, systems=("alpha", "beta"))
    page = get_built(admin_client, reverse("leaderboard:dataset", args=[dataset.name])).content.decode()
    section = page[page.index('data-section="significance"') : page.index('data-section="human"')]
    assert "No finished scoring run on this dataset yet." in section
    assert table(admin_client, dataset, "score-intervals") == []


def test_new_judgements_keep_the_tests_new_scores_redo_them(monkeypatch):
    from annotation.models import Judgement
    from leaderboard import contents, jobs
    from leaderboard.models import Snapshot
    from tests.leaderboard.leaderboard_fixtures import store_run

    dataset, systems = scored_dataset(name="eight", texts=8)
    judged_campaign(dataset, systems, ranking_labels(HUMAN_ORDER), is_open=False)
    tested = []
    significance_of_scores = contents.significance_of_scores
    monkeypatch.setattr(
        contents, "significance_of_scores", lambda scores: tested.append(1) or significance_of_scores(scores)
    )
    jobs.build_leaderboards(dataset.pk)
    Judgement.objects.filter(assignment__item__campaign__dataset=dataset).first().delete()
    jobs.build_leaderboards(dataset.pk)
    assert tested == [1]
    assert Snapshot.objects.get(dataset=dataset).data["significance"]["scores"]["ts"]["rank"]["alpha"] == [1, 1]
    # Scores of a new run: gamma now ties beta on every text, so they share ranks 2-3.
    store_run(dataset, systems, lambda system, position, aspect: {"alpha": 0.9}.get(system, 0.5))
    jobs.build_leaderboards(dataset.pk)
    assert tested == [1, 1]
    ranks = Snapshot.objects.get(dataset=dataset).data["significance"]["scores"]["ts"]["rank"]
    assert ranks == {"alpha": [1, 1], "beta": [2, 3], "gamma": [2, 3]}
