"""Creating a triple-check campaign, labelling its triples, and the judges measured against the labels."""

import pytest
from django.contrib.auth.models import User

from annotation.access import blind_dataset_ids
from annotation.services.errors import CampaignError, InvalidJudgement
from annotation.triple_checks.adjudication import adjudicate
from annotation.triple_checks.models import TripleCheck, TripleLabel
from annotation.triple_checks.queries import annotator_progress, judge_report
from annotation.triple_checks.services import create_triple_check, next_label, save_label
from scoring.models import Output, System, Text
from tests.annotation.triple_check_fixtures import TRIPLES

pytestmark = pytest.mark.django_db


def label_all(campaign, facts_of_third=2):
    """Both annotators answer the truth: the second triple unsupported, the third two facts."""
    for label in TripleLabel.objects.filter(item__campaign=campaign).select_related("item"):
        index = label.item.index
        save_label(label, "no" if index == 1 else "yes", str(facts_of_third if index == 2 else 1), "4.5")


def test_sample_is_stratified_by_system_and_verdict(triple_check):
    items = list(triple_check.items.select_related("output__system"))
    strata = {(item.output.system.name, item.stratum_supported) for item in items}
    assert strata == {(name, verdict) for name in ("sys-one", "sys-two") for verdict in (True, False)}
    # Each system has 4 unsupported and 8 supported triples: 2 of each drawn, weighted 2 and 4.
    assert sorted({(item.stratum_supported, item.weight) for item in items}) == [(False, 2.0), (True, 4.0)]
    assert all(item.triple == TRIPLES[item.index] for item in items)


def test_overlap_gives_every_triple_to_both_annotators(triple_check):
    labels = TripleLabel.objects.filter(item__campaign=triple_check)
    assert labels.count() == 2 * triple_check.items.count()
    assert {label.annotator.username for label in labels} == {"checker1", "checker2"}


def test_queue_serves_the_next_unanswered_triple(triple_check):
    annotator = triple_check.annotators.get(username="checker1")
    first = next_label(annotator, triple_check.pk)
    save_label(first, "yes", "1")
    assert next_label(annotator, triple_check.pk).queue_position == first.queue_position + 1


def test_save_refuses_incomplete_answers(triple_check):
    label = TripleLabel.objects.filter(item__campaign=triple_check).first()
    with pytest.raises(InvalidJudgement, match="supports"):
        save_label(label, "", "1")
    with pytest.raises(InvalidJudgement, match="1 to 5"):
        save_label(label, "yes", "9")


def test_report_ranks_the_judge_that_agrees_with_humans_first(triple_check):
    label_all(triple_check)
    report = judge_report(triple_check.dataset, rounds=50)
    assert (report["triples"], report["gold"], report["labels"]) == (8, 8, 16)
    assert report["agreement"]["fs"]["kappa"] == pytest.approx(1.0)
    careful, careless = report["judges"]
    assert careful["judge"].startswith("careful") and careless["judge"].startswith("careless")
    assert careful["accuracy"]["value"] == pytest.approx(1.0)
    assert careful["recall"]["value"] == pytest.approx(1.0)
    # Neither judge splits: each two-fact triple is one fact off, weighted as its stratum.
    items = list(triple_check.items.all())
    off = sum(item.weight for item in items if item.index == 2) / sum(item.weight for item in items)
    assert careful["mae"]["value"] == pytest.approx(off)
    assert careless["accuracy"]["value"] < 1.0
    # The careless judge calls the truly unsupported triples supported: FS biased upward.
    fs = careless["systems"]["sys-one"]["fs"]
    assert fs["bias"]["value"] == pytest.approx(fs["judge"]["value"] - fs["human"]["value"])
    assert fs["bias"]["value"] > 0
    (paired,) = report["paired"]
    wins = {paired["first"]: paired["first_only"], paired["second"]: paired["second_only"]}
    assert wins[careful["judge"]] > 0 and wins[careless["judge"]] == 0


