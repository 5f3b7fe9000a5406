"""Migration annotation/0006 moves the gold labels staff recorded in the admin (two fields of the
item) into adjudications, filling a field left empty from the annotators as the gold label was
read, and gives none to a triple left without one."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.annotation.triple_check_fixtures import make_triple_check

pytestmark = pytest.mark.django_db(transaction=True)
BEFORE, AFTER = [("annotation", "0005_triple_checks")], [("annotation", "0006_triple_adjudications")]


@pytest.fixture(autouse=True)
def latest_schema_after():
    """The other tests need every migration applied, later ones than 0006 too."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def migrated_to(target):
    executor = MigrationExecutor(connection)
    executor.migrate(target)
    return executor.loader.project_state(target).apps


def test_the_admins_labels_become_adjudications():
    campaign_pk = make_triple_check().pk
    old = migrated_to(BEFORE)
    items = list(old.get_model("annotation", "TripleCheckItem").objects.filter(campaign_id=campaign_pk).order_by("pk"))
    labels = old.get_model("annotation", "TripleLabel").objects
    split = {"checker1": (True, 1), "checker2": (False, 3)}  # an even split on support; facts 1 and 3
    for label in labels.filter(item=items[1]).select_related("annotator"):
        label.supported, label.facts = split[label.annotator.username]
        label.saved_at = "2026-01-01T00:00:00Z"
        label.save()
    recorded = {0: (False, 2), 1: (None, 4), 2: (True, None)}  # the item's position: the admin's two fields
    for position, (supported, facts) in recorded.items():
        items[position].adjudicated_supported, items[position].adjudicated_facts = supported, facts
        items[position].save()
    for label in labels.filter(item=items[2]):  # both say supported, 2 facts
        label.supported, label.facts, label.saved_at = True, 2, "2026-01-01T00:00:00Z"
        label.save()

    new = migrated_to(AFTER)
    moved = new.get_model("annotation", "TripleAdjudication").objects.order_by("item_id")
    # Item 1: supported not recorded and an even split: no gold label, no adjudication. Item 2:
    # facts not recorded: the lower median of its answers, 2.
    assert [(each.item_id, each.supported, each.facts, each.adjudicated_by_id) for each in moved] == [
        (items[0].pk, False, 2, None),
        (items[2].pk, True, 2, None),
    ]
