"""What the default demo holds once ``load_demo --no-scores`` has run: loaded once for this module
(``unscored_demo``), each test's changes rolled back after it."""

import json

import pytest
from django.contrib.auth import get_user_model

from annotation.models import Campaign
from demo.loader import DEFAULT_MANIFEST
from leaderboard.metric_battles import DEFAULT_MARGIN
from leaderboard.models import Snapshot
from scoring.models import Dataset, Output, System, Text
from scoring.models.runs import ScoringRun
from tests.conftest import load_demo_summary

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("unscored_demo")]

MANIFEST = json.loads(DEFAULT_MANIFEST.read_text(encoding="utf-8"))
FIXTURES = DEFAULT_MANIFEST.parent


def dataset_records(entry):
    lines = (FIXTURES / entry["file"]).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def output_file(entry):
    return json.loads((FIXTURES / entry["file"]).read_text(encoding="utf-8"))


def test_every_dataset_of_the_manifest_is_imported_with_its_texts_and_gold():
    for entry in MANIFEST["datasets"]:
        records = dataset_records(entry)
        dataset = Dataset.objects.get(name=entry["name"])
        assert (dataset.level, dataset.domain) == (entry["level"], entry["domain"])
        assert dataset.description == entry["description"]
        texts = {text.external_id: text for text in dataset.texts.all()}
        assert sorted(texts) == sorted(record["id"] for record in records)
        for record in records:
            assert texts[record["id"]].content == record["text"]
            assert texts[record["id"]].gold == record["triples"]
        ground_truth = Output.objects.filter(system=System.ground_truth(), text__dataset=dataset)
        assert ground_truth.count() == len(records)


def test_every_dataset_leaves_a_built_leaderboard():
    for entry in MANIFEST["datasets"]:
        snapshot = Snapshot.objects.get(dataset__name=entry["name"], newest=True, margin=DEFAULT_MARGIN)
        assert snapshot.summary["verdict"]["text"]


def test_every_output_file_gives_its_system_one_output_per_text(unscored_demo):
    reported = {(item["dataset"], item["system"]): item for item in unscored_demo["outputs"]}
    for entry in MANIFEST["outputs"]:
        system = System.objects.get(name=entry["system"])
        assert system.family == entry["family"]
        outputs = Output.objects.filter(system=system, text__dataset__name=entry["dataset"]).select_related("text")
        assert sorted(output.text.content for output in outputs) == sorted(output_file(entry))
        stored_triples = sum(len(output.triples) for output in outputs)
        assert reported[(entry["dataset"], entry["system"])]["triples"] == stored_triples
        if entry["format"] == "triples":
            by_text = {output.text.content: output.triples for output in outputs}
            assert by_text == output_file(entry)


def test_raw_generation_files_give_triples_and_parse_warnings():
    raw_entries = [entry for entry in MANIFEST["outputs"] if entry["format"] == "raw"]
    assert len({entry["system"] for entry in raw_entries}) >= 2
    for entry in raw_entries:
        outputs = list(Output.objects.filter(system__name=entry["system"], text__dataset__name=entry["dataset"]))
        replies = output_file(entry)
        assert all(output.raw == replies[output.text.content] for output in outputs)
        with_triples = [output for output in outputs if output.triples]
        with_warnings = [output for output in outputs if output.parse_warnings]
        # Most replies parse; a few are broken on purpose and say why.
        assert len(with_triples) >= 0.9 * len(outputs), entry["file"]
        assert with_warnings, entry["file"]
    warnings = [warning for output in Output.objects.exclude(raw="") for warning in output.parse_warnings]
    assert any(warning.startswith("unterminated list") for warning in warnings)
    assert any("got 2" in warning for warning in warnings)


def test_systems_behave_differently():

    def triples_per_output(name):
        outputs = Output.objects.filter(system__name=name)
        return sum(len(output.triples) for output in outputs) / outputs.count()

    def duplicated_outputs(name):
        return sum(
            len({tuple(triple) for triple in output.triples}) < len(output.triples)
            for output in Output.objects.filter(system__name=name)
        )

    assert triples_per_output("OpenIE-Verbose-7B") > 2 * triples_per_output("ClosedIE-T5")
    assert duplicated_outputs("OpenIE-Verbose-7B") > 20
    assert duplicated_outputs("ClosedIE-T5") == 0
    assert Output.objects.filter(system__name="ClosedIE-T5", triples=[]).exists()
    gold_texts = {text.pk: {tuple(triple) for triple in text.gold} for text in Text.objects.all()}
    unsupported = sum(
        len({tuple(triple) for triple in output.triples} - gold_texts[output.text_id])
        for output in Output.objects.filter(system__name="GPT-Fabulist-3.5")
    )
    assert unsupported >= Text.objects.count()


def test_model_markup_is_stored_verbatim():
    markup = ["the World Wide Web", "publishes pages marked up with tags such as", "<b>bold</b> & <script>"]
    outputs = Output.objects.filter(system__name="OpenIE-Verbose-7B", text__external_id="s10")
    assert markup in outputs.get().triples


def test_later_runs_keep_passwords_unless_asked_to_reset_them(unscored_demo):
    first = {account["username"]: account for account in unscored_demo["accounts"]}
    again = load_demo_summary("--no-scores")["accounts"]
    assert all(account["password"] is None and not account["created"] for account in again)
    admin = get_user_model().objects.get(username="admin")
    assert admin.check_password(first["admin"]["password"])

    reset = {
        account["username"]: account for account in load_demo_summary("--no-scores", "--reset-passwords")["accounts"]
    }
    admin.refresh_from_db()
    assert reset["admin"]["password"] != first["admin"]["password"]
    assert admin.check_password(reset["admin"]["password"])
    assert not admin.check_password(first["admin"]["password"])


def test_no_scores_loads_the_rest_and_a_later_run_scores(unscored_demo):
    first = unscored_demo
    assert first["scoring"] == [] and not ScoringRun.objects.exists()
    assert Campaign.objects.count() == len(MANIFEST["judgements"]) + len(MANIFEST["campaigns"])
    second = load_demo_summary()
    assert [item["unchanged"] for item in second["scoring"]] == [False] * len(MANIFEST["scoring"])
    assert ScoringRun.objects.filter(status=ScoringRun.Status.DONE).count() == len(MANIFEST["scoring"])
