"""Triple checks on the leaderboard: the judges' agreement in the built data, the section beside FS
and GS, the rebuild a saved label schedules, and the DataFrames of the Python API."""

import pytest
from django.template.loader import render_to_string

from annotation.triple_checks.models import TripleLabel
from annotation.triple_checks.queries import JUDGE_FIELDS
from annotation.triple_checks.services import save_label
from leaderboard import contents, exports, frames, human, presenters

pytestmark = pytest.mark.django_db


@pytest.fixture
def labelled(triple_check):
    """Every triple labelled as the careful judge sees it."""
    for label in TripleLabel.objects.filter(item__campaign=triple_check).select_related("item"):
        TripleLabel.objects.filter(pk=label.pk).update(
            supported=label.item.index != 1, facts=1, saved_at="2026-01-01T00:00:00Z"
        )
    return triple_check


def test_the_built_leaderboard_holds_every_judge(labelled):
    data = contents.leaderboard(labelled.dataset)
    judges = data["triple_checks"]["judges"]
    assert [judge["judge"] for judge in judges] == ["careful · careful-model", "careless · careless-model"]
    assert judges[0]["kappa"]["value"] == pytest.approx(1.0)
    assert set(judges[0]["systems"]) == {"sys-one", "sys-two"}


def test_the_section_puts_the_judges_bias_beside_fs_and_gs(labelled):
    data = contents.leaderboard(labelled.dataset, "right-judge")
    data["scores"] = [{"system": "sys-one", "values": {"fs": 0.66, "gs": 0.9}}]
    beside = presenters.judge_beside_scores(data)
    assert beside["label"] == "careful · careful-model"
    (row,) = beside["rows"]
    assert (row["system"], row["fs"], row["fs_bias"]["value"]) == ("sys-one", 0.66, pytest.approx(0.0))
    html = render_to_string("leaderboard/section_triple_checks.html", {"data": data, "judge_beside_scores": beside})
    assert "How far to trust the judge" in html and "+0.00 [+0.00, +0.00]" in html and "McNemar" in html


def test_without_a_triple_check_the_section_says_so():
    data = {"triple_checks": None}
    assert presenters.judge_beside_scores(data) is None
    html = render_to_string("leaderboard/section_triple_checks.html", {"data": data, "judge_beside_scores": None})
    assert "No triple-check campaign" in html


def test_a_saved_label_changes_the_judgement_version(triple_check):
    before = human.judgement_version(triple_check.dataset)
    save_label(TripleLabel.objects.filter(item__campaign=triple_check).first(), "yes", "1")
    assert human.judgement_version(triple_check.dataset) != before


def test_frames_of_judges_and_their_bias(labelled):
    agreement = frames.judge_agreement(labelled.dataset.name)
    assert list(agreement.columns) == list(JUDGE_FIELDS)
    assert agreement["judge"].tolist() == ["careful · careful-model", "careless · careless-model"]
    assert agreement.loc[0, "accuracy"] == pytest.approx(1.0)
    bias = frames.judge_bias(labelled.dataset, campaign=labelled.name)
    assert len(bias) == 2 * 2 * 2  # judges × systems × aspects
    assert set(bias["aspect"]) == {"fs", "gs"}
    with pytest.raises(LookupError, match="No triple-check campaign"):
        frames.judge_bias(labelled.dataset, campaign="nope")


def test_csv_tables_of_the_judges_and_their_bias(labelled):
    data = contents.leaderboard(labelled.dataset)
    header, careful, _careless = list(exports.judge_rows(data))
    assert header[:5] == ["judge", "setting", "triples", "adjudicated", "accuracy"]
    assert careful[:5] == ["careful · careful-model", "right-judge", 8, 0, 1.0]
    assert len(list(exports.judge_bias_rows(data))) == 1 + 2 * 2 * 2
    assert "careless" in exports.csv_text("judges", data)
    assert list(exports.judge_rows({"triple_checks": None})) == [list(JUDGE_FIELDS)]


def test_every_label_as_a_frame(labelled):
    labels = frames.triple_labels(labelled.dataset.name, campaign=labelled.name)
    assert len(labels) == 16 and set(labels["annotator"]) == {"checker1", "checker2"}
    assert set(labels["system"]) == {"sys-one", "sys-two"} and not labels["attention"].any()
