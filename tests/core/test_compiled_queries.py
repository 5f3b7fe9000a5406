"""A query compiled once (``core.compiled_queries``) answers as the queryset built for each call's values."""

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User

from annotation.models import Assignment
from annotation.services.judgements import guarded_update
from annotation.services.queues import _pending_pairs, _text_pairs, pending_pairs, text_pairs
from annotation.views.annotate import _pair_outputs, pair_outputs
from annotation.views.own_assignments import _own_assignment_to_show, own_assignment_to_show
from core.compiled_queries import SAMPLE_IDS, SAMPLE_TIMES, SAMPLE_UUID, CompiledQuery, CompiledUpdate
from tests.annotation.annotator_fixtures import FIRST_FOUR_LEFT, make_annotation_setup, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

SHOWN = ("pk", "public_id", "version", "a_on_left", "queue_pairs", "queue_pairs_judged", "queue_judgements")


def shown(assignment):
    """What the item page reads of an assignment: its fields, annotations and related objects."""
    item = assignment.item
    return (
        tuple(getattr(assignment, name) for name in SHOWN),
        bool(assignment.practice_pending),
        (item.campaign.name, item.text.content, item.system_a.name, item.system_b.name),
    )


@pytest.fixture
def study():
    annotators = [make_user("first-annotator"), make_user("second-annotator")]
    return make_annotation_setup(annotators), annotators


def test_the_item_pages_assignment_is_the_querysets_for_every_annotator_and_item(study, client):
    setup, annotators = study
    first = setup.assignments(annotators[0])[0]
    client.force_login(annotators[0])
    client.post(f"/annotate/{first.public_id}/", {"version": 0, **FIRST_FOUR_LEFT}, HTTP_ACCEPT="application/json")
    for annotator in annotators:
        for assignment in setup.assignments(annotator):
            [compiled] = own_assignment_to_show(annotator.pk, assignment.public_id)
            [built] = _own_assignment_to_show(annotator.pk, assignment.public_id)
            assert shown(compiled) == shown(built)
    # Someone else's assignment: nothing, as from the queryset.
    other = setup.assignments(annotators[1])[0]
    assert own_assignment_to_show(annotators[0].pk, other.public_id) == []


def test_values_list_rows_come_back_converted_as_the_querysets(study):
    setup, annotators = study
    for annotator in annotators:
        rows = pending_pairs(annotator.pk, setup.campaign.pk)
        assert rows == list(_pending_pairs(annotator.pk, setup.campaign.pk, withholding=False))
        assert rows, "every annotator has pending pairs"
        first = setup.assignments(annotator)[0]
        progress_rows = text_pairs(setup.campaign.pk, annotator.pk, first.item.text_id)
        assert progress_rows == list(_text_pairs(setup.campaign.pk, annotator.pk, first.item.text_id))
        # JSON fields come back decoded.
        item = first.item
        outputs = dict(pair_outputs(item.text_id, item.system_a_id, item.system_b_id))
        assert outputs == dict(_pair_outputs(item.text_id, item.system_a_id, item.system_b_id))
        assert all(isinstance(triples, list) for triples in outputs.values())


def test_the_queryset_is_built_once_whatever_the_values(study):
    _setup, annotators = study
    built = []

    def users(user_id):
        built.append(user_id)
        return User.objects.filter(pk=user_id)

    query = CompiledQuery(users, SAMPLE_IDS[:1])
    assert [[user.username for user in query(annotator.pk)] for annotator in annotators] == [
        ["first-annotator"],
        ["second-annotator"],
    ]
    assert built == [SAMPLE_IDS[0]]


def test_samples_must_differ_and_appear_in_the_query():
    with pytest.raises(ValueError, match="differ"):
        CompiledQuery(lambda first, second: User.objects.filter(pk__in=[first, second]), (SAMPLE_IDS[0], SAMPLE_IDS[0]))
    # A value the queryset never uses could not be replaced by the call's.
    unused = CompiledQuery(lambda user_id, public_id: User.objects.filter(pk=user_id), (SAMPLE_IDS[0], SAMPLE_UUID))
    with pytest.raises(ValueError, match="not among"):
        unused(1, SAMPLE_UUID)


def test_samples_that_make_the_query_empty_are_refused():
    # Django compiles an empty "in" (or, on PostgreSQL, an id beyond the column's range) to no query at all.
    empty = CompiledQuery(lambda user_id: User.objects.filter(pk=user_id, groups__in=[]), SAMPLE_IDS[:1])
    with pytest.raises(ValueError, match="empty"):
        empty(1)


def test_an_update_sets_each_calls_values_on_the_rows_it_matches_only(study):
    _setup, annotators = study
    seen = datetime(2026, 11, 28, 7, 30, 15, 123456, tzinfo=UTC)
    touch = CompiledUpdate(
        lambda user_id, when, name: (User.objects.filter(pk=user_id), {"last_login": when, "first_name": name}),
        (SAMPLE_IDS[0], SAMPLE_TIMES[0], "sample name"),
    )
    assert touch(annotators[0].pk, seen, "Ada") == 1
    assert touch(SAMPLE_IDS[1], seen, "nobody") == 0
    first, second = (User.objects.get(pk=annotator.pk) for annotator in annotators)
    assert (first.last_login, first.first_name) == (seen, "Ada")
    assert (second.last_login, second.first_name) == (None, "")


def test_the_saves_guarded_update_matches_only_the_version_read_in_an_open_campaign(study):
    setup, annotators = study
    assignment = setup.assignments(annotators[0])[0]
    done_at = datetime(2026, 11, 28, 8, 0, tzinfo=UTC)
    started_at = datetime(2026, 11, 28, 7, 59, 58, tzinfo=UTC)
    values = (assignment.annotator_id, 0, 2.0, started_at, Assignment.Status.DONE, done_at, "a comment")
    assert guarded_update(assignment.pk, *values[:1], 1, *values[2:]) == 0  # another version was read
    assert guarded_update(assignment.pk, annotators[1].pk, *values[1:]) == 0  # someone else's
    assert guarded_update(assignment.pk, *values) == 1
    assignment.refresh_from_db()
    assert (assignment.version, assignment.seconds_spent, assignment.started_at) == (1, 2.0, started_at)
    assert (assignment.status, assignment.completed_at, assignment.comment) == ("done", done_at, "a comment")
    # Time adds up and the first start stays; a closed campaign matches nothing.
    assert guarded_update(assignment.pk, assignment.annotator_id, 1, 3.0, done_at, "done", done_at, "") == 1
    assignment.refresh_from_db()
    assert (assignment.version, assignment.seconds_spent, assignment.started_at) == (2, 5.0, started_at)
    setup.campaign.is_open = False
    setup.campaign.save(update_fields=["is_open"])
    assert guarded_update(assignment.pk, assignment.annotator_id, 2, 1.0, done_at, "done", done_at, "") == 0
    assignment.refresh_from_db()
    assert assignment.version == 2
