"""Quality control: the practice round, attention checks, exclusion from ratings, comments, exports."""

import json
import random

import numpy as np
import pytest

from annotation import attention, exports, judgement_queries, practice, quality, ratings
from annotation.models import ASPECTS, Assignment, Campaign, Item, Judgement, Label
from annotation.services.campaigns import create_campaign
from annotation.services.errors import AnnotationError, InvalidJudgement
from annotation.services.judgements import save_judgements
from annotation.services.quality_control import (
    answer_practice,
    practice_required,
    practice_state,
    retake_practice,
    set_exclusion,
)
from annotation.services.queues import next_assignment
from scoring.genres.formats import FormatError
from scoring.models import Output
from tests.annotation.campaign_factories import judge, make_annotators, make_campaign, make_dataset
from tests.annotation.quality_fixtures import PRACTICE_RECORDS, judge_everything, practice_file, three_triples

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]


def campaign_with(name="qc", annotators=2, **options):
    dataset, systems = make_dataset(texts=6, outputs=three_triples)
    people = make_annotators(annotators)
    created = create_campaign(
        name=name,
        dataset=dataset,
        systems=systems,
        annotators=people,
        seed=3,
        overlap_share=1.0,
        sample_size=6,
        **options,
    )
    return created.campaign, people


# --- The practice file ------------------------------------------------------------------------


def test_practice_file_reads_json_lines_and_arrays():
    assert practice.read_practice_file(practice_file()) == PRACTICE_RECORDS
    assert practice.read_practice_file(practice_file(jsonl=False)) == PRACTICE_RECORDS


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"text": "x", "a": [], "b": [], "reference": {"zz": "a"}, "reason": "r"}, "line 1: unknown aspect 'zz'"),
        ({"text": "x", "a": [], "b": [], "reference": {"ts": "left"}, "reason": "r"}, 'must be "a", "b" or "tie"'),
        ({"text": "x", "a": [], "b": [], "reference": {}, "reason": "r"}, "at least one"),
        ({"text": "x", "a": [["s", "r"]], "b": [], "reference": {"ts": "a"}, "reason": "r"}, "line 1, a, triple 1"),
        ({"text": "x", "a": [], "b": [], "reference": {"ts": "a"}}, "line 1: missing reason"),
    ],
)
def test_practice_file_errors_name_the_record(record, message):
    with pytest.raises(FormatError, match=message.replace("(", r"\(")):
        practice.read_practice_file(json.dumps(record).encode())


def test_a_bad_practice_upload_changes_nothing(admin_client):
    campaign, _ = campaign_with(practice_items=PRACTICE_RECORDS)
    url = f"/campaigns/{campaign.pk}/practice/"
    from django.core.files.uploadedfile import SimpleUploadedFile

    bad = SimpleUploadedFile("practice.jsonl", b'{"text": "x"}\n')
    response = admin_client.post(url, {"practice_file": bad, "practice_pass_percent": 50})
    assert response.status_code == 400
    assert "line 1: missing" in response.content.decode()
    campaign.refresh_from_db()
    assert campaign.practice_items.count() == 2 and campaign.practice_pass_mark == 0.8


# --- The practice round -------------------------------------------------------------------------


def test_real_items_wait_until_the_practice_round_is_passed():
    campaign, (first, _) = campaign_with(practice_items=PRACTICE_RECORDS, practice_pass_mark=0.6)
    assert practice_required(first, campaign.pk)
    assert next_assignment(first, campaign) is None
    membership = campaign.memberships.get(annotator=first)
    one, two = campaign.practice_items.all()
    answer_practice(membership, one, {"fs": "left", "ts": "right"})  # 1 of 2
    answer_practice(membership, two, {"us": "right"})  # 0 of 1: 1 of 3 < 60 %
    membership.refresh_from_db()
    state = practice_state(membership)
    assert state.finished and not state.passed and (state.correct, state.total) == (1, 3)
    assert next_assignment(first, campaign) is None

    retake_practice(membership)
    membership.refresh_from_db()
    assert membership.practice_attempt == 2 and not practice_state(membership).answers
    answer_practice(membership, one, {"fs": "left", "ts": "left"})
    answer_practice(membership, two, {"us": "right"})  # 2 of 3 >= 60 %
    membership.refresh_from_db()
    assert membership.practice_passed_at is not None
    assert not practice_required(first, campaign.pk)
    assert next_assignment(first, campaign) is not None
    # Earlier attempts are kept; practice answers are never judgements.
    assert membership.practice_answers.count() == 4
    assert not Judgement.objects.exists()


