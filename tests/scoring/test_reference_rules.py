"""The reference rules (the GENRES authors' code) beside the app's own, checked by hand.

Granularity: n = min(count of "[", count of "]") in the judge's reply, n = 1 counting as 0, a
text's mean over its distinct triples, a text without triples left out (None). Tokens per
triple: word tokens, averaged per text, a text without triples counting as 0. Malformed items
(three elements, one empty or not a string) counted in #triples, tokens and the judge's work.
"""

import hashlib
import json
import math

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command

from scoring.genres.embedders import get_embedder
from scoring.genres.judges.heuristic import HeuristicJudge
from scoring.genres.prompts import bracketed_sub_triples
from scoring.genres.rules import (
    countable_malformed,
    output_statistics,
    reference_granularity,
    word_tokenizer,
    word_tokens_in_item,
)
from scoring.genres.scorer import Scorer, ScoreSettings, TextRecord, aggregate
from scoring.imports import import_dataset, import_outputs
from scoring.models import Output
from scoring.models.runs import ScoringRun

CURIE = ["Marie Curie", "won", "Physics and Chemistry"]  # the heuristic judge splits it in 2
PARIS = ["Paris", "capital of", "France"]  # atomic


@pytest.mark.parametrize(
    "reply, count",
    [
        ('["Paris", "capital of", "France"]', 1),
        ('["a", "r", "b"]\n["a", "r", "c"]\nGranularity: 2', 2),
        ("[a, r, b] [a, r, c]]", 2),  # one "[" short: the smaller count
        ("[[", 0),
        ("The triple is atomic.", 0),
    ],
)
def test_sub_triples_are_the_smaller_bracket_count(reply, count):
    assert bracketed_sub_triples(reply) == count


def test_granularity_of_a_text_runs_over_its_distinct_triples():
    items = [CURIE, PARIS, CURIE]
    replies = ['["x", "y", "z"]', "[a] [b]", "[c] [d] [e]"]  # n = 1 -> 0, then n = 2; the repeat is not read
    assert reference_granularity(items, replies) == pytest.approx((1 + math.exp(-2)) / 2)
    assert reference_granularity([], []) is None


def test_word_tokens_split_punctuation_off():
    item = ["Barack Obama's wife", "is", "Michelle (née Robinson)."]
    # Barack Obama 's wife | is | Michelle ( née Robinson ) .
    assert word_tokens_in_item(item) == 4 + 1 + 6
    assert word_tokens_in_item(["Troy", "released in", 1927]) == 0  # a non-string element: 0, as the authors


def test_output_statistics_under_both_rules():
    triples = [["a b", "c", "d."]]
    malformed = [["x", "y", ""], ["x", "y", 1927]]
    # Reference: 3 items; word tokens 2 + 1 + 2 = 5, then 2, then 0.
    assert output_statistics(triples, malformed, "reference") == (3, pytest.approx(7 / 3))
    # App: the valid triple only, whitespace tokens 2 + 1 + 1.
    assert output_statistics(triples, malformed, "app") == (1, 4)
    assert output_statistics([], [], "reference") == (0, 0.0)
    assert output_statistics([], [], "app") == (0, None)


@pytest.mark.parametrize(
    "item, counted",
    [
        (["x", "y", ""], True),
        (["x", "y", None], True),
        (["x", "y", 1927], True),
        (["x", "y"], False),
        (["x", "y", ["z"]], False),
        (["x", "y", True], False),
        (["x", "y", float("nan")], False),
        (["x", "y", "a\x00b"], False),
    ],
)
def test_which_dropped_items_the_reference_rules_count(item, counted):
    assert countable_malformed(item) is counted


def score(rules, records):
    scorer = Scorer(ScoreSettings(rules=rules), get_embedder("hashing"), HeuristicJudge())
    return scorer.score(records, metrics=("fs", "gs"))


def test_scorer_follows_the_rules_it_is_given():
    records = [
        TextRecord(
            "a", "Marie Curie won Physics and Chemistry. Paris is the capital of France.", [CURIE, CURIE, PARIS]
        ),
        TextRecord("b", "Nothing here.", []),
    ]
    reference = score("reference", records)
    app = score("app", records)
    # Reference gs: distinct triples e^-2 and 1; the empty text None and left out of the mean.
    assert [text.values["gs"] for text in reference] == [pytest.approx((math.exp(-2) + 1) / 2), None]
    assert aggregate(reference)["gs"] == pytest.approx((math.exp(-2) + 1) / 2)
    # App gs: every triple (e^-2 twice, 1), and the empty text scores 0.
    assert [text.values["gs"] for text in app] == [pytest.approx((2 * math.exp(-2) + 1) / 3), 0.0]
    assert aggregate(app)["gs"] == pytest.approx((2 * math.exp(-2) + 1) / 6)
    # Tokens per triple, text a: 2 + 1 + 3 twice, 1 + 2 + 1 (no punctuation: both tokenizers agree).
    assert reference[0].values["tokens_per_triple"] == pytest.approx(16 / 3)
    assert aggregate(reference)["tokens_per_triple"] == pytest.approx((16 / 3 + 0) / 2)
    assert aggregate(app)["tokens_per_triple"] == pytest.approx(16 / 3)


