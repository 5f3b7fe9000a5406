"""The post-processor on messy replies of the kind chat models really produce."""

from scoring.genres.postprocess import answer_part, extract_triples

LLAMA2_ECHO = """<s>[INST] <<SYS>>
You extract relation triples. Answer with a JSON list such as [["subject", "relation", "object"]].
<</SYS>>

Text: Marie Curie was born in Warsaw and won the Nobel Prize in Physics. [/INST] \
Here are the relation triples I found:

[["Marie Curie", "born in", "Warsaw"], ["Marie Curie", "won", "Nobel Prize in Physics"]]</s>"""

VICUNA = """A chat between a curious user and an artificial intelligence assistant.
USER: Extract triples as ["subject", "relation", "object"] from: Ada Lovelace worked with Charles Babbage.
ASSISTANT: ["Ada Lovelace", "worked with", "Charles Babbage"]</s>"""

OPENCHAT = (
    "GPT4 Correct User: Give the triples of: The Liffey flows through Dublin.<|end_of_turn|>"
    "gpt4 correct assistant: [['Liffey', 'flows through', 'Dublin']]<|end_of_turn|>"
)

MARKDOWN_FENCE = """Sure, here you go.

```json
[
  ["Aspirin", "treats", "headache"],
  ["Aspirin", "is a", "drug"]
]
```

Let me know if you need anything else!<|eot_id|>"""

NUMBERED_LINES = """Triples:
1. ["Oslo", "capital of", "Norway"]
2. ["Norway", "member of", "NATO"]
3) ['Oslo', 'located on', 'Oslofjord']"""

TRUNCATED = '[["Mount Everest", "located in", "Nepal"], ["Mount Everest", "height", "8,849 m'


def test_llama2_prompt_echo_is_cut_and_its_example_list_ignored():
    triples, warnings = extract_triples(LLAMA2_ECHO)

    assert triples == [["Marie Curie", "born in", "Warsaw"], ["Marie Curie", "won", "Nobel Prize in Physics"]]
    assert warnings == []


def test_vicuna_answer_follows_the_assistant_marker():
    assert extract_triples(VICUNA) == ([["Ada Lovelace", "worked with", "Charles Babbage"]], [])


def test_openchat_marker_in_any_case_and_single_quoted_lists():
    assert extract_triples(OPENCHAT) == ([["Liffey", "flows through", "Dublin"]], [])


def test_last_marker_wins_when_a_conversation_has_several_turns():
    reply = 'USER: a ASSISTANT: ["old", "answer", "here"] USER: again ASSISTANT: ["new", "answer", "here"]'

    assert extract_triples(reply) == ([["new", "answer", "here"]], [])


def test_bracket_markers_are_exact_and_word_markers_ignore_case():
    assert answer_part("x <|assistant|> kept") == " kept"
    assert answer_part("x [/inst] kept") == "x [/inst] kept"
    assert answer_part("x Assistant: kept") == " kept"


def test_end_tokens_are_removed():
    reply = '["a", "b", "c"]<|im_end|><|endoftext|></s>'

    assert answer_part(reply) == '["a", "b", "c"]' + "   "
    assert extract_triples(reply) == ([["a", "b", "c"]], [])


def test_prose_around_a_list_in_a_markdown_fence():
    triples, warnings = extract_triples(MARKDOWN_FENCE)

    assert triples == [["Aspirin", "treats", "headache"], ["Aspirin", "is a", "drug"]]
    assert warnings == []


def test_numbered_lines_each_holding_one_list():
    triples, warnings = extract_triples(NUMBERED_LINES)

    assert triples == [
        ["Oslo", "capital of", "Norway"],
        ["Norway", "member of", "NATO"],
        ["Oslo", "located on", "Oslofjord"],
    ]
    assert warnings == []


def test_truncated_output_keeps_the_complete_triples_and_reports_where_it_stopped():
    triples, warnings = extract_triples(TRUNCATED)

    assert triples == [["Mount Everest", "located in", "Nepal"]]
    assert warnings == [f"unterminated list at character {TRUNCATED.index('[', 2)}"]


def test_escaped_double_quotes_inside_strings():
    reply = r'[["The novel \"Dracula\"", "written by", "Bram Stoker"]]'

    assert extract_triples(reply) == ([['The novel "Dracula"', "written by", "Bram Stoker"]], [])


