"""python manage.py score_outputs: queued or --sync, table or --json, on the hand-checked tiny dataset."""

import json

import pytest
from django.core.management import CommandError, call_command

from scoring.models.runs import ScoringRun
from tests.scoring.run_fixtures import ECHO_EXPECTED, GROUND_TRUTH_EXPECTED, tiny_dataset

pytestmark = pytest.mark.django_db
VALUE_KEYS = {
    "texts",
    "triples_per_text",
    "tokens_per_triple",
    "ts",
    "us",
    "fs",
    "gs",
    "cs",
    "precision",
    "recall",
    "f1",
    "relaxed_precision",
    "relaxed_recall",
    "relaxed_f1",
    "empty_share",
}


def score(capsys, *args):
    call_command("score_outputs", "--dataset", "tiny", *args)
    return capsys.readouterr()


def test_sync_json_has_every_value_of_every_system_ground_truth_included(capsys):
    tiny_dataset()
    captured = score(capsys, "--sync", "--json", "--chunk-texts", "2")
    result = json.loads(captured.out)
    assert result["dataset"] == "tiny"
    assert set(result["systems"]) == {"Echo", "Ground truth"}
    for name, expected in (("Echo", ECHO_EXPECTED), ("Ground truth", GROUND_TRUTH_EXPECTED)):
        values = result["systems"][name]
        assert set(values) == VALUE_KEYS
        for key, value in expected.items():
            assert values[key] == pytest.approx(value), (name, key)
        for key in VALUE_KEYS - {"texts", "triples_per_text", "tokens_per_triple"}:
            assert 0 <= values[key] <= 1, (name, key)
    # Relaxed matching accepts everything exact matching does, on these outputs nothing more.
    echo = result["systems"]["Echo"]
    assert (echo["relaxed_precision"], echo["relaxed_recall"]) == (echo["precision"], echo["recall"])
    assert "2/2" in captured.err  # tqdm's bar, on stderr
    assert ScoringRun.objects.get().status == "done"


def test_metrics_left_out_are_null(capsys):
    tiny_dataset()
    values = json.loads(score(capsys, "--sync", "--json", "--metrics", "us,cs", "--systems", "Echo").out)["systems"]
    assert list(values) == ["Echo"]
    assert values["Echo"]["us"] == pytest.approx(1 / 3) and values["Echo"]["cs"] == pytest.approx(0.75)
    assert values["Echo"]["ts"] is values["Echo"]["fs"] is values["Echo"]["f1"] is None


def test_ground_truth_can_be_left_out(capsys):
    tiny_dataset()
    values = json.loads(score(capsys, "--sync", "--json", "--metrics", "prf", "--no-ground-truth").out)["systems"]
    assert list(values) == ["Echo"]


def test_sync_prints_a_table_with_the_provenance(capsys):
    tiny_dataset()
    out = score(capsys, "--sync", "--metrics", "fs,gs").out
    assert "heuristic judge (offline rules, no LLM)" in out
    echo_line = next(line for line in out.splitlines() if line.startswith("Echo"))
    assert "0.667" in echo_line


def test_without_sync_the_run_is_queued(capsys, django_capture_on_commit_callbacks):
    tiny_dataset()
    with django_capture_on_commit_callbacks() as callbacks:
        out = score(capsys, "--json").out
    run = ScoringRun.objects.get()
    assert json.loads(out) == {"run": run.pk, "url": f"/runs/{run.pk}/", "status": "queued"}
    assert len(callbacks) == 1  # the enqueue, once the run is committed


@pytest.mark.parametrize(
    "args, message",
    [
        (["--dataset", "nope"], 'there is no dataset "nope"'),
        (["--dataset", "tiny", "--systems", "Echo,Ghost"], "unknown system(s): Ghost"),
        (["--dataset", "tiny", "--metrics", "us,xx"], "unknown metric(s) xx"),
    ],
)
def test_bad_arguments_are_refused_and_create_nothing(args, message):
    tiny_dataset()
    with pytest.raises(CommandError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call_command("score_outputs", *args)
    assert not ScoringRun.objects.exists()
