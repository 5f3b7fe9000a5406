"""``load_demo`` on a database of its own each time: what it prints, custom manifests, and the
refusals that leave everything as it was. What the default demo holds once loaded is in
test_demo_contents.py, the scored demo in tests/test_demo_study.py."""

import json
import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotation.models import Campaign
from demo.loader import DEFAULT_MANIFEST
from scoring.models import Dataset, Output

pytestmark = pytest.mark.django_db

MANIFEST = json.loads(DEFAULT_MANIFEST.read_text(encoding="utf-8"))
FIXTURES = DEFAULT_MANIFEST.parent


def load_demo(*args):
    out = StringIO()
    call_command("load_demo", *args, stdout=out)
    return out.getvalue()


def load_demo_json(*args):
    return json.loads(load_demo("--json", *args))


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


def test_an_existing_account_is_not_given_new_rights():
    get_user_model().objects.create_user("annotator1", password="chosen-by-someone-else-42")
    accounts = {account["username"]: account for account in load_demo_json("--no-scores")["accounts"]}
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