def test_the_pass_mark_is_inclusive():
    assert practice.passed(4, 5, 0.8) and not practice.passed(3, 5, 0.8) and not practice.passed(0, 0, 0.0)


def test_a_practice_answer_must_cover_the_aspects_asked():
    campaign, (first, _) = campaign_with(practice_items=PRACTICE_RECORDS)
    with pytest.raises(InvalidJudgement, match="topical similarity"):
        answer_practice(campaign.memberships.get(annotator=first), campaign.practice_items.first(), {"fs": "left"})


def test_a_passed_round_cannot_be_retaken():
    campaign, (first, _) = campaign_with(practice_items=PRACTICE_RECORDS[1:], practice_pass_mark=1.0)
    membership = campaign.memberships.get(annotator=first)
    answer_practice(membership, campaign.practice_items.get(), {"us": "left"})
    with pytest.raises(AnnotationError):
        retake_practice(membership)


# --- Attention checks ---------------------------------------------------------------------------


def test_worse_copies_replace_triples_and_keep_their_number():
    triples = [["Ada", "met", "Babbage"], ["Ada", "wrote", "notes"], ["Ada", "born in", "London"]]
    assert attention.duplicated(triples) == [triples[0], triples[0], triples[2]]
    assert attention.duplicated(triples[:1]) is None  # nothing to repeat without adding
    assert attention.duplicated([triples[0], triples[0]]) is None  # it repeats itself already
    foreign = [
        ["Volta", "invented", "battery"],
        ["Nile", "flows into", "Mediterranean"],
        ["Kant", "born in", "Königsberg"],
    ]
    content = "Ada met Babbage, wrote notes and was born in London."
    copy = attention.unsupported(triples, content, foreign, random.Random(1))
    assert len(copy) == 3 and sum(triple in foreign for triple in copy) == 2
    assert [t for t in copy if t in triples] == [t for t in triples if t in copy]  # kept in place
    assert attention.unsupported(triples, "Volta, Nile and Kant", foreign, random.Random(1)) is None
    assert attention.unsupported([], content, foreign, random.Random(1)) is None
    assert (
        attention.check_count(8, 0.2) == 2
        and attention.check_count(8, 0.0) == 0
        and attention.check_count(1, 0.05) == 1
    )


def test_only_outputs_whose_triple_count_another_system_shares_are_copied():
    counts = {1: 4, 2: 4, 3: 2, 4: 0, 5: 0, 6: 2}
    assert attention.systems_to_copy(counts, [1, 2, 3, 4, 5]) == [1, 2, 3]  # 6: Ground truth


def test_attention_checks_make_their_share_of_each_queue_and_change_only_one_side():
    campaign, people = campaign_with(attention_share=0.2)
    checks = Item.objects.filter(campaign=campaign).exclude(attention_worse="")
    for person in people:
        queue = list(Assignment.objects.filter(item__campaign=campaign, annotator=person).select_related("item"))
        real = [assignment for assignment in queue if not assignment.item.is_attention_check]
        # Each check took the place of a real pair: the queue is as long as without checks.
        assert len(queue) == 6 * 3 and len(queue) - len(real) == attention.check_count(len(queue), 0.2)
        assert sorted(assignment.queue_position for assignment in queue) == list(range(len(queue)))
    for item in checks:
        assert item.system_a_id == item.system_b_id and item.attention_aspect in ("us", "fs")
        original = Output.objects.get(text=item.text, system=item.system_a).triples
        assert item.attention_triples != original and len(item.attention_triples) == len(original)
        assert item.attention_expected == (Label.B if item.attention_worse == Label.A else Label.A)


