"""The post-processor's bounds: replies read up to a size limit, warnings capped per output,
and adversarial replies read linearly (their results checked here; their speed is benchmarked
by benchmarks/postprocess_worst.py)."""

from scoring.genres.formats import read_outputs
from scoring.genres.postprocess import MAX_REPLY_CHARS, MAX_WARNINGS, ListReader, extract_triples


def test_a_reply_over_the_limit_is_read_that_far_and_says_so():
    triple = '["a", "b", "c"]\n'
    reply = triple * (MAX_REPLY_CHARS // len(triple) + 10)

    triples, warnings = extract_triples(reply)

    assert len(triples) == MAX_REPLY_CHARS // len(triple)
    assert warnings == [f"the reply has {len(reply):,} characters; only the first {MAX_REPLY_CHARS:,} were read"]


def test_the_limit_can_be_set_per_call():
    triples, warnings = extract_triples('["a", "b", "c"] ["d", "e", "f"]', max_chars=16)
    assert triples == [["a", "b", "c"]]
    assert warnings[0].startswith("the reply has 31 characters; only the first 16")


def test_warnings_are_capped_per_output_with_a_count_of_the_rest():
    reply = '["only two", "items"], ' * 1000

    triples, warnings = extract_triples(reply)

    assert triples == []
    assert len(warnings) == MAX_WARNINGS + 1
    assert warnings[0] == 'dropped ["only two", "items"]: expected 3 items (subject, relation, object), got 2'
    assert warnings[-1] == f"… and {1000 - MAX_WARNINGS:,} more warnings not kept"


def test_one_warning_over_the_cap_is_counted_in_the_singular():
    warnings = extract_triples('["x", "y"], ' * (MAX_WARNINGS + 1))[1]
    assert warnings[-1] == "… and 1 more warning not kept"


def test_repeated_unreadable_nests_give_their_warning_per_nest():
    reply = "[[[[[[[['a', b]]]]]]]]," * 3

    triples, warnings = extract_triples(reply)

    assert triples == []
    assert warnings == ["dropped ['a', b]: not a list of quoted strings"] * 3


def test_a_triple_after_a_run_of_unreadable_lists_is_still_found():
    reply = "".join(f"[x{number}, y]" for number in range(2 * ListReader.SLOW_PARSES)) + '[["s", "r", "o"]]'

    triples, warnings = extract_triples(reply)

    # Past the allowance of slow parses the rest is read as JSON only, which this triple is.
    assert triples == [["s", "r", "o"]]
    assert warnings[-1].startswith(
        f"more than {ListReader.SLOW_PARSES + int(len(reply) * ListReader.SLOW_PARSES_PER_CHAR):,} lists could not be read"
    )


def test_a_run_of_opening_brackets_is_one_unterminated_list():
    triples, warnings = extract_triples("[" * 100_000 + '["a", "b", "c"]')
    assert triples == [["a", "b", "c"]]
    assert warnings == ["unterminated list at character 99999"]


def test_single_quoted_triples_inside_an_unterminated_list_are_all_kept():
    reply = "[['a', 'b', 'c'], [" * 2000
    triples, warnings = extract_triples(reply)
    assert triples == [["a", "b", "c"]] * 2000
    assert warnings == [f"unterminated list at character {len(reply) - 1}"]


def test_lenient_imports_cap_the_warnings_of_a_record_too():
    parsed = read_outputs(b'{"A text.": [' + b", ".join([b'["two", "items"]'] * 60) + b"]}", lenient=True)
    (record,) = parsed.records
    assert len(record.warnings) == MAX_WARNINGS + 1
    assert record.warnings[-1] == "… and 10 more warnings not kept"


def test_lists_wrapping_lists_read_like_the_list_they_wrap():
    assert extract_triples("[" * 20 + "['a', 'b', 'c']" + "]" * 20) == ([["a", "b", "c"]], [])
    assert extract_triples("[[[Note]]]") == ([], [])
    assert extract_triples("[[[x, y]]]") == ([], ["dropped [x, y]: not a list of quoted strings"])
    assert extract_triples("[[1]]") == ([], ["dropped [1]: expected 3 items (subject, relation, object), got 1"])


def test_plain_quoted_lists_read_as_literal_eval_reads_them():
    reply = """['a b', "it's", 'c'], ['tab\there', 'x',\f'y',], ['line\nbreak', 'b', 'c']"""

    triples, warnings = extract_triples(reply)

    # The line break is no Python string: that list is read by re-quoting it as JSON, as before.
    assert triples == [["a b", "it's", "c"], ["tab\there", "x", "y"], ["line\nbreak", "b", "c"]]
    assert warnings == []
