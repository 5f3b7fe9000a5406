"""The prompts and how judge replies are read."""

import json

import pytest

from scoring.genres import prompts
from scoring.genres.prompts import keep_reply, parse_split, parse_support, split_prompt, support_prompt


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("True", (True, True)),
        ("false", (False, True)),
        ("**TRUE.**", (True, True)),
        (" False, the text names another publisher.", (False, True)),
        ("Yes, the text says so.", (True, True)),
        ("No.", (False, True)),
        ("Answer: true", (True, True)),
        ("That is not true.", (False, True)),
        ("It isn't false", (True, True)),
        ("Supported", (False, False)),
        ("", (False, False)),
    ],
)
def test_support_reply(reply, expected):
    assert parse_support(reply) == expected


def test_first_verdict_word_decides():
    assert parse_support("True. (Some would say false, but the text is explicit.)") == (True, True)


def test_split_reply_with_granularity_line():
    reply = '["Marie Curie", "won", "Physics prize"]\n["Marie Curie", "won", "Chemistry prize"]\nGranularity: 2'
    n, sub_triples, parsed = parse_split(reply)
    assert (n, parsed) == (2, True)
    assert sub_triples == [["Marie Curie", "won", "Physics prize"], ["Marie Curie", "won", "Chemistry prize"]]


def test_granularity_line_wins_over_the_listed_triples():
    reply = '["a", "b", "c"]\ngranularity = 3'
    assert parse_split(reply)[0] == 3


def test_without_granularity_line_the_listed_triples_are_counted():
    reply = '1. ["A", "r", "x"]\n2. ["B", "r", "x"]\n3. ["C", "r", "x"]'
    n, sub_triples, parsed = parse_split(reply)
    assert (n, len(sub_triples), parsed) == (3, 3, True)


def test_one_sub_triple_counts_as_zero():
    assert parse_split('["Paris", "capital of", "France"]')[0] == 0
    assert parse_split("Granularity: 1")[0] == 0


def test_malformed_lists_are_not_sub_triples():
    reply = '["only", "two"]\n[1, 2, 3]\n["ok", "fine", "here"]\n["broken", "json"'
    assert parse_split(reply)[1] == [["ok", "fine", "here"]]


def test_unparseable_split_reply():
    assert parse_split("I would leave it as it is.") == (0, [], False)


def test_triple_is_shown_as_json_with_quotes_escaped():
    triple = ['The "Iron Lady"', "born in", "Grantham"]
    question = support_prompt("Margaret Thatcher was born in Grantham.", triple).question
    assert '["The \\"Iron Lady\\"", "born in", "Grantham"]' in question
    assert json.loads(question.split("Triple: ", 1)[1].split("\n")[0]) == triple


def test_completion_and_chat_renderings_hold_the_same_examples():
    prompt = support_prompt("Some text.", ["a", "b", "c"])
    completion = prompt.as_completion()
    messages = prompt.as_messages()
    assert messages[0] == {"role": "system", "content": prompts.SUPPORT_INSTRUCTION}
    assert [m["role"] for m in messages[1:]] == ["user", "assistant"] * len(prompts.SUPPORT_EXAMPLES) + ["user"]
    for question, answer in prompt.examples:
        assert f"{question} {answer}" in completion
    assert completion.endswith('Triple: ["a", "b", "c"]\nSupported:')
    assert messages[-1]["content"] == prompt.question


def test_split_examples_end_with_their_granularity():
    prompt = split_prompt(["x", "y", "z"])
    for _question, answer in prompt.examples:
        n, sub_triples, parsed = parse_split(answer)
        assert parsed and len(sub_triples) == (n or 1)
    assert "Text:" not in prompt.as_completion()  # granularity is judged on the triple alone


def test_support_examples_read_back_as_their_labels():
    for (_text, _triple, label), (_question, answer) in zip(
        prompts.SUPPORT_EXAMPLES, support_prompt("t", ["a", "b", "c"]).examples, strict=True
    ):
        assert parse_support(answer) == (label == "True", True)


def test_long_replies_are_cut_for_keeping():
    assert keep_reply("short") == "short"
    long_reply = "x" * (prompts.MAX_KEPT_REPLY_CHARS + 500)
    kept = keep_reply(long_reply)
    assert len(kept) < len(long_reply)
    assert kept.startswith("x" * prompts.MAX_KEPT_REPLY_CHARS) and kept.endswith("[...]")