def test_attention_checks_never_reach_ratings_or_agreement_and_their_pass_rate_is_kept():
    campaign, people = campaign_with(attention_share=0.2)
    judge_everything(people[0], campaign, "left")
    judge_everything(people[1], campaign, "right")
    checked = Judgement.objects.exclude(assignment__item__attention_worse="")
    assert checked.exists()
    rows = list(judgement_queries.judgement_rows(judgement_queries.campaigns_of(campaign.dataset)))
    assert len(rows) == Judgement.objects.count() - checked.count()
    for aspect in ASPECTS:
        judgement_queries.human_battles(
            judgement_queries.campaigns_of(campaign.dataset), aspect
        )  # a self-battle would raise
    by_annotator = {row.username: row for row in quality.campaign_quality(campaign)}
    results = quality.attention_results(campaign)
    for person in people:
        own = [passed for _, annotator_id, passed in results if annotator_id == person.pk]
        row = by_annotator[person.username]
        assert row.checks_answered == len(own) and row.checks_passed == sum(own)


def test_a_check_passes_when_the_original_side_wins_the_checked_aspect():
    campaign, (first, _) = campaign_with(attention_share=0.2)
    assignment = (
        Assignment.objects.filter(annotator=first).exclude(item__attention_worse="").select_related("item").first()
    )
    original_side = assignment.canonical_to_shown(assignment.item.attention_expected)
    judge(assignment, {assignment.item.attention_aspect: original_side})
    assert quality.attention_results(campaign) == [(assignment.pk, first.pk, True)]


# --- Exclusion from ratings ---------------------------------------------------------------------


def elo_by_aspect(campaign):
    campaigns = judgement_queries.campaigns_of(campaign.dataset)
    return {aspect: ratings.elo_ratings(judgement_queries.human_battles(campaigns, aspect)) for aspect in ASPECTS}


def test_leaving_an_annotator_out_changes_the_ratings_to_those_without_them(admin_user):
    campaign, (first, second) = campaign_with(attention_share=0.1)
    judge_everything(first, campaign, "left")
    judge_everything(second, campaign, "right")
    with_everyone = elo_by_aspect(campaign)

    set_exclusion(campaign, second, excluded=True, changed_by=admin_user)
    membership = campaign.memberships.get(annotator=second)
    assert membership.excluded and membership.exclusion_changed_by == admin_user and membership.exclusion_changed_at
    without_second = elo_by_aspect(campaign)
    assert any(not np.allclose(with_everyone[aspect], without_second[aspect]) for aspect in ASPECTS)

    set_exclusion(campaign, second, excluded=False, changed_by=admin_user)
    for aspect in ASPECTS:
        np.testing.assert_allclose(elo_by_aspect(campaign)[aspect], with_everyone[aspect])
    Judgement.objects.filter(assignment__annotator=second).delete()
    for aspect in ASPECTS:
        np.testing.assert_allclose(elo_by_aspect(campaign)[aspect], without_second[aspect])


def test_an_exclusion_changes_the_leaderboard_version(admin_user):
    from leaderboard.human import judgement_version

    campaign, (first, _) = campaign_with()
    before = judgement_version(campaign.dataset)
    set_exclusion(campaign, first, excluded=True, changed_by=admin_user)
    assert judgement_version(campaign.dataset) != before


# --- Quality figures and flags ------------------------------------------------------------------


def test_flags_follow_the_documented_rule():
    row = quality.AnnotatorQuality(
        membership=None, checks_answered=5, checks_passed=3, agreement=0.4, agreement_pairs=10
    )
    row.median_seconds = 4.0
    flags = quality.outlier_flags(row, median_agreement=0.7)
    assert len(flags) == 3 and "attention checks 60%" in flags[0]
    fine = quality.AnnotatorQuality(
        membership=None, checks_answered=5, checks_passed=4, agreement=0.6, agreement_pairs=10, median_seconds=30.0
    )
    assert quality.outlier_flags(fine, median_agreement=0.7) == []


