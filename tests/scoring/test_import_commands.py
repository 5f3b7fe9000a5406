"""The import_dataset and import_outputs commands: summaries, --json, errors and exit codes."""

import json
import os
import shutil
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from scoring.models import Dataset, Output
from tests.scoring.import_fixtures import DATASET_JSONL, TURING, snapshot

pytestmark = pytest.mark.django_db

MANAGE_PY = Path(__file__).resolve().parents[2] / "manage.py"


@pytest.fixture
def dataset_file(tmp_path):
    path = tmp_path / "people.jsonl"
    path.write_bytes(DATASET_JSONL)
    return path


def run(*arguments):
    stdout = StringIO()
    call_command(*arguments, stdout=stdout)
    return stdout.getvalue()


def test_import_dataset_prints_a_summary(dataset_file):
    output = run("import_dataset", str(dataset_file), "--name", "People", "--level", "bag", "--domain", "other")

    assert output == 'Imported dataset "People": 3 texts, 2 gold triples (2 with gold triples).\n'
    assert Dataset.objects.filter(name="People", level="bag", domain="other").exists()


def test_import_dataset_json_output_is_one_object(dataset_file):
    output = run("import_dataset", str(dataset_file), "--name", "People", "--format", "jsonl", "--json")

    summary = json.loads(output)
    assert {key: summary[key] for key in ("texts", "triples", "warnings", "unchanged")} == {
        "texts": 3,
        "triples": 2,
        "warnings": 0,
        "unchanged": False,
    }
    assert isinstance(summary["upload"], int)


def test_import_dataset_twice_reports_unchanged(dataset_file):
    run("import_dataset", str(dataset_file), "--name", "People")

    summary = json.loads(run("import_dataset", str(dataset_file), "--name", "People", "--json"))

    assert summary["unchanged"] is True


def test_import_outputs_lists_the_first_warnings_and_counts_the_rest(dataset_file, tmp_path):
    run("import_dataset", str(dataset_file), "--name", "People")
    reply = " ".join(f'["Turing", "item {number}"]' for number in range(7)) + ' ["Turing", "born in", "London"]'
    outputs = tmp_path / "raw.json"
    outputs.write_text(json.dumps({TURING: reply}))

    lines = run(
        "import_outputs", str(outputs), "--dataset", "People", "--system", "LLaMA-2", "--family", "LLaMA"
    ).splitlines()

    assert lines[0] == (
        'Imported 1 output of "LLaMA-2" on dataset "People": 1 triple, 7 parse warnings; 0 earlier outputs replaced.'
    )
    assert lines[1:6] == [
        f'  - record 1 ("Alan Turing was born in London."): dropped ["Turing", "item {number}"]: '
        "expected 3 items (subject, relation, object), got 2"
        for number in range(5)
    ]
    assert lines[6:] == ["  … and 2 more warnings"]


def test_import_outputs_lenient_json(dataset_file, tmp_path):
    run("import_dataset", str(dataset_file), "--name", "People")
    outputs = tmp_path / "outputs.csv"
    outputs.write_text("text_id,subject,relation,object\nt1,Turing,born in,London\nt2,Hopper,,COBOL\n")

    with pytest.raises(CommandError, match=r'Line 3 \(text_id "t2"\): relation is empty'):
        run("import_outputs", str(outputs), "--dataset", "People", "--system", "GPT-4")
    summary = json.loads(
        run(
            "import_outputs",
            str(outputs),
            "--dataset",
            "People",
            "--system",
            "GPT-4",
            "--format",
            "csv",
            "--lenient",
            "--json",
        )
    )

    assert (summary["texts"], summary["triples"], summary["warnings"]) == (2, 1, 1)
    assert Output.objects.get(system__name="GPT-4", text__external_id="t2").parse_warnings == [
        "line 3: triple dropped: relation is empty"
    ]


def test_a_refused_import_raises_command_error_and_changes_nothing(dataset_file, tmp_path):
    run("import_dataset", str(dataset_file), "--name", "People")
    before = snapshot()
    outputs = tmp_path / "outputs.json"
    outputs.write_text(json.dumps({"A text the dataset does not have.": []}))

    with pytest.raises(CommandError) as error:
        run("import_outputs", str(outputs), "--dataset", "People", "--system", "GPT-4", "--json")

    assert str(error.value) == (
        'outputs.json: Record 1 ("A text the dataset does not have."): the text "A text the dataset does not have." '
        'is not in dataset "People"; nothing was imported.'
    )
    assert snapshot() == before


def test_a_missing_file_is_a_command_error(tmp_path):
    with pytest.raises(CommandError, match=r"cannot read .*nowhere\.json: No such file or directory"):
        run("import_dataset", str(tmp_path / "nowhere.json"), "--name", "People")


def manage(*arguments, var_dir):
    environment = {
        **os.environ,
        "GENRES_VAR_DIR": str(var_dir),
        "DATABASE_URL": f"sqlite:///{var_dir / 'commands.sqlite3'}",
    }
    return subprocess.run(
        [sys.executable, str(MANAGE_PY), *arguments],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )


@pytest.mark.subprocess
def test_manage_py_exit_codes_and_output(dataset_file, tmp_path, migrated_file):
    var_dir = tmp_path / "var"
    var_dir.mkdir()
    shutil.copyfile(migrated_file, var_dir / "commands.sqlite3")
    bad = tmp_path / "bad.json"
    bad.write_text('{"A text.": [["only", "two"]]}')

    refused = manage("import_dataset", str(bad), "--name", "Bad", "--json", var_dir=var_dir)
    imported = manage("import_dataset", str(dataset_file), "--name", "People", "--json", var_dir=var_dir)

    assert refused.returncode == 1
    assert refused.stdout == ""
    assert 'Record 1 ("A text."), triple 1: expected 3 items (subject, relation, object), got 2' in refused.stderr
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["texts"] == 3
