"""Recorded verdicts as a judge: verdicts produced elsewhere, imported, then scoring fs and gs
with no request at all; triples without a verdict counted, reported and left out of the means.

The files are written here, with this test's own content, in the GENRES authors' release
layouts (factualness: per text a list of booleans aligned with its triples; granularity: per
text a map from the triple's JSON to the judge's reply) and in the simple JSONL layout. On the
tiny dataset (run_fixtures): Echo has t1 [Curie], t2 nothing, t3 [capital, capital]; Ground
truth has t1 [Curie] and t3 [capital, Louvre].
"""

import json
import math

import pytest
from django.contrib.auth.models import Permission
from django.core.management import CommandError, call_command
from django.urls import reverse

from scoring.genres import openai_backend
from scoring.genres.judges.base import factualness, granularity
from scoring.genres.judges.recorded import RecordedJudge, RecordedVerdict
from scoring.genres.prompts import bracketed_sub_triples
from scoring.models import ImportedVerdict, System, Text
from scoring.models.runs import ScoringRun
from tests.scoring.run_fixtures import CURIE, PARIS, tiny_dataset

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]
BORN = ["Marie Curie", "born in", "Warsaw"]
CAPITAL = ["Paris", "capital of", "France"]
LOUVRE = ["Paris", "hosts", "Louvre"]


