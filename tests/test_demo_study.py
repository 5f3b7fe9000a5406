"""The demo's simulated human study, annotator campaign and scores, as ``load_demo`` loads them.

The tests read the one demo loaded for this module (``scored_demo``); what a test changes is
rolled back after it."""

import csv
import json
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from annotation.models import ASPECTS, Assignment, Campaign, Judgement
from annotation.services.quality_control import practice_required
from annotation.services.queues import next_assignment
from annotation.triple_checks.models import TripleCheck, TripleLabel
from demo.loader import DEFAULT_MANIFEST
from fixtures import simulate_judgements
from leaderboard.metric_battles import DEFAULT_MARGIN
from leaderboard.models import Snapshot
from scoring.models import Dataset, Output, System, Text
from scoring.models.runs import ScoringRun, latest_system_scores
from scoring.models.scores import SystemScore, TextScore

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

MANIFEST = json.loads(DEFAULT_MANIFEST.read_text(encoding="utf-8"))
FIXTURES = DEFAULT_MANIFEST.parent


def call(command, *args):
    out = StringIO()
    call_command(command, *args, stdout=out)
    return out.getvalue()


def csv_rows(entry):
    with (FIXTURES / entry["file"]).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_each_judgement_file_is_imported_as_a_closed_campaign_with_every_row(scored_demo):
    for entry in MANIFEST["judgements"]:
        check_imported_study(entry, {item["campaign"]: item for item in scored_demo["judgements"]}[entry["campaign"]])


def check_imported_study(entry, reported):
    rows = csv_rows(entry)
    campaign = Campaign.objects.get(name=entry["campaign"])
    assert campaign.is_imported and not campaign.is_open
    assert campaign.dataset.name == entry["dataset"]
    assert Judgement.objects.filter(assignment__item__campaign=campaign).count() == len(rows)
    pairs = {(row["text"], frozenset((row["system_a"], row["system_b"]))) for row in rows}
    assert campaign.items.count() == len(pairs)
    annotators = {row["annotator"] for row in rows}
    assert set(campaign.annotators.values_list("username", flat=True)) == annotators
    # The simulated raters are records of a study, not people who can sign in.
    assert not any(user.has_usable_password() for user in get_user_model().objects.filter(username__in=annotators))
    assert (reported["judgements"], reported["items"]) == (len(rows), len(pairs))


@pytest.mark.parametrize("entry", MANIFEST["judgements"], ids=lambda entry: entry["dataset"])
def test_the_study_judges_every_pair_and_aspect_with_half_the_texts_doubled(entry):
    rows = csv_rows(entry)
    systems = {output["system"] for output in MANIFEST["outputs"] if output["dataset"] == entry["dataset"]}
    systems.add(System.GROUND_TRUTH)
    pairs_per_text = len(systems) * (len(systems) - 1) // 2
    annotators_of_text = {}
    judged = {}
    for row in rows:
        annotators_of_text.setdefault(row["text"], set()).add(row["annotator"])
        key = (row["text"], row["annotator"])
        judged.setdefault(key, set()).add((frozenset((row["system_a"], row["system_b"])), row["aspect"]))
    assert all(len(judgements) == pairs_per_text * len(ASPECTS) for judgements in judged.values())
    assert {row["aspect"] for row in rows} == set(ASPECTS)
    assert len({row["annotator"] for row in rows}) == 3
    doubled = sum(len(names) == 2 for names in annotators_of_text.values())
    assert all(len(names) in (1, 2) for names in annotators_of_text.values())
    assert doubled == round(simulate_judgements.OVERLAP_SHARE * len(annotators_of_text))
    assert {row["winner"] for row in rows} == {"a", "b", "tie"}


def test_agreement_has_figures_for_every_aspect_without_being_perfect(scored_demo):
    for entry in MANIFEST["judgements"]:
        figures = json.loads(
            call("compute_agreement", "--dataset", entry["dataset"], "--campaign", entry["campaign"], "--json")
        )["aspects"]
        assert set(figures) == set(ASPECTS)
        for aspect, row in figures.items():
            where = (entry["dataset"], aspect)
            assert row["items"] > 0, where
            # Simulated annotators mostly agree, never perfectly, and better than chance.
            assert 0.6 < row["tie_discounted_accuracy"] < 1, where
            assert 0 < row["cohen_kappa"] < 1, where
            assert row["krippendorff_alpha"] is not None, where


