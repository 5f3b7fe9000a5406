"""import_dataset and import_outputs show a progress bar per stage (on a terminal; never with --no-progress)."""

import io
import json

import pytest
from django.core.management import call_command

from scoring.management.commands.import_dataset import ProgressBars

pytestmark = pytest.mark.django_db


def test_one_bar_per_stage_that_ends_at_its_total(capsys):
    bars = ProgressBars("big.jsonl", disable=False)
    calls = [("reading", 500, 1000), ("reading", 1000, 1000), ("storing", 5000, 8000), ("storing", 8000, 8000)]
    for stage, done, total in calls:
        bars(stage, done, total)
    bars.close()
    shown = capsys.readouterr().err
    assert "big.jsonl: reading: 100%" in shown and "1.00k/1.00k" in shown
    assert "big.jsonl: storing: 100%" in shown and "8.00k/8.00k" in shown


def test_no_progress_leaves_standard_error_clean(tmp_path, capsys):
    path = tmp_path / "people.jsonl"
    path.write_text(json.dumps({"id": "a", "text": "A text.", "triples": []}), encoding="utf-8")
    out = io.StringIO()
    call_command("import_dataset", str(path), "--name", "People", "--no-progress", stdout=out)
    assert "Imported dataset" in out.getvalue()
    assert capsys.readouterr().err == ""
