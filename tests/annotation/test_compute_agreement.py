"""compute_agreement: figures per aspect from hand-made judgements, JSON and table output."""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from tests.annotation.campaign_factories import import_judgement_rows
from tests.factories import make_dataset

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

# Three items judged twice on ts: the same label, one tie, opposite sides.
TWO_ANNOTATORS = (
    "toy-1,alpha,beta,ts,carol,a\ntoy-1,alpha,beta,ts,dave,a\n"
    "toy-2,alpha,beta,ts,carol,a\ntoy-2,alpha,beta,ts,dave,tie\n"
    "toy-3,alpha,beta,ts,carol,a\ntoy-3,beta,alpha,ts,dave,a\n"  # dave's "a" is beta: canonical b
    "toy-1,alpha,beta,us,carol,b\n"  # judged once: nothing to compare
)


@pytest.fixture
def imported(tmp_path):
    make_dataset(texts=3, systems=("alpha", "beta"))
    import_judgement_rows(tmp_path, TWO_ANNOTATORS, "pilot")


def agreement_json(*extra):
    out = io.StringIO()
    call_command("compute_agreement", "--dataset", "toy", "--json", *extra, stdout=out)
    return json.loads(out.getvalue())


def test_figures_per_aspect(imported):
    result = agreement_json()
    assert set(result["aspects"]) == {"ts", "us", "fs", "gs", "cs"}
    ts = result["aspects"]["ts"]
    assert ts["items"] == 3
    assert ts["tie_discounted_accuracy"] == pytest.approx((1 + 0.5 + 0) / 3)
    # Carol always says a; agreement is what chance predicts: kappa 0.
    assert ts["cohen_kappa"] == pytest.approx(0.0)
    # Nominal alpha by hand: 6 values (4 a, 1 tie, 1 b), 4 disagreeing ordered pairs: 1 - 5 · 4 / (36 - 18).
    assert ts["krippendorff_alpha"] == pytest.approx(1 - 5 * 4 / 18)
    assert result["aspects"]["us"] == {
        "tie_discounted_accuracy": None,
        "items": 0,
        "cohen_kappa": None,
        "krippendorff_alpha": None,
    }


def test_campaign_option_and_table_output(imported):
    assert agreement_json("--campaign", "pilot")["aspects"]["ts"]["items"] == 3
    out = io.StringIO()
    call_command("compute_agreement", "--dataset", "toy", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["aspect", "accuracy", "kappa", "alpha", "items"]
    assert lines[1].split() == ["Topical", "similarity", "0.500", "0.000", "-0.111", "3"]
    assert lines[2].split() == ["Uniqueness", "–", "–", "–", "0"]


def test_unknown_names_are_refused(imported):
    with pytest.raises(CommandError, match="No dataset named 'nope'"):
        call_command("compute_agreement", "--dataset", "nope")
    with pytest.raises(CommandError, match="No campaign named 'other' on dataset toy"):
        call_command("compute_agreement", "--dataset", "toy", "--campaign", "other")
