"""A researcher's own judge prompts, given as template files with $TEXT$ and $TRIPLE$.

The templates here are written for these tests in the placeholder syntax of the GENRES
authors' prompt files; the fake model answers them as the authors' judge did: a bare lowercase
"true"/"false", and sub-triples one per line with a closing "Granularity: N" (or "N/A" and 0).
"""

import json
import re

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from devtools.fake_openai import FakeOpenAIServer
from scoring.genres.cache import InMemoryRequestCache
from scoring.genres.embedders import get_embedder
from scoring.genres.judges.registry import get_judge
from scoring.genres.openai_backend import RetryPolicy
from scoring.genres.prompts import MAX_TEMPLATE_CHARS, PromptTemplate, TemplateError
from scoring.genres.scorer import ScoreSettings
from scoring.models.runs import ScoringRun
from tests.scoring.run_fixtures import echo, tiny_dataset

FS_TEMPLATE = "Say whether the source states the fact. Reply true or false.\n\nSource: $TEXT$\nFact: $TRIPLE$\nVerdict:"
GS_TEMPLATE = (
    "Break the fact into its smallest facts, one [e, r, o] per line, then write Granularity: N.\n\n"
    "Fact: $TRIPLE$\nParts:"
)
TEXT = "Ada Lovelace and Charles Babbage worked on the Analytical Engine in London."
PAIRS = [
    (TEXT, ["Ada Lovelace", "worked on", "Analytical Engine"]),
    (TEXT, ["Alan Turing", "worked on", "Analytical Engine"]),
    (TEXT, ["Charles Babbage", "worked in", "London and Paris"]),
]
FAST_RETRIES = RetryPolicy(max_attempts=2, base_delay=0.01, timeout=5.0)
_FS_QUESTION = re.compile(r"Source: (?P<text>.*)\nFact: (?P<triple>\[.*\])\nVerdict:$", re.DOTALL)
_GS_QUESTION = re.compile(r"Fact: (?P<triple>\[.*\])\nParts:$")


def authors_style_reply(prompt):
    if question := _FS_QUESTION.search(prompt):
        subject = json.loads(question["triple"])[0]
        return "true" if subject in question["text"] else "false"
    if question := _GS_QUESTION.search(prompt):
        subject, relation, object_ = json.loads(question["triple"])
        parts = object_.split(" and ")
        if len(parts) == 1:
            return "N/A (the triple is already atomic)\nGranularity: 0"
        return "\n".join([*(json.dumps([subject, relation, part]) for part in parts), f"Granularity: {len(parts)}"])
    return "I cannot tell."


@pytest.fixture
def server():
    with FakeOpenAIServer() as running:
        running.reply_with(authors_style_reply)
        yield running


def template_judge(server, templates, **options):
    return get_judge(
        "openai", base_url=server.base_url, api_key="test-key", retry=FAST_RETRIES, templates=templates, **options
    )


def test_a_template_is_filled_in_one_pass_with_the_triple_as_json():
    template = PromptTemplate("fs", "  Text: $TEXT$\nTriple: $TRIPLE$\n")
    rendered = template.render("costs $TRIPLE$ in Zürich", ["Café", "in", "Zürich"])
    assert rendered == 'Text: costs $TRIPLE$ in Zürich\nTriple: ["Caf\\u00e9", "in", "Z\\u00fcrich"]'


@pytest.mark.parametrize(
    "aspect, text, message",
    [
        ("fs", "Is $TRIPLE$ true?", r"lacks the placeholder \$TEXT\$; it needs \$TEXT\$ and \$TRIPLE\$"),
        ("fs", "Is it true?", r"lacks the placeholders \$TEXT\$ and \$TRIPLE\$"),
        ("gs", "Split $TEXT$", r"the gs prompt template lacks the placeholder \$TRIPLE\$"),
        ("gs", "$TRIPLE$\x00", "NUL"),
        ("gs", "$TRIPLE$" + "x" * MAX_TEMPLATE_CHARS, "at most 100,000"),
        ("cs", "$TRIPLE$", "for fs or gs"),
    ],
)
def test_a_template_without_what_it_needs_is_refused(aspect, text, message):
    with pytest.raises(TemplateError, match=message):
        PromptTemplate(aspect, text)


def test_a_granularity_template_needs_no_text():
    assert PromptTemplate("gs", "Split $TRIPLE$").render("any text", ["a", "b", "c"]) == 'Split ["a", "b", "c"]'


def test_the_judge_sends_the_filled_template_and_reads_the_authors_reply_format(server):
    templates = [PromptTemplate("fs", FS_TEMPLATE), PromptTemplate("gs", GS_TEMPLATE)]
    judge = template_judge(server, templates, batch_size=1)
    support, split = judge.check_support(PAIRS), judge.split(PAIRS)
    assert [verdict.supported for verdict in support] == [True, False, True]
    assert [verdict.n for verdict in split] == [0, 0, 2]
    assert all(verdict.parsed for verdict in [*support, *split])
    assert split[2].sub_triples == [
        ["Charles Babbage", "worked in", "London"],
        ["Charles Babbage", "worked in", "Paris"],
    ]
    sent = {entry.body["prompt"] for entry in server.log}  # in any order: requests go concurrently
    assert FS_TEMPLATE.replace("$TEXT$", TEXT).replace("$TRIPLE$", json.dumps(PAIRS[0][1])) in sent
    assert GS_TEMPLATE.replace("$TRIPLE$", json.dumps(PAIRS[0][1])) in sent and len(sent) == 6


