import json
import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotation.models import Assignment, Campaign, Judgement
from demo.loader import DEFAULT_MANIFEST
from leaderboard.metric_battles import DEFAULT_MARGIN
from leaderboard.models import Snapshot
from scoring.models import Dataset, Output, System, Text
from scoring.models.runs import ScoringRun
from scoring.models.scores import SystemScore, TextScore

pytestmark = pytest.mark.django_db

MANIFEST = json.loads(DEFAULT_MANIFEST.read_text(encoding="utf-8"))
FIXTURES = DEFAULT_MANIFEST.parent


def load_demo(*args):
    out = StringIO()
    call_command("load_demo", *args, stdout=out)
    return out.getvalue()


def load_demo_json(*args):
    return json.loads(load_demo("--json", *args))


def load_demo_unscored(*args):
    """The data and accounts only: scoring is the business of tests/test_demo_study.py."""
    return load_demo_json("--no-scores", *args)


def dataset_records(entry):
    lines = (FIXTURES / entry["file"]).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def output_file(entry):
    return json.loads((FIXTURES / entry["file"]).read_text(encoding="utf-8"))


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


def test_every_dataset_of_the_manifest_is_imported_with_its_texts_and_gold():
    load_demo_unscored()
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
    load_demo_unscored()
    for entry in MANIFEST["datasets"]:
        snapshot = Snapshot.objects.get(dataset__name=entry["name"], newest=True, margin=DEFAULT_MARGIN)
        assert snapshot.summary["verdict"]["text"]


def test_every_output_file_gives_its_system_one_output_per_text():
    summary = load_demo_unscored()
    reported = {(item["dataset"], item["system"]): item for item in summary["outputs"]}
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
    load_demo_unscored()
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
    load_demo_unscored()

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
    load_demo_unscored()
    markup = ["the World Wide Web", "publishes pages marked up with tags such as", "<b>bold</b> & <script>"]
    outputs = Output.objects.filter(system__name="OpenIE-Verbose-7B", text__external_id="s10")
    assert markup in outputs.get().triples


def test_a_second_run_changes_nothing_and_says_so():
    first = load_demo_json()
    before = database_state()
    second = load_demo_json()
    assert not first["unchanged"]
    assert second["unchanged"]
    sections = ("datasets", "outputs", "judgements", "campaigns", "scoring")
    assert all(item["unchanged"] for section in sections for item in second[section])
    assert all(second[section] for section in sections)
    assert database_state() == before
    assert "Demo data already loaded: nothing changed." in load_demo()
    assert database_state() == before


def test_demo_accounts_have_the_right_permissions_and_printed_passwords():
    output = load_demo("--no-scores")
    passwords = dict(re.findall(r"^\s+(\S+)\s+password (\S+)", output, flags=re.MULTILINE))
    assert sorted(passwords) == ["admin", "annotator1", "annotator2", "researcher"]
    users = {user.username: user for user in get_user_model().objects.all()}
    assert users["admin"].is_superuser and users["admin"].is_staff
    for name in ("annotator1", "annotator2", "researcher"):
        assert users[name].is_active and not users[name].is_staff and not users[name].is_superuser
    # The researcher reads outputs and leaderboards; annotators judge blind and may not.
    assert users["researcher"].has_perm("scoring.view_output")
    assert not users["annotator1"].has_perm("scoring.view_output")
    for name, password in passwords.items():
        assert users[name].check_password(password)
    assert len(set(passwords.values())) == 4


def test_each_step_is_announced_on_stderr_while_stdout_stays_the_json_answer():
    out, err = StringIO(), StringIO()
    call_command("load_demo", "--json", "--no-scores", stdout=out, stderr=err)
    assert json.loads(out.getvalue())["accounts"]
    steps = err.getvalue().splitlines()
    assert steps[0] == "Demo accounts: admin, annotator1, annotator2, researcher"
    datasets, outputs = len(MANIFEST["datasets"]), len(MANIFEST["outputs"])
    assert steps[1].startswith(f"Importing {datasets} datasets and {outputs} output files")
    assert any(step.startswith("Building the leaderboards of ") for step in steps)


def test_later_runs_keep_passwords_unless_asked_to_reset_them():
    first = {account["username"]: account for account in load_demo_unscored()["accounts"]}
    again = load_demo_unscored()["accounts"]
    assert all(account["password"] is None and not account["created"] for account in again)
    admin = get_user_model().objects.get(username="admin")
    assert admin.check_password(first["admin"]["password"])

    reset = {account["username"]: account for account in load_demo_unscored("--reset-passwords")["accounts"]}
    admin.refresh_from_db()
    assert reset["admin"]["password"] != first["admin"]["password"]
    assert admin.check_password(reset["admin"]["password"])
    assert not admin.check_password(first["admin"]["password"])


