"""Fuzzing the import service and the post-processor with generated files (hypothesis).

Whatever the file, an import either succeeds or raises ImportRefused and stores nothing (the
refusal's Upload row aside); the post-processor never raises and returns only triples and
warnings that every database can store.
"""

import itertools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.genres.postprocess import MAX_WARNINGS, extract_triples
from scoring.genres.triples import triple_problem, unstorable_problem
from scoring.imports import ImportRefused, import_dataset, import_outputs
from tests.scoring.import_fixtures import as_file, make_people_dataset, snapshot

pytestmark = pytest.mark.django_db

# Any character, lone surrogates and NUL included, with the ones that shape lists made common.
TEXT = st.text(st.characters(codec=None) | st.sampled_from(list("[]'\",\\\x00\ud800 ")), max_size=30)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=20,
)
TRIPLES = st.lists(st.lists(TEXT, min_size=2, max_size=4), max_size=3)
DATASET_LINES = st.fixed_dictionaries({"text": TEXT, "triples": TRIPLES}, optional={"id": TEXT | st.integers()})
OUTPUT_LINES = st.fixed_dictionaries(
    {}, optional={"id": TEXT | st.integers(), "text": TEXT, "triples": TRIPLES, "raw": TEXT}
)


def nested(depth):
    return "[" * depth + "]" * depth


def encoded(document, ensure_ascii):
    # ASCII escapes carry lone surrogates and NUL into the file as JSON escapes; the raw form
    # cannot be encoded as UTF-8 at all, and is sent with surrogates passed through as bytes.
    return json.dumps(document, ensure_ascii=ensure_ascii).encode("utf-8", "surrogatepass")


FILES = st.one_of(
    st.binary(max_size=200),
    st.builds(encoded, st.dictionaries(TEXT, TRIPLES | JSON_VALUES, max_size=4), st.booleans()),
    st.builds(lambda lines: b"\n".join(encoded(line, True) for line in lines), st.lists(DATASET_LINES, max_size=4)),
    st.builds(lambda lines: b"\n".join(encoded(line, True) for line in lines), st.lists(OUTPUT_LINES, max_size=4)),
    st.builds(lambda depth: f'{{"A text.": {nested(depth)}}}'.encode(), st.integers(0, 3000)),
    st.builds(lambda digits: f'{{"id": {"9" * digits}, "text": "x", "triples": []}}'.encode(), st.integers(1, 6000)),
    st.builds(
        lambda rows: ("text_id,subject,relation,object\n" + "\n".join(rows)).encode("utf-8", "surrogatepass"),
        st.lists(st.lists(TEXT, min_size=1, max_size=5).map(",".join), max_size=4),
    ),
)
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
names = (f"Fuzz {number}" for number in itertools.count())


def imports_or_refuses(run):
    before = snapshot()
    try:
        run()
    except ImportRefused:
        assert snapshot() == before


@FUZZ
@given(data=FILES)
def test_a_generated_dataset_file_imports_or_is_refused_cleanly(data):
    imports_or_refuses(lambda: import_dataset(as_file(data), file_name="fuzz.json", name=next(names)))


@FUZZ
@given(data=FILES, lenient=st.booleans())
def test_a_generated_outputs_file_imports_or_is_refused_cleanly(data, lenient):
    dataset = make_people_dataset() if not snapshot()["datasets"] else "People"
    imports_or_refuses(
        lambda: import_outputs(
            as_file(data), file_name="fuzz.json", dataset=dataset, system_name=next(names), lenient=lenient
        )
    )


REPLY = st.text(st.sampled_from(list("[]()'\",: \\\nab\x00\ud800")) | st.characters(codec=None), max_size=400)


@settings(max_examples=400, deadline=None)
@given(reply=REPLY | st.lists(REPLY, max_size=20).map("".join))
def test_the_post_processor_returns_only_storable_triples_and_warnings(reply):
    triples, warnings = extract_triples(reply)
    assert all(triple_problem(triple) is None for triple in triples)
    assert all(unstorable_problem(warning) is None for warning in warnings)
    assert len(warnings) <= MAX_WARNINGS + 3  # kept ones, the count of the rest, two about the reply
