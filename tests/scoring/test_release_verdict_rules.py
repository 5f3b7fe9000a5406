"""Two rules for the authors' recorded verdicts, on small files of this test's own in the release's
layouts (text -> triples; factualness: text -> {"results": [bool, ...]}; granularity: text ->
{triple JSON: reply}):

- a triple given twice in one output was judged twice, and each occurrence keeps its verdict;
- an item with a number for an element (``["Film", "released in", 1927]``) was judged like any
  triple: under the reference rules it is judged with its recorded verdicts too.
"""

import json
import math

import pytest
from django.core.management import call_command

from scoring.genres.judges.recorded import RecordedJudge, RecordedVerdict
from scoring.models import ImportedVerdict

pytestmark = pytest.mark.django_db

FILM = "The film Harbour Lights was released in 1927 and shot in Lisbon."
RIVER = "The Tagus flows through Lisbon."
RELEASED = ["Harbour Lights", "released in", 1927]
SHOT = ["Harbour Lights", "shot in", "Lisbon"]
FLOWS = ["Tagus", "flows through", "Lisbon"]
OUTPUTS = {FILM: [SHOT, RELEASED, SHOT], RIVER: [FLOWS]}
FACTUALNESS = {FILM: {"results": [True, True, False]}, RIVER: {"results": [False]}}
GRANULARITY = {
    FILM: {json.dumps(SHOT): "[a]", json.dumps(RELEASED): "[a] [b]"},
    RIVER: {json.dumps(FLOWS): "[a] [b] [c]"},
}


def write(path, content):
    path.write_text(json.dumps(content), encoding="utf-8")
    return str(path)


def scores(capsys, rules="reference"):
    capsys.readouterr()
    call_command(
        "score_outputs",
        "--dataset",
        "films",
        "--systems",
        "teller",
        "--metrics",
        "fs,gs",
        "--judge",
        "recorded",
        "--verdict-source",
        "release",
        "--rules",
        rules,
        "--sync",
        "--json",
    )
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def release(tmp_path):
    """The dataset, the system's parsed triples (lenient: the number item is malformed) and its verdicts."""
    call_command("import_dataset", write(tmp_path / "films.json", {FILM: [SHOT], RIVER: [FLOWS]}), "--name", "films")
    outputs = write(tmp_path / "teller.json", OUTPUTS)
    call_command("import_outputs", outputs, "--dataset", "films", "--system", "teller", "--lenient")
    common = ["--dataset", "films", "--system", "teller", "--source", "release"]
    fs, gs = write(tmp_path / "fs.json", FACTUALNESS), write(tmp_path / "gs.json", GRANULARITY)
    call_command("import_verdicts", fs, *common, "--layout", "authors-fs", "--triples", outputs)
    call_command("import_verdicts", gs, *common, "--layout", "authors-gs")


def test_each_occurrence_of_a_triple_keeps_its_verdict(release):
    shot = ImportedVerdict.objects.filter(aspect="fs", triple=SHOT).order_by("occurrence")
    assert list(shot.values_list("occurrence", "supported")) == [(0, True), (1, False)]


def test_reference_fs_and_gs_judge_every_occurrence_and_the_number_item(release, capsys):
    result = scores(capsys)
    assert result["missing_verdicts"] == 0
    # fs, the authors' mean of each text's booleans: film (1 + 1 + 0) / 3, river 0.
    assert result["systems"]["teller"]["fs"] == pytest.approx((2 / 3 + 0) / 2)
    # gs over each text's distinct items: film (e^0 + e^-2) / 2, river e^-3.
    assert result["systems"]["teller"]["gs"] == pytest.approx(((1 + math.exp(-2)) / 2 + math.exp(-3)) / 2)


def test_the_app_rules_judge_triples_only(release, capsys):
    result = scores(capsys, rules="app")
    # The number item was dropped at import; the two occurrences of SHOT keep their own verdicts.
    assert result["systems"]["teller"]["fs"] == pytest.approx((1 / 2 + 0) / 2)


def test_a_triple_judged_more_often_than_recorded_gets_the_last_verdict():
    judge = RecordedJudge("release", [RecordedVerdict("fs", FILM, tuple(SHOT), supported=False)])
    pairs = [(FILM, SHOT), (FILM, SHOT), (RIVER, FLOWS)]
    assert [verdict.supported for verdict in judge.check_support(pairs)] == [False, False, False]
    assert judge.missing == 1