def test_an_existing_account_is_not_given_new_rights():
    get_user_model().objects.create_user("annotator1", password="chosen-by-someone-else-42")
    accounts = {account["username"]: account for account in load_demo_unscored()["accounts"]}
    assert accounts["annotator1"] == {"username": "annotator1", "role": "annotator", "created": False, "password": None}
    assert get_user_model().objects.get(username="annotator1").check_password("chosen-by-someone-else-42")


def write_manifest(tmp_path, outputs_file_content, **sections):
    record = {"id": "t1", "text": "Oslo is the capital of Norway.", "triples": [["Oslo", "capital of", "Norway"]]}
    (tmp_path / "data.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    (tmp_path / "outputs.json").write_text(json.dumps(outputs_file_content), encoding="utf-8")
    manifest = {
        "datasets": [{"file": "data.jsonl", "name": "tiny", "level": "sentence", "domain": "general"}],
        "outputs": [{"file": "outputs.json", "dataset": "tiny", "system": "Tiny-System", "format": "triples"}],
        **sections,
    }
    (tmp_path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return str(tmp_path / "manifest.json")


def test_a_refused_file_names_the_file_and_reason_and_changes_nothing(tmp_path):
    manifest = write_manifest(tmp_path, {"Bergen is on the west coast.": [["Bergen", "located on", "west coast"]]})
    with pytest.raises(CommandError) as refusal:
        load_demo("--manifest", manifest)
    assert "outputs.json" in str(refusal.value)
    assert "Bergen is on the west coast" in str(refusal.value)
    assert "is not in dataset" in str(refusal.value)
    # The dataset imported before the bad file is rolled back with it, and so are the accounts.
    assert not Dataset.objects.exists()
    assert not Output.objects.exists()
    assert not get_user_model().objects.exists()


def test_a_valid_custom_manifest_loads(tmp_path):
    manifest = write_manifest(tmp_path, {"Oslo is the capital of Norway.": [["Oslo", "capital of", "Norway"]]})
    summary = load_demo_json("--manifest", manifest)
    assert [item["name"] for item in summary["datasets"]] == ["tiny"]
    assert Output.objects.get(system__name="Tiny-System").triples == [["Oslo", "capital of", "Norway"]]


TINY_OUTPUT = {"Oslo is the capital of Norway.": [["Oslo", "is capital of", "Norway"]]}
JUDGEMENTS_HEADER = "text,system_a,system_b,aspect,annotator,winner\n"


def write_judgements(tmp_path, rows):
    (tmp_path / "judgements.csv").write_text(JUDGEMENTS_HEADER + "".join(rows), encoding="utf-8")
    return [{"file": "judgements.csv", "dataset": "tiny", "campaign": "tiny study"}]


def test_a_custom_manifest_with_a_study_a_campaign_and_scoring_loads(tmp_path):
    judgements = write_judgements(
        tmp_path, [f"t1,Tiny-System,Ground truth,{aspect},rater-one,b\n" for aspect in ("ts", "us", "fs", "gs", "cs")]
    )
    campaign = {
        "name": "tiny trial",
        "dataset": "tiny",
        "systems": ["Tiny-System", "Ground truth"],
        "annotators": ["annotator1"],
        "texts": 1,
        "overlap": 0,
    }
    scoring = [{"dataset": "tiny", "settings": {"embedder": "hashing", "judge": "heuristic"}}]
    manifest = write_manifest(tmp_path, TINY_OUTPUT, judgements=judgements, campaigns=[campaign], scoring=scoring)
    summary = load_demo_json("--manifest", manifest)
    assert [(item["campaign"], item["judgements"], item["items"]) for item in summary["judgements"]] == [
        ("tiny study", 5, 1)
    ]
    assert [(item["name"], item["items"], item["annotators"]) for item in summary["campaigns"]] == [
        ("tiny trial", 1, ["annotator1"])
    ]
    assert [(item["dataset"], item["systems"], item["status"]) for item in summary["scoring"]] == [("tiny", 2, "done")]
    assert load_demo_json("--manifest", manifest)["unchanged"]


def test_a_bad_judgement_row_names_the_line_and_rolls_everything_back(tmp_path):
    judgements = write_judgements(
        tmp_path, ["t1,Tiny-System,Ground truth,fs,rater-one,b\n", "t1,Nobody,Tiny-System,fs,rater-one,a\n"]
    )
    manifest = write_manifest(tmp_path, TINY_OUTPUT, judgements=judgements)
    with pytest.raises(CommandError) as refusal:
        load_demo("--manifest", manifest)
    assert "judgements.csv" in str(refusal.value)
    assert "line 3: unknown system 'Nobody' in system_a" in str(refusal.value)
    assert not Dataset.objects.exists()
    assert not Campaign.objects.exists()
    assert not get_user_model().objects.exists()


def test_a_campaign_name_taken_by_an_imported_study_is_refused(tmp_path):
    judgements = write_judgements(tmp_path, ["t1,Tiny-System,Ground truth,fs,rater-one,b\n"])
    campaign = {
        "name": "tiny study",
        "dataset": "tiny",
        "systems": ["Tiny-System", "Ground truth"],
        "annotators": ["annotator1"],
        "texts": 1,
        "overlap": 0,
    }
    manifest = write_manifest(tmp_path, TINY_OUTPUT, judgements=judgements, campaigns=[campaign])
    with pytest.raises(CommandError, match="campaign tiny study: a campaign of that name exists already, imported"):
        load_demo("--manifest", manifest)
    assert not Campaign.objects.exists()


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ({"datasets": []}, 'expected an object with the lists "datasets" and "outputs"'),
        ({"datasets": [], "outputs": [], "campaigns": {}}, '"campaigns" must be a list'),
        (
            {"datasets": [], "outputs": [], "judgements": [{"file": "manifest.json", "dataset": "x", "campaign": "c"}]},
            'judgements entry 1: dataset "x" is not among the manifest\'s datasets',
        ),
        (
            {
                "datasets": [{"file": "manifest.json", "name": "x"}],
                "outputs": [{"file": "manifest.json", "dataset": "x", "system": "S"}],
                "campaigns": [{"name": "c", "dataset": "x", "systems": ["S", "T"], "annotators": ["annotator1"]}],
            },
            "campaigns entry 1: no outputs on x for system(s) T",
        ),
        (
            {
                "datasets": [{"file": "manifest.json", "name": "x"}],
                "outputs": [{"file": "manifest.json", "dataset": "x", "system": "S"}],
                "campaigns": [{"name": "c", "dataset": "x", "systems": ["S", "Ground truth"], "annotators": ["ana"]}],
            },
            "campaigns entry 1: ana is not a demo annotator account",
        ),
        (
            {
                "datasets": [{"file": "manifest.json", "name": "x"}],
                "outputs": [{"file": "manifest.json", "dataset": "x", "system": "S"}],
                "campaigns": [
                    {"name": "c", "dataset": "x", "systems": ["S", "Ground truth"], "annotators": ["annotator1"]}
                ],
            },
            'campaigns entry 1: "texts" must be a number of texts to sample',
        ),
        (
            {
                "datasets": [{"file": "manifest.json", "name": "x"}],
                "outputs": [],
                "scoring": [{"dataset": "x", "settings": {"embedder": "word2vec"}}],
            },
            'scoring entry 1: unknown embedder "word2vec"',
        ),
        (
            {
                "datasets": [{"file": "manifest.json", "name": "x"}],
                "outputs": [],
                "scoring": [{"dataset": "x", "settings": {"threshold": 2}}],
            },
            "scoring entry 1: threshold is a cosine, between -1 and 1, not 2",
        ),
        ({"datasets": [{"file": "missing.jsonl", "name": "x"}], "outputs": []}, "datasets entry 1: there is no file"),
        ({"datasets": [{"name": "x"}], "outputs": []}, "datasets entry 1: missing file"),
        (
            {"datasets": [], "outputs": [{"file": "manifest.json", "dataset": "nowhere", "system": "S"}]},
            'outputs entry 1: dataset "nowhere" is not among the manifest\'s datasets',
        ),
        (
            {"datasets": [{"file": "manifest.json", "name": "x", "format": "csv"}], "outputs": []},
            'datasets entry 1: unknown format "csv"',
        ),
    ],
)
def test_a_broken_manifest_is_refused_before_anything_is_imported(tmp_path, manifest, message):
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(CommandError, match=re.escape(message)):
        load_demo("--manifest", str(path))
    assert not get_user_model().objects.exists()
    assert not Dataset.objects.exists()