def test_a_chat_model_gets_the_filled_template_as_its_one_message(server):
    judge = template_judge(server, [PromptTemplate("fs", FS_TEMPLATE)], model="gpt-4o-mini")
    assert [verdict.supported for verdict in judge.check_support(PAIRS)] == [True, False, True]
    messages = server.log[0].body["messages"]
    assert [message["role"] for message in messages] == ["user"] and messages[0]["content"].startswith("Say whether")


def test_the_other_aspect_keeps_the_apps_own_prompt(server):
    judge = template_judge(server, [PromptTemplate("fs", FS_TEMPLATE)], batch_size=1)
    judge.split(PAIRS[:1])
    question = 'Triple: ["Ada Lovelace", "worked on", "Analytical Engine"]\nFiner triples:'
    assert server.log[0].body["prompt"].endswith(question)


def test_the_template_hash_is_in_the_cache_key(server):
    cache = InMemoryRequestCache()
    first = PromptTemplate("fs", FS_TEMPLATE)
    template_judge(server, [first], cache=cache).check_support(PAIRS)
    same = template_judge(server, [PromptTemplate("fs", FS_TEMPLATE + "\n")], cache=cache)  # same text once stripped
    same.check_support(PAIRS)
    assert same.usage.requests == 0 and same.usage.cache_hits == 3
    reworded = template_judge(server, [PromptTemplate("fs", FS_TEMPLATE.replace("Say", "Tell"))], cache=cache)
    reworded.check_support(PAIRS)
    assert reworded.usage.cache_hits == 0 and reworded.usage.requests == 1


def test_the_template_hash_is_in_the_provenance_so_scores_never_mix():
    embedder = get_embedder("hashing")

    def provenance(templates):
        settings = ScoreSettings(judge="openai", prompt_templates=templates)
        judge = get_judge("openai", base_url="http://127.0.0.1:9/v1", templates=settings.judge_templates())
        return settings.provenance(embedder, judge), settings.fingerprint(embedder, judge)

    own, own_fingerprint = provenance({})
    theirs, their_fingerprint = provenance({"fs": FS_TEMPLATE, "gs": GS_TEMPLATE})
    reworded, reworded_fingerprint = provenance({"fs": FS_TEMPLATE + " Be brief.", "gs": GS_TEMPLATE})
    assert "prompt_templates" not in own
    assert theirs["prompt_templates"] == {
        "fs": PromptTemplate("fs", FS_TEMPLATE).sha256,
        "gs": PromptTemplate("gs", GS_TEMPLATE).sha256,
    }
    assert len({own_fingerprint, their_fingerprint, reworded_fingerprint}) == 3
    assert reworded["prompt_templates"]["gs"] == theirs["prompt_templates"]["gs"]


def test_templates_are_refused_for_a_judge_that_asks_no_llm():
    with pytest.raises(ValueError, match="prompt templates are for the openai judge"):
        ScoreSettings(judge="heuristic", prompt_templates={"fs": FS_TEMPLATE})


@pytest.mark.django_db
def test_score_outputs_reads_template_files_and_refuses_a_missing_placeholder(tmp_path, settings, capsys):
    settings.VAR_DIR = tmp_path
    tiny_dataset()
    good, bad = tmp_path / "fs.txt", tmp_path / "gs.txt"

    def score(*options):
        call_command("score_outputs", "--dataset", "tiny", "--judge", "openai", *options)

    good.write_text(FS_TEMPLATE, encoding="utf-8")
    bad.write_text("Split this fact.", encoding="utf-8")
    with pytest.raises(CommandError, match=r"gs prompt template lacks the placeholder \$TRIPLE\$"):
        score("--fs-prompt", str(good), "--gs-prompt", str(bad))
    with pytest.raises(CommandError, match="cannot read the fs prompt template"):
        score("--fs-prompt", str(tmp_path / "none.txt"))
    assert not ScoringRun.objects.exists()
    score("--fs-prompt", str(good), "--metrics", "fs")
    assert ScoringRun.objects.get().score_settings["prompt_templates"] == {"fs": FS_TEMPLATE}


@pytest.mark.django_db
def test_the_run_form_stores_the_template_text_with_the_run(admin_client, settings, tmp_path, monkeypatch, server):
    settings.VAR_DIR = tmp_path
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    dataset = tiny_dataset()
    url = reverse("scoring:run_new", args=[dataset.name])
    form = {"systems": [echo().pk], "metrics": ["fs"], "embedder": "hashing", "judge": "openai", "chunk_texts": 50}
    response = admin_client.post(url, {**form, "fs_prompt": "Is $TRIPLE$ right?", "action": "start"})
    assert response.status_code == 400
    assert "lacks the placeholder $TEXT$" in response.content.decode()
    response = admin_client.post(url, {**form, "fs_prompt": FS_TEMPLATE, "judge": "heuristic", "action": "start"})
    assert response.status_code == 400 and "A prompt template needs the openai judge." in response.content.decode()
    assert not ScoringRun.objects.exists()
    response = admin_client.post(url, {**form, "fs_prompt": FS_TEMPLATE, "action": "start"})
    assert response.status_code == 302
    assert ScoringRun.objects.get().score_settings["prompt_templates"] == {"fs": FS_TEMPLATE}
    assert server.count() == 0  # an estimate and a queued run send nothing