def human_ranking(entry, aspect):
    ratings = json.loads(
        call(
            "compute_ratings",
            "--dataset",
            entry["dataset"],
            "--campaign",
            entry["campaign"],
            "--aspect",
            aspect,
            "--method",
            "bt",
            "--bootstrap",
            "20",
            "--json",
        )
    )["aspects"][aspect]
    return sorted(ratings, key=lambda system: ratings[system]["rating"], reverse=True)


def test_human_ratings_follow_what_each_system_does(scored_demo):
    for entry in MANIFEST["judgements"]:
        factualness = human_ranking(entry, "fs")
        assert factualness.index("GPT-Fabulist-3.5") > factualness.index("ClosedIE-T5"), entry["dataset"]
        assert factualness[-1] == "GPT-Fabulist-3.5", entry["dataset"]
        assert human_ranking(entry, "us")[-1] == "OpenIE-Verbose-7B", entry["dataset"]
        assert human_ranking(entry, "gs")[-1] == "Flan-Bundler-XL", entry["dataset"]
        completeness = human_ranking(entry, "cs")
        assert completeness.index("GPT-Fabulist-3.5") < completeness.index("ClosedIE-T5"), entry["dataset"]


def test_the_annotators_have_an_open_campaign_with_work_for_both(scored_demo):
    (entry,) = MANIFEST["campaigns"]
    campaign = Campaign.objects.get(name=entry["name"])
    assert campaign.is_open and not campaign.is_imported
    assert campaign.instructions == entry["instructions"]
    assert sorted(campaign.systems.values_list("name", flat=True)) == sorted(entry["systems"])
    assert campaign.texts.count() == entry["texts"]
    pairs = len(entry["systems"]) * (len(entry["systems"]) - 1) // 2
    assert campaign.items.filter(attention_worse="").count() == entry["texts"] * pairs
    # Every real item is still judged: a check takes the place of a pair another annotator judges too.
    assert campaign.items.exclude(attention_worse="").exists() == (entry.get("attention_percent", 0) > 0)
    for username in entry["annotators"]:
        annotator = get_user_model().objects.get(username=username)
        # The practice round comes first; once it is passed, the real items are there.
        assert practice_required(annotator, campaign.pk) == bool(entry.get("practice")), username
        campaign.memberships.filter(annotator=annotator).update(practice_passed_at=timezone.now())
        assert next_assignment(annotator, campaign) is not None, username
    # The overlap texts' items are in both queues, but for the pair each check took the place of in one.
    doubly_assigned = {
        item
        for item in Assignment.objects.filter(item__campaign=campaign).values_list("item_id", flat=True)
        if Assignment.objects.filter(item_id=item).count() == 2
    }
    checks = campaign.items.exclude(attention_worse="").count()
    assert len(doubly_assigned) + checks == round(entry["overlap"] * entry["texts"]) * pairs
    assert scored_demo["campaigns"][0]["items"] == campaign.items.filter(attention_worse="").count()


def test_every_system_has_current_scores_with_the_demo_settings(scored_demo):
    assert [item["dataset"] for item in scored_demo["scoring"]] == [entry["dataset"] for entry in MANIFEST["scoring"]]
    for entry in MANIFEST["scoring"]:
        check_scores(entry)


def check_scores(entry):
    run = ScoringRun.objects.get(dataset__name=entry["dataset"], status=ScoringRun.Status.DONE)
    assert run.provenance["embedder"] == entry["settings"]["embedder"]
    assert run.provenance["judge"] == entry["settings"]["judge"]
    systems = {output["system"] for output in MANIFEST["outputs"] if output["dataset"] == entry["dataset"]}
    systems.add(System.GROUND_TRUTH)
    scores = latest_system_scores(run.dataset, run.fingerprint)
    assert {row.system.name for row in scores} == systems
    assert all(row.is_current for row in scores)
    by_system = {row.system.name: row.values for row in scores}
    assert all(by_system[name][metric] is not None for name in systems for metric in ASPECTS)
    assert by_system["OpenIE-Verbose-7B"]["us"] < by_system[System.GROUND_TRUTH]["us"]