def test_refuses_readers_as_annotators_bad_names_a_lone_overlap_and_the_ground_truth(triple_check, admin_user):
    systems = list(triple_check.systems.all())
    with pytest.raises(CampaignError, match="cannot judge systems blind"):
        create_triple_check("other", triple_check.dataset, systems, [admin_user])
    annotators = list(triple_check.annotators.all())
    with pytest.raises(CampaignError, match="Use letters"):
        create_triple_check("/bad name", triple_check.dataset, systems, annotators)
    with pytest.raises(CampaignError, match="at least two annotators"):
        create_triple_check("other", triple_check.dataset, systems, annotators[:1], overlap_share=0.5)
    with pytest.raises(CampaignError, match="ground truth"):
        create_triple_check("other", triple_check.dataset, [*systems, System.ground_truth()], annotators)


def test_an_even_split_waits_for_adjudication(triple_check):
    item = triple_check.items.first()
    first, second = item.labels.all()
    save_label(first, "yes", "1")
    save_label(second, "no", "1")
    report = judge_report(triple_check.dataset, rounds=10)
    assert (report["gold"], report["awaiting_adjudication"]) == (0, 1)
    adjudicate(item, supported=False, facts=1, adjudicated_by=User.objects.create_user("lead", is_staff=True))
    report = judge_report(triple_check.dataset, rounds=10)
    assert (report["gold"], report["adjudicated"], report["awaiting_adjudication"]) == (1, 1, 0)


def test_its_annotators_are_blind_to_the_dataset_while_it_is_open(triple_check):
    annotator = triple_check.annotators.first()
    assert triple_check.dataset_id in blind_dataset_ids(annotator)
    TripleCheck.objects.filter(pk=triple_check.pk).update(is_open=False)
    assert triple_check.dataset_id not in blind_dataset_ids(annotator)


def test_attention_checks_are_planted_with_their_text_and_left_out_of_the_figures(triple_check):
    systems, annotators = list(triple_check.systems.all()), list(triple_check.annotators.all())
    # Every text of the fixture says the same: the first is made another, so that checks can be planted.
    Text.objects.filter(dataset=triple_check.dataset, position=0).update(content="Zeno of Elea taught Parmenides.")
    zeno = [["Zeno", "taught", "Parmenides"], ["Zeno", "was born in", "Elea"], ["Zeno", "wrote", "paradoxes"]]
    Output.objects.filter(text__dataset=triple_check.dataset, text__position=0).update(triples=zeno)
    campaign = create_triple_check(
        "checked-attention", triple_check.dataset, systems, annotators, judge_setting="right-judge",
        per_stratum=2, overlap_share=1.0, attention_share=0.2, seed=5,
    )  # fmt: skip
    checks = list(campaign.items.filter(attention=True).select_related("text"))
    assert len(checks) == 2  # a fifth of the 8 sampled triples, rounded
    for check in checks:
        assert check.triple[0] not in check.text.content and check.triple[2] not in check.text.content
        # Queued beside the triples of its text, for both annotators.
        assert check.labels.count() == 2
    for label in TripleLabel.objects.filter(item__campaign=campaign).select_related("item"):
        save_label(label, "no" if label.item.attention or label.item.index == 1 else "yes", "1")
    report = judge_report(triple_check.dataset, [campaign], rounds=10)
    assert report["triples"] == 8 and report["gold"] == 8
    progress = annotator_progress(campaign)
    assert [(row["checks"], row["passed"]) for row in progress] == [(2, 2), (2, 2)]


def test_a_judge_setting_must_have_run_on_the_dataset(triple_check):
    systems, annotators = list(triple_check.systems.all()), list(triple_check.annotators.all())
    with pytest.raises(CampaignError, match="No finished scoring run on checked"):
        create_triple_check("other", triple_check.dataset, systems, annotators, judge_setting="elsewhere")


def test_a_verdict_counts_only_while_the_output_holds_the_labelled_triple(triple_check):
    label_all(triple_check)
    item = triple_check.items.select_related("output").first()
    changed = [list(triple) for triple in item.output.triples]
    changed[item.index] = ["Ada", "met", "Faraday"]
    Output.objects.filter(pk=item.output_id).update(triples=changed)
    careful = next(
        judge for judge in judge_report(triple_check.dataset, rounds=10)["judges"] if "careful" in judge["judge"]
    )
    assert careful["triples"] == triple_check.items.count() - 1
