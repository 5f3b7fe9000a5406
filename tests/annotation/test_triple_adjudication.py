"""Adjudicating a triple check: which triples are disagreements, the adjudication's invariants
(one per triple, who and when, never an attention check), and the gold label it becomes in the
judges' figures, the bias, the leaderboard's data, its JSON and the Python API; a rebuild is
scheduled, not done in the request; the admin shows it, read only."""

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from annotation.adjudication import AdjudicationError
from annotation.triple_checks.adjudication import adjudicate, disagreements
from annotation.triple_checks.models import TripleAdjudication, TripleCheckItem
from annotation.triple_checks.queries import judge_report
from leaderboard import contents, frames, human, jobs
from tests.annotation.triple_check_fixtures import label_with_disagreements

pytestmark = pytest.mark.django_db
ROUNDS = 10


@pytest.fixture
def lead():
    return User.objects.create_user("lead", is_staff=True)


@pytest.fixture
def split(triple_check):
    return label_with_disagreements(triple_check)


def test_disagreements_are_the_triples_whose_answers_differ(triple_check, split):
    found = disagreements(triple_check)
    assert [each.item for each in found] == [split["no_majority"], split["facts"]]
    no_majority, facts = found
    # Annotators are numbered by user id: checker1 is 1, checker2 is 2.
    assert [(a.annotator, a.supported, a.facts) for a in no_majority.answers] == [(1, True, 1), (2, False, 1)]
    assert (no_majority.split_on, no_majority.majority) == ("support", (None, 1))
    assert (facts.split_on, facts.majority) == ("facts", (True, 1))  # the lower median of 1 and 2
    assert all(each.adjudication is None for each in found)


def test_the_adjudicated_label_replaces_the_majority(triple_check, split, lead):
    before = judge_report(triple_check.dataset, rounds=ROUNDS)
    assert (before["gold"], before["adjudicated"], before["awaiting_adjudication"]) == (7, 0, 1)
    careful = before["judges"][0]
    assert careful["judge"] == "careful · careful-model" and careful["accuracy"]["value"] == pytest.approx(1.0)

    # The triple without a majority gets a gold label; the one split on facts is overruled on support.
    adjudicate(split["no_majority"], supported=True, facts=1, adjudicated_by=lead)
    adjudicate(split["facts"], supported=False, facts=2, adjudicated_by=lead)
    after = judge_report(triple_check.dataset, rounds=ROUNDS)
    assert (after["gold"], after["adjudicated"], after["awaiting_adjudication"]) == (8, 2, 0)
    careful = after["judges"][0]
    assert careful["adjudicated"] == 2
    # The careful judge calls the overruled triple supported: wrong on its weight (4, a supported
    # stratum's) of the 24 of all eight triples (2 + 2 + 4 + 4 per system).
    assert split["facts"].weight == 4.0 and sum(item.weight for item in triple_check.items.all()) == 24.0
    assert careful["accuracy"]["value"] == pytest.approx(1 - 4 / 24)

    labels = frames.triple_labels(triple_check.dataset, campaign=triple_check.name)
    overruled = labels[labels["item"] == split["facts"].pk]
    assert set(overruled["gold"]) == {"adjudicated"} and not overruled["gold_supported"].any()
    assert set(overruled["gold_facts"]) == {2}
    assert set(labels[labels["item"] == split["alone"].pk]["gold"]) == {"majority"}  # one answer: its own
    agreement = frames.judge_agreement(triple_check.dataset)
    assert agreement.loc[0, "adjudicated"] == 2


def test_one_adjudication_per_triple_changed_in_place(triple_check, split, lead):
    first = adjudicate(split["facts"], supported=True, facts=1, adjudicated_by=lead)
    again = adjudicate(split["facts"], supported=False, facts=3, adjudicated_by=lead)
    assert first.pk == again.pk and TripleAdjudication.objects.count() == 1
    stored = TripleAdjudication.objects.get()
    assert (stored.supported, stored.facts, stored.adjudicated_by) == (False, 3, lead)
    assert stored.adjudicated_at is not None
    with pytest.raises(IntegrityError), transaction.atomic():
        TripleAdjudication.objects.bulk_create([TripleAdjudication(item=split["facts"], supported=True, facts=1,
                                                                   adjudicated_at=stored.adjudicated_at)])  # fmt: skip


def test_nothing_to_settle_and_attention_checks_are_refused(triple_check, split, lead):
    with pytest.raises(AdjudicationError, match="two or more annotators"):
        adjudicate(split["alone"], supported=True, facts=1, adjudicated_by=lead)
    source = split["facts"]
    check = TripleCheckItem.objects.create(
        campaign=triple_check, output=source.output, text=source.text, index=0, triple=source.triple, attention=True
    )
    with pytest.raises(ValidationError, match="attention check"):
        TripleAdjudication(item=check, supported=False, facts=1, adjudicated_at=source.campaign.created_at).save()
    with pytest.raises(ValidationError):
        TripleAdjudication(item=source, supported=False, facts=6, adjudicated_at=source.campaign.created_at).save()
    assert not TripleAdjudication.objects.exists()


def test_the_leaderboard_data_says_how_many_are_adjudicated(triple_check, split, lead):
    adjudicate(split["no_majority"], supported=True, facts=1, adjudicated_by=lead)
    checks = contents.leaderboard(triple_check.dataset)["triple_checks"]
    assert (checks["adjudicated"], checks["judges"][0]["adjudicated"]) == (1, 1)


def test_an_adjudication_schedules_a_rebuild_and_changes_the_judgement_version(
    triple_check, split, lead, monkeypatch, django_capture_on_commit_callbacks
):
    scheduled = []
    monkeypatch.setattr(jobs, "_enqueue", scheduled.append)
    before = human.judgement_version(triple_check.dataset)
    with django_capture_on_commit_callbacks(execute=True):
        adjudicate(split["facts"], supported=False, facts=1, adjudicated_by=lead)
    assert scheduled == [triple_check.dataset_id]
    assert human.judgement_version(triple_check.dataset) != before


def test_the_admin_shows_an_adjudication_but_does_not_edit_it(client, triple_check, split):
    superuser = User.objects.create_superuser("admin", "admin@example.org", "admin-pass-123")
    adjudicate(split["facts"], supported=True, facts=1, adjudicated_by=superuser)
    client.force_login(superuser)
    listed = client.get(reverse("admin:annotation_triplecheckitem_changelist")).content.decode()
    assert "supported, 1 fact(s)" in listed
    shown = client.get(reverse("admin:annotation_triplecheckitem_change", args=[split["facts"].pk]))
    assert shown.status_code == 200 and 'name="_save"' not in shown.content.decode()