def test_reference_rules_judge_malformed_items_with_string_elements():
    text = "Ada Lovelace wrote notes on the engine of Charles Babbage."
    record = TextRecord(
        "c",
        text,
        [["Ada Lovelace", "wrote", "notes"]],
        malformed=[["Ada Lovelace", "", "Babbage"], ["Ada", "born", None]],
    )
    [reference] = score("reference", [record])
    [app] = score("app", [record])
    assert reference.values["triples"] == 3 and app.values["triples"] == 1
    assert len(reference.details["fs"]) == 2 and len(app.details["fs"]) == 1
    assert reference.values["fs"] == 1.0  # both judged items name entities of the text


def test_the_rules_are_in_the_provenance_and_the_app_fingerprint_is_unchanged():
    embedder = get_embedder("hashing")
    app, reference = ScoreSettings(), ScoreSettings(rules="reference")
    assert app.provenance(embedder)["rules"] == "app"
    assert reference.provenance(embedder)["rules"] == "reference"
    assert app.fingerprint(embedder) != reference.fingerprint(embedder)
    # Settings stored before the rules existed hashed the same provenance without the entry.
    before = {key: value for key, value in app.provenance(embedder).items() if key != "rules"}
    assert app.fingerprint(embedder) == hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()
    with pytest.raises(ValueError, match="rules must be one of app, reference"):
        ScoreSettings(rules="paper")


# End to end: files in the authors' release layout (our own content), imported and scored.
DATASET = {
    "Marie Curie won the Nobel Prize in Physics and the Nobel Prize in Chemistry.": [
        ["Marie Curie", "won", "Nobel Prize in Physics"]
    ],
    "Paris is the capital of France.": [["Paris", "capital of", "France"]],
}
OUTPUTS = {
    "Marie Curie won the Nobel Prize in Physics and the Nobel Prize in Chemistry.": [
        ["Marie Curie", "won", "Nobel Prize in Physics and Nobel Prize in Chemistry"],
        ["Marie Curie", "", "Nobel Prize"],
    ],
    "Paris is the capital of France.": [],
}


@pytest.mark.django_db
def test_score_outputs_with_reference_rules_on_a_release_layout_file(capsys, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    import_dataset(ContentFile(json.dumps(DATASET).encode()), file_name="toy_processed.json", name="toy")
    import_outputs(
        ContentFile(json.dumps(OUTPUTS).encode()),
        file_name="toy_rand_2_model_1.json",
        dataset="toy",
        system_name="model",
        lenient=True,
    )
    assert Output.objects.get(system__name="model", text__position=0).malformed == [["Marie Curie", "", "Nobel Prize"]]

    def run(rules):
        call_command(
            "score_outputs",
            "--dataset",
            "toy",
            "--systems",
            "model",
            "--metrics",
            "gs",
            "--rules",
            rules,
            "--sync",
            "--json",
        )
        return json.loads(capsys.readouterr().out)["systems"]["model"]

    reference, app = run("reference"), run("app")
    # Reference: 2 items then 0 -> 1 triple per text; the split triple (2 sub-triples, e^-2) and the
    # malformed item (atomic, 1) on the first text; the empty second text left out of gs.
    assert reference["triples_per_text"] == 1.0
    assert reference["gs"] == pytest.approx((math.exp(-2) + 1) / 2)
    # Word tokens: 2 + 1 + 9 and 2 + 0 + 2, mean 8 on the first text; 0 on the second.
    assert reference["tokens_per_triple"] == pytest.approx(4.0)
    # App: the malformed item dropped; the empty text scores gs 0 and has no tokens per triple.
    assert app["triples_per_text"] == 0.5
    assert app["gs"] == pytest.approx(math.exp(-2) / 2)
    assert app["tokens_per_triple"] == 12.0
    runs = ScoringRun.objects.order_by("pk")
    assert [run.provenance["rules"] for run in runs] == ["reference", "app"]
    assert runs[0].fingerprint != runs[1].fingerprint


@pytest.mark.parametrize(
    "phrase",
    [
        'He said, "it\'s done."',
        "U.S. Route 66 (1926–1985)",
        "can't won't gonna -- 3.88$ [note] {x} <y>",
        "«Le Monde» ‘quoted’ “twice” `tick`",
        "Dr. O'Neil's rock'n'roll... ?!",
    ],
)
def test_the_word_tokenizer_gives_nltks_tokens(phrase):
    from nltk.tokenize import NLTKWordTokenizer

    assert word_tokenizer().tokenize(phrase) == NLTKWordTokenizer().tokenize(phrase)