def test_committed_study_files_are_what_the_script_writes(tmp_path):
    written = simulate_judgements.write_study(tmp_path)
    assert sorted(path.name for path in written) == sorted(
        (FIXTURES / entry["file"]).name for entry in MANIFEST["judgements"]
    )
    for path in written:
        assert path.read_bytes() == (FIXTURES / "judgements" / path.name).read_bytes(), path.name


def test_scores_made_stale_by_a_new_upload_are_computed_again(scored_demo):
    stale, kept = (entry["dataset"] for entry in MANIFEST["scoring"])
    output = Output.objects.filter(text__dataset__name=stale).first()
    output.save()  # a new upload of an output moves its updated_at: its stored scores are no longer current
    before = {item["dataset"]: item["run"] for item in scored_demo["scoring"]}
    again = {item["dataset"]: item for item in json.loads(call("load_demo", "--json"))["scoring"]}
    assert not again[stale]["unchanged"]
    assert again[stale]["run"] != before[stale]
    assert again[kept]["unchanged"] and again[kept]["run"] == before[kept]


def database_state():
    return {
        "datasets": sorted(Dataset.objects.values_list("name", "level", "domain")),
        "texts": sorted(Text.objects.values_list("pk", "content_sha256")),
        "outputs": sorted(
            (output.system_id, output.text_id, json.dumps(output.triples), output.raw, output.upload_id)
            for output in Output.objects.all()
        ),
        "systems": sorted(System.objects.values_list("name", "family")),
        "users": sorted(get_user_model().objects.values_list("username", "password")),
        "campaigns": sorted(Campaign.objects.values_list("pk", "name", "is_imported", "is_open")),
        "assignments": sorted(Assignment.objects.values_list("pk", "item_id", "annotator_id", "queue_position")),
        "judgements": sorted(Judgement.objects.values_list("pk", "assignment_id", "aspect", "label")),
        "runs": sorted(ScoringRun.objects.values_list("pk", "status", "fingerprint", "finished_at")),
        "scores": sorted(TextScore.objects.values_list("pk", "run_id", "output_id", "metric")),
        "system_scores": sorted(SystemScore.objects.values_list("pk", "run_id", "system_id")),
    }


def test_a_second_run_changes_nothing_and_says_so(scored_demo):
    before = database_state()
    second = json.loads(call("load_demo", "--json"))
    assert not scored_demo["unchanged"]
    assert second["unchanged"]
    sections = ("datasets", "outputs", "judgements", "campaigns", "scoring")
    assert all(item["unchanged"] for section in sections for item in second[section])
    assert all(second[section] for section in sections)
    assert database_state() == before
    assert "Demo data already loaded: nothing changed." in call("load_demo")
    assert database_state() == before


def test_the_triple_check_has_simulated_labels_and_work_left_for_each_annotator(scored_demo):
    (entry,) = MANIFEST["triple_checks"]
    (reported,) = scored_demo["triple_checks"]
    campaign = TripleCheck.objects.get(name=entry["name"])
    # Stratified by the demo judge's verdicts: both verdicts of every system are present.
    strata = set(campaign.items.filter(attention=False).values_list("output__system__name", "stratum_supported"))
    assert {verdict for _, verdict in strata} == {True, False}
    assert {name for name, _ in strata} == set(entry["systems"])
    assert campaign.items.filter(attention=True).exists()
    for username in entry["annotators"]:
        pending = TripleLabel.objects.filter(item__campaign=campaign, annotator__username=username, saved_at=None)
        assert pending.count() == entry["left_for_annotators"]
    assert reported["simulated"] == reported["labels"] - len(entry["annotators"]) * entry["left_for_annotators"]
    snapshot = Snapshot.objects.get(dataset__name=entry["dataset"], newest=True, margin=DEFAULT_MARGIN)
    (judge,) = snapshot.data["triple_checks"]["judges"]
    assert judge["judge"].startswith("heuristic") and 0 < judge["kappa"]["value"] < 1