def test_quality_rows_hold_agreement_time_practice_and_counts():
    campaign, (first, second) = campaign_with(practice_items=PRACTICE_RECORDS[1:], practice_pass_mark=1.0)
    for person in (first, second):
        answer_practice(campaign.memberships.get(annotator=person), campaign.practice_items.get(), {"us": "left"})
    judge_everything(first, campaign, "left")
    judge_everything(second, campaign, "left")
    rows = {row.username: row for row in quality.campaign_quality(campaign)}
    for person in (first, second):
        row = rows[person.username]
        assert row.judgements == Judgement.objects.filter(assignment__annotator=person).count() > 0
        assert row.median_seconds == 40.0 and row.practice_correct == row.practice_total == 1
        assert row.agreement is not None and row.agreement_pairs > 0


# --- Comments -----------------------------------------------------------------------------------


def test_a_comment_is_saved_with_the_choices_and_a_long_one_is_refused():
    campaign, (first, _) = make_campaign(annotators=2)
    assignment = next_assignment(first, campaign)
    judge_with = Assignment.objects.select_related("item__campaign").get(pk=assignment.pk)
    save_judgements(judge_with, {"ts": "left"}, expected_version=0, seconds=1, comment="  <b>odd</b> pair ")
    judge_with.refresh_from_db()
    assert judge_with.comment == "<b>odd</b> pair" and judge_with.version == 1
    # The same choices with a new comment: a change of its own.
    save_judgements(judge_with, {"ts": "left"}, expected_version=1, seconds=1, comment="fine")
    judge_with.refresh_from_db()
    assert judge_with.comment == "fine" and judge_with.version == 2
    with pytest.raises(InvalidJudgement, match="at most 2,000"):
        save_judgements(judge_with, {"ts": "left"}, expected_version=2, seconds=1, comment="x" * 2001)


# --- Exports ------------------------------------------------------------------------------------


def test_exports_carry_attention_results_comments_and_exclusions(admin_user):
    campaign, (first, second) = campaign_with(attention_share=0.2)
    judge_everything(first, campaign, "left")
    judge_everything(second, campaign, "right")
    Assignment.objects.filter(annotator=first).update(comment="=SUM(A1)")
    set_exclusion(campaign, second, excluded=True, changed_by=admin_user)
    records = list(exports.judgement_records(Campaign.objects.get(pk=campaign.pk)))
    for column in ("attention_check", "attention_aspect", "attention_passed", "comment", "annotator_excluded"):
        assert column in exports.COLUMNS
    checks = [record for record in records if record["attention_check"]]
    assert checks and all(record["system_a"] == record["system_b"] for record in checks)
    checked = [record for record in checks if record["aspect"] == record["attention_aspect"]]
    assert checked and all(isinstance(record["attention_passed"], bool) for record in checked)
    assert all(record["attention_passed"] is None for record in records if record not in checked)
    assert {record["annotator_excluded"] for record in records if record["annotator"] == second.username} == {True}
    assert {record["comment"] for record in records if record["annotator"] == first.username} == {"=SUM(A1)"}
    csv_text = "".join(exports.csv_lines(campaign))
    assert "'=SUM(A1)" in csv_text and "annotator_excluded" in csv_text.splitlines()[0]
    frame = exports.judgement_frame(campaign)
    assert {"attention_passed", "comment", "annotator_excluded"} <= set(frame.columns)


def test_an_export_with_attention_checks_imports_without_them(tmp_path):
    from annotation.imports import import_judgements

    campaign, people = campaign_with(attention_share=0.2)
    for person, side in zip(people, ("left", "right"), strict=True):
        judge_everything(person, campaign, side)
    path = tmp_path / "export.csv"
    path.write_text("".join(exports.csv_lines(campaign)), encoding="utf-8")
    imported = import_judgements(path, dataset_name=campaign.dataset.name, campaign_name="copy")
    real = Judgement.objects.filter(assignment__item__campaign=campaign, assignment__item__attention_worse="")
    assert imported.campaign.items.filter(attention_worse="").count() == imported.campaign.items.count()
    assert Judgement.objects.filter(assignment__item__campaign=imported.campaign).count() == real.count()
