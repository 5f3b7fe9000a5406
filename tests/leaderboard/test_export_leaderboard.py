"""``export_leaderboard`` writes the JSON, every CSV and a page that needs no network to open."""

import json
import re
from html.parser import HTMLParser

import pytest
from django.core.management import CommandError, call_command

from leaderboard.exports import CSV_TABLES
from tests.leaderboard.leaderboard_fixtures import HUMAN_ORDER, judged_campaign, ranking_labels, scored_dataset

pytestmark = pytest.mark.django_db


class References(HTMLParser):
    """Every src and href of the page, and whether scripts and styles are all inline."""

    def __init__(self):
        super().__init__()
        self.references = []
        self.inline_scripts = 0

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.references += [attributes[name] for name in ("src", "href") if attributes.get(name)]
        if tag == "script" and "src" not in attributes:
            self.inline_scripts += 1


@pytest.fixture
def exported(tmp_path, capsys):
    dataset, systems = scored_dataset()
    judged_campaign(dataset, systems, ranking_labels(HUMAN_ORDER), is_open=False)
    call_command("export_leaderboard", "--dataset", "toy", "--out", str(tmp_path / "out"), "--margin", "0.5")
    return tmp_path / "out", capsys.readouterr().out


def test_writes_json_csvs_and_html(exported):
    out, printed = exported
    names = sorted(path.name for path in out.iterdir())
    tables = [f"toy-{table}.{kind}" for table in CSV_TABLES for kind in ("csv", "parquet")]
    assert names == sorted(["leaderboard.json", "index.html", *tables])
    assert printed.startswith(f"Wrote the toy leaderboard to {out}: {len(names)} files")
    data = json.loads((out / "leaderboard.json").read_text())
    assert data["margin"] == 0.5
    assert data["comparison"]["elo"]["us"]["by_score"]["kendall_tau"] == pytest.approx(-1.0)
    assert (out / "toy-scores.csv").read_text().splitlines()[1].startswith("alpha,False,4,1.0,3.0,0.9,")


def test_the_page_references_nothing_outside_its_folder(exported):
    out, _ = exported
    page = (out / "index.html").read_text()
    parser = References()
    parser.feed(page)
    for reference in parser.references:
        assert not re.match(r"^([a-z]+:|/)", reference), reference
        assert (out / reference).exists(), reference
    # plotly.js, the figure data and the page script are inline; so are the styles.
    assert parser.inline_scripts == 3
    assert "<link" not in page and "<style>" in page
    assert "Plotly" in page and "leaderboard-plots" in page
    assert '<td class="num tau-score">-1.00</td>' in page
    assert 'id="live-status"' not in page


def test_unknown_dataset_or_bad_margin(tmp_path):
    with pytest.raises(CommandError, match="No dataset named 'nope'"):
        call_command("export_leaderboard", "--dataset", "nope", "--out", str(tmp_path))
    scored_dataset()
    with pytest.raises(CommandError, match="margin must be between 0 and 1"):
        call_command("export_leaderboard", "--dataset", "toy", "--out", str(tmp_path), "--margin", "3")
    assert list(tmp_path.iterdir()) == []