@pytest.fixture
def no_llm(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a recorded judge sent a request")

    monkeypatch.setattr(openai_backend.OpenAIService, "stream", refuse)


def write(path, content):
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


def import_file(path, system, layout, *extra):
    call_command(
        "import_verdicts", path, "--dataset", "tiny", "--system", system, "--source", "mine", "--layout", layout, *extra
    )


@pytest.fixture
def recorded(tmp_path):
    """Echo's verdicts in the authors' layouts, Ground truth's in JSONL (t3 referred to by id)."""
    tiny_dataset()
    fs = {CURIE: {"score": 1.0, "results": [True]}, PARIS: {"score": 0.0, "results": [False, False]}}
    gs = {CURIE: {json.dumps(BORN): 'Sub-triples: ["Marie Curie", "born in", "Warsaw"]\nGranularity: 1'}}  # t3 has none
    import_file(write(tmp_path / "fs.json", fs), "Echo", "authors-fs")
    import_file(write(tmp_path / "gs.json", gs), "Echo", "authors-gs")
    lines = [
        {"text": "t1", "triple": BORN, "aspect": "fs", "verdict": True},
        {"text": "t1", "triple": BORN, "aspect": "gs", "verdict": 0},
        {"text": "t3", "triple": CAPITAL, "aspect": "fs", "verdict": True},
        {"text": PARIS, "triple": LOUVRE, "aspect": "fs", "verdict": False},
        {
            "text": "t3",
            "triple": LOUVRE,
            "aspect": "gs",
            "verdict": '["Paris", "hosts", "a museum"], ["Paris", "hosts", "art"]',
        },
    ]
    import_file(write(tmp_path / "gt.jsonl", "\n".join(json.dumps(line) for line in lines)), "Ground truth", "jsonl")


def test_the_number_of_sub_triples_in_a_reply_is_its_bracketed_items():
    assert bracketed_sub_triples('["a", "b", "c"]\n["a", "b", "d"]\nGranularity: 2') == 2
    assert bracketed_sub_triples("N/A (already specific)\nGranularity: 0") == 0
    assert bracketed_sub_triples('["a", "b", "c"] and a stray ]') == 1
    assert bracketed_sub_triples("[[") == 0


def test_a_missing_verdict_is_left_out_and_counted():
    judge = RecordedJudge("mine", [RecordedVerdict("fs", "T", ("a", "b", "c"), supported=True)])
    verdicts = judge.check_support([("T", ["a", "b", "c"]), ("T", ["x", "y", "z"])])
    assert [verdict.missing for verdict in verdicts] == [False, True] and judge.missing == 1
    assert factualness(verdicts) == 1.0
    assert factualness(verdicts[1:]) is None and granularity(judge.split([("T", ["a", "b", "c"])])) is None
    assert factualness([]) == 0.0  # no triples: still 0, as with every judge
    assert judge.missing == 2 and judge.usage.requests == 0


def test_recorded_verdicts_score_fs_and_gs_with_no_request(recorded, capsys, no_llm):
    assert ImportedVerdict.objects.count() == 3 + 1 + 5  # Echo's repeated t3 triple: a verdict per occurrence
    capsys.readouterr()  # what the imports printed
    call_command(
        "score_outputs",
        "--dataset",
        "tiny",
        "--metrics",
        "fs,gs",
        "--judge",
        "recorded",
        "--verdict-source",
        "mine",
        "--sync",
        "--json",
    )
    result = json.loads(capsys.readouterr().out)
    echo, truth = result["systems"]["Echo"], result["systems"]["Ground truth"]
    # Echo: fs t1 1, t2 0 (no triple), t3 0; gs t1 1 (one sub-triple counts as 0), t2 0, t3 without verdicts.
    assert echo["fs"] == pytest.approx(1 / 3) and echo["gs"] == pytest.approx(1 / 2)
    # Ground truth: fs t1 1, t3 1/2; gs t1 1, t3 e^-2 (its capital triple has no gs verdict).
    assert truth["fs"] == pytest.approx(3 / 4) and truth["gs"] == pytest.approx((1 + math.exp(-2)) / 2)
    assert result["missing_verdicts"] == 3  # Echo's two t3 triples and Ground truth's capital, for gs
    run = ScoringRun.objects.get()
    assert (run.provenance["judge"], run.provenance["judge_model"], run.provenance["prompt_version"]) == (
        "recorded",
        "mine",
        "recorded",
    )
    assert run.progress_state()["requests"] == 0


def test_the_command_and_the_run_page_report_the_triples_without_a_verdict(recorded, capsys, client, django_user_model):
    call_command(
        "score_outputs",
        "--dataset",
        "tiny",
        "--metrics",
        "fs,gs",
        "--judge",
        "recorded",
        "--verdict-source",
        "mine",
        "--sync",
    )
    out = capsys.readouterr().out
    assert (
        'Recorded verdicts from "mine": 3 triple judgement(s) without a verdict, left out of the fs and gs means' in out
    )
    user = django_user_model.objects.create_user("researcher", password="researcher-pass-123")
    user.user_permissions.add(Permission.objects.get(codename="view_output"))
    client.force_login(user)
    page = client.get(reverse("scoring:run", args=[ScoringRun.objects.get().pk])).content.decode()
    assert "3 triple judgements had no recorded verdict: left out of the fs and gs means" in page
    paris = Text.objects.get(external_id="t3")
    page = client.get(reverse("scoring:text", args=["tiny", paris.pk])).content.decode()
    # Echo's two t3 triples (the page lists the gold triples on their own, without verdicts).
    assert page.count("gs: no recorded verdict") == 2 and "fs: no recorded verdict" not in page


def test_authors_factualness_can_be_aligned_with_the_triples_they_judged(tmp_path, no_llm, capsys):
    tiny_dataset()
    # The authors judged a malformed item the app dropped: their list has one more boolean.
    judged = {PARIS: [CAPITAL, ["Paris", "France"], CAPITAL]}
    fs = {PARIS: {"score": 2 / 3, "results": [True, False, True]}}
    import_file(write(tmp_path / "fs.json", fs), "Echo", "authors-fs", "--triples", write(tmp_path / "t.json", judged))
    assert list(ImportedVerdict.objects.order_by("pk").values_list("triple", "supported", "occurrence")) == [
        (CAPITAL, True, 0),
        (["Paris", "France"], False, 0),
        (CAPITAL, True, 1),
    ]
    assert capsys.readouterr().out == '3 fs verdicts of Echo on 1 texts of "tiny" stored under source "mine"\n'
    call_command(
        "score_outputs",
        "--dataset",
        "tiny",
        "--systems",
        "Echo",
        "--metrics",
        "fs",
        "--judge",
        "recorded",
        "--verdict-source",
        "mine",
        "--sync",
        "--json",
    )
    result = json.loads(capsys.readouterr().out)
    assert result["systems"]["Echo"]["fs"] == pytest.approx((0 + 0 + 1) / 2)  # t1 without a verdict: out
    assert result["missing_verdicts"] == 1


@pytest.mark.parametrize(
    "layout, content, message",
    [
        ("authors-fs", {CURIE: {"results": [True, False]}}, "2 verdicts for 1 triples"),
        ("authors-fs", {"A text not in the dataset.": {"results": [True]}}, "no such text"),
        ("authors-fs", {CURIE: {"results": ["yes"]}}, "list of true/false"),
        ("authors-gs", {CURIE: {"not json": "reply"}}, "is not a triple in JSON"),
        ("authors-gs", [1, 2], "one object keyed by text"),
        (
            "jsonl",
            '{"text": "t9", "triple": ["a", "b", "c"], "aspect": "fs", "verdict": true}',
            'not in dataset "tiny"',
        ),
        (
            "jsonl",
            '{"text": "t1", "triple": ["a", "b", "c"], "aspect": "fs", "verdict": "true"}',
            "line 1: an fs verdict is true or false",
        ),
        (
            "jsonl",
            '\n{"text": "t1", "triple": ["a", "b", "c"], "aspect": "cs", "verdict": 1}',
            "line 2: aspect must be fs or gs",
        ),
        ("jsonl", '{"text": "t1", "triple": "a b c", "aspect": "gs", "verdict": 1}', "a triple is a list of strings"),
        (
            "jsonl",
            '{"text": "t1", "triple": ["a", "b", "c"], "aspect": "gs", "verdict": "[x]\\u0000"}',
            "line 1: a NUL",
        ),
        ("authors-gs", {CURIE: {'["a", "b", "\\udfff"]': "[x]"}}, "a lone surrogate"),
        ("jsonl", "[" * 100_000, "line 1: not JSON"),
    ],
)
def test_a_bad_verdict_file_imports_nothing_and_names_the_record(tmp_path, layout, content, message):
    tiny_dataset()
    import_file(
        write(tmp_path / "good.jsonl", '{"text": "t1", "triple": ["a", "b", "c"], "aspect": "gs", "verdict": 2}'),
        "Echo",
        "jsonl",
    )
    with pytest.raises(CommandError, match=f"nothing imported: .*{message}"):
        import_file(write(tmp_path / "bad", content), "Echo", layout)
    assert list(ImportedVerdict.objects.values_list("sub_triples", flat=True)) == [2]


def test_what_the_authors_release_holds_is_kept_and_reported_not_refused(tmp_path, capsys):
    """Their files key texts as sampled (a trailing space the dataset import strips), judged a
    triple given twice once per occurrence (two verdicts that may differ: each is kept), and
    judged malformed items with a number for an element (read as its JSON text)."""
    tiny_dataset()
    fs = {PARIS + " ": {"results": [True, False]}}  # Echo's t3: [capital, capital]
    gs = {
        PARIS + " ": {
            json.dumps(CAPITAL): "[a] [b]",
            json.dumps(["Paris", "founded in", 300]): "[x]",
            json.dumps(["Paris", "founded in", None]): "[y]",
        }
    }
    import_file(write(tmp_path / "fs.json", fs), "Echo", "authors-fs")
    import_file(write(tmp_path / "gs.json", gs), "Echo", "authors-gs")
    output = capsys.readouterr()
    assert list(
        ImportedVerdict.objects.order_by("aspect", "occurrence", "pk").values_list("aspect", "occurrence", "supported")
    ) == [("fs", 0, True), ("fs", 1, False), ("gs", 0, None), ("gs", 0, None)]
    number_item = ImportedVerdict.objects.get(aspect="gs", reply="[x]")
    assert number_item.triple == ["Paris", "founded in", "300"]
    assert (
        "1 triples occur more than once in a text with different verdicts; each occurrence keeps its own: "
        f"t3: fs {json.dumps(CAPITAL)}" in output.err
    )
    assert "1 verdicts on items with an element that is neither a string nor a number skipped" in output.err
    assert "founded in" in output.err


def test_reference_rules_leave_missing_verdicts_out_and_find_triples_stored_stripped(tmp_path, no_llm, capsys):
    tiny_dataset()
    # The authors' key keeps a space the output import strips; t3's triples have no verdict.
    reply = '["Marie Curie", "born in", "Warsaw"] ["Warsaw", "in", "Poland"]'
    gs = {CURIE: {json.dumps([" Marie Curie", "born in", "Warsaw "]): reply}}
    import_file(write(tmp_path / "gs.json", gs), "Echo", "authors-gs")
    capsys.readouterr()
    call_command(
        "score_outputs",
        "--dataset",
        "tiny",
        "--systems",
        "Echo",
        "--metrics",
        "gs",
        "--judge",
        "recorded",
        "--verdict-source",
        "mine",
        "--rules",
        "reference",
        "--sync",
        "--json",
    )
    result = json.loads(capsys.readouterr().out)
    # t1: two sub-triples, e^-2; t2 (no triples) and t3 (no verdicts) are left out.
    assert result["systems"]["Echo"]["gs"] == pytest.approx(math.exp(-2))
    assert result["missing_verdicts"] == 2


def test_a_new_import_replaces_the_sources_verdicts_of_its_aspects(recorded, tmp_path):
    import_file(write(tmp_path / "fs2.json", {CURIE: {"results": [False]}}), "Echo", "authors-fs")
    echo_verdicts = ImportedVerdict.objects.filter(system__name="Echo")
    assert list(echo_verdicts.filter(aspect="fs").values_list("supported", flat=True)) == [False]
    assert echo_verdicts.filter(aspect="gs").count() == 1  # the gs verdicts stay


def test_the_run_form_starts_a_recorded_run_with_no_judge_request(recorded, admin_client):
    url = reverse("scoring:run_new", args=["tiny"])
    form = {
        "systems": [System.objects.get(name="Echo").pk],
        "metrics": ["fs", "gs"],
        "embedder": "hashing",
        "judge": "recorded",
        "chunk_texts": 50,
    }
    page = admin_client.post(url, {**form, "action": "estimate"}).content.decode()
    assert '<option value="mine">mine</option>' in page
    assert "Choose recorded verdicts with the recorded judge" in page and not ScoringRun.objects.exists()
    page = admin_client.post(url, {**form, "verdict_source": "mine", "action": "estimate"}).content.decode()
    assert "the recorded judge scores with verdicts imported beforehand" in page
    response = admin_client.post(url, {**form, "verdict_source": "mine", "action": "start"})
    assert response.status_code == 302
    assert ScoringRun.objects.get().score_settings["verdict_source"] == "mine"