def test_apostrophes_inside_single_quoted_strings():
    reply = (
        "[['Ireland's capital', 'is', 'Dublin'], ['O'Brien', 'born in', 'Cork'], "
        "['Smith\\'s law', 'named after', 'Smith']]"
    )

    triples, warnings = extract_triples(reply)

    assert triples == [
        ["Ireland's capital", "is", "Dublin"],
        ["O'Brien", "born in", "Cork"],
        ["Smith's law", "named after", "Smith"],
    ]
    assert warnings == []


def test_unescaped_double_quotes_inside_a_string():
    reply = '[["The "Boss" of Mars", "performed by", "Bruce Springsteen"]]'

    assert extract_triples(reply) == ([['The "Boss" of Mars', "performed by", "Bruce Springsteen"]], [])


def test_apostrophes_in_prose_do_not_unbalance_the_scan():
    reply = 'Here\'s what I\'ve found: ["Rome", "capital of", "Italy"]. That\'s all, isn\'t it?'

    assert extract_triples(reply) == ([["Rome", "capital of", "Italy"]], [])


def test_brackets_inside_strings_do_not_close_the_list():
    reply = '[["array [1]", "has element", "1]"]]'

    assert extract_triples(reply) == ([["array [1]", "has element", "1]"]], [])


def test_tuples_in_parentheses_are_not_triples():
    reply = '("Berlin", "capital of", "Germany") and [("Paris", "capital of", "France")]'

    triples, warnings = extract_triples(reply)

    assert triples == []
    assert warnings == ['dropped ("Paris", "capital of", "France"): a tuple in parentheses, not a list']


def test_short_long_empty_and_non_string_items_are_dropped_with_a_reason():
    reply = (
        '[["Paris", "capital of"], ["a", "b", "c", "d"], ["Paris", "", "France"], '
        '["Paris", 1, "France"], ["ok", "is", "kept"]]'
    )

    triples, warnings = extract_triples(reply)

    assert triples == [["ok", "is", "kept"]]
    assert warnings == [
        'dropped ["Paris", "capital of"]: expected 3 items (subject, relation, object), got 2',
        'dropped ["a", "b", "c", "d"]: expected 3 items (subject, relation, object), got 4',
        'dropped ["Paris", "", "France"]: relation is empty',
        'dropped ["Paris", 1, "France"]: relation is int, not a string',
    ]


def test_nested_lists_are_searched_recursively():
    reply = '{"triples": [[["a", "b", "c"]], [[["d", "e", "f"]]]]}'

    assert extract_triples(reply) == ([["a", "b", "c"], ["d", "e", "f"]], [])


def test_unquoted_list_is_dropped_but_well_formed_neighbours_are_kept():
    reply = '[["Paris", "capital of", "France"], [Berlin, capital of, Germany]]'

    triples, warnings = extract_triples(reply)

    assert triples == [["Paris", "capital of", "France"]]
    assert warnings == ["dropped [Berlin, capital of, Germany]: not a list of quoted strings"]


def test_elements_are_trimmed():
    assert extract_triples('["  Paris ", "capital of\\n", " France"]') == ([["Paris", "capital of", "France"]], [])


def test_duplicate_triples_are_kept_for_uniqueness_to_judge():
    reply = '["a", "b", "c"]\n["a", "b", "c"]'

    assert extract_triples(reply) == ([["a", "b", "c"], ["a", "b", "c"]], [])


def test_empty_list_and_prose_brackets_give_no_triples_and_no_warnings():
    assert extract_triples("I found no relations: []. See [1] and [Note].") == ([], [])


def test_no_list_at_all():
    assert extract_triples("The text does not state any relation.") == ([], [])


def test_code_is_never_evaluated():
    reply = '[__import__("os").system("echo hacked"), "b", "c"]'

    triples, warnings = extract_triples(reply)

    assert triples == []
    assert warnings == ['dropped [__import__("os").system("echo hacked"), "b", "c"]: not a list of quoted strings']


def test_long_dropped_items_are_shortened_in_warnings():
    reply = '["' + "word " * 40 + '", "relation"]'

    (warning,) = extract_triples(reply)[1]

    assert warning.startswith('dropped ["word word')
    assert "…" in warning
    assert len(warning) < 160


def test_deeply_nested_brackets_are_searched_down_to_the_triple():
    reply = "[" * 5000 + '["a", "b", "c"]' + "]" * 5000

    assert extract_triples(reply) == ([["a", "b", "c"]], [])
