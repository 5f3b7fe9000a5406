"""A setting scored under the reference rules says so: selector label and column tooltips."""

import pytest

from leaderboard.metrics import describe
from tests.factories import make_dataset
from tests.leaderboard.leaderboard_fixtures import PROVENANCE, store_run

pytestmark = pytest.mark.django_db


def test_reference_rules_are_named_and_app_rules_stay_as_they_were():
    dataset, systems = make_dataset(texts=1, systems=("alpha",))
    reference = describe(store_run(dataset, systems, lambda *_: 0.5, {**PROVENANCE, "rules": "reference"}, "r" * 64))
    assert reference["label"].endswith("· reference rules")
    assert reference["columns"]["tokens_per_triple"].startswith("word tokens, a text without triples counting 0")
    assert "reference rules" in reference["columns"]["gs"]
    # A setting stored before the rules existed is the app's.
    before = describe(store_run(dataset, systems, lambda *_: 0.5))
    assert "reference" not in before["label"]
    assert before["columns"]["tokens_per_triple"] == "whitespace tokens; app rules"
