"""The two rule sets a scoring run can follow: the app's own, and the reference rules.

``app`` (the default) is the rule set of docs/metrics.md. ``reference`` follows what the
GENRES authors' released code computes, so that their published tables can be reproduced
from their released files. It differs from ``app`` in these places (docs/metrics.md lists why
the app's own default is what it is):

- granularity: n is the number of bracketed sub-triples in the judge's reply
  (``prompts.bracketed_sub_triples``: the smaller of the counts of "[" and "]"), n = 1 counting as 0; a
  text's mean runs over its distinct triples (the authors keep one reply per triple's JSON);
  a text with no triples has no granularity (None), so it is left out of the system mean;
- tokens per triple: word tokens (punctuation split off, ``NLTKWordTokenizer``) instead of
  whitespace tokens; a text with no triples counts as 0 instead of being left out;
- malformed items (three elements of which one is empty or not a string) are counted where
  the authors counted them: in the number of triples, in tokens per triple (an item with a
  non-string element as 0 tokens), and, when its three elements are strings or numbers,
  judged for factualness and granularity like any triple (``judged_item``).

- an output with no triples: uniqueness 1 instead of 0 (``similarity.reference_uniqueness``), and
  topical similarity that of an empty document, the prior mixture, instead of 0
  (``TopicModel.reference_topical_similarity``).

Everything else (ts and us of an output with triples, cs, P/R/F1, fs per text) is the same under both.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from scoring.genres.prompts import bracketed_sub_triples, finer_triples
from scoring.genres.stats import tokens_per_triple
from scoring.genres.triples import Triple

if TYPE_CHECKING:
    from nltk.tokenize import NLTKWordTokenizer

APP = "app"
REFERENCE = "reference"
RULES = (APP, REFERENCE)
RULE_LABELS = {APP: "app rules", REFERENCE: "reference rules (the GENRES authors' code)"}


@cache
def word_tokenizer() -> NLTKWordTokenizer:
    """The Treebank-style tokenizer behind nltk's word_tokenize, without its sentence splitting
    (which needs the punkt model, a download): a triple element is one short phrase.

    Its patterns are compiled with the standard library's ``re``: nltk routes them through the
    ``regex`` engine under a timeout (a guard against patterns a caller supplies), which costs
    milliseconds per phrase and dominated a benchmark's scoring; these fixed patterns are the ones
    nltk used with ``re`` before, and give the same tokens (tests/scoring/test_reference_rules.py).
    """
    from nltk.tokenize import NLTKWordTokenizer  # here, not at start-up: nltk takes 1.5 s to import

    tokenizer = NLTKWordTokenizer()
    for name in ("STARTING_QUOTES", "PUNCTUATION", "CONVERT_PARENTHESES", "ENDING_QUOTES"):
        setattr(
            tokenizer,
            name,
            [(_plain_pattern(pattern), replacement) for pattern, replacement in getattr(tokenizer, name)],
        )
    for name in ("PARENS_BRACKETS", "DOUBLE_DASHES"):
        pattern, replacement = getattr(tokenizer, name)
        setattr(tokenizer, name, (_plain_pattern(pattern), replacement))
    for name in ("CONTRACTIONS2", "CONTRACTIONS3"):
        setattr(tokenizer, name, [_plain_pattern(pattern) for pattern in getattr(tokenizer, name)])
    return tokenizer


def _plain_pattern(pattern: Any) -> re.Pattern[str]:
    return re.compile(pattern.pattern, pattern.flags & (re.IGNORECASE | re.UNICODE | re.MULTILINE | re.DOTALL))


def check_rules(rules: str) -> None:
    if rules not in RULES:
        raise ValueError(f"rules must be one of {', '.join(RULES)}, not {rules!r}")


def reference_split_score(reply: str) -> float:
    """e^(-n) of one granularity reply under the reference rules, n = 1 counting as 0."""
    return math.exp(-finer_triples(bracketed_sub_triples(reply)))


def reference_granularity(items: Sequence[Sequence[object]], replies: Sequence[str]) -> float | None:
    """gs of one text under the reference rules: the mean over its distinct items of their reply's
    score (the first reply of an item given twice); None when the text has no item."""
    first_reply: dict[tuple[str, ...], str] = {}
    for item, reply in zip(items, replies, strict=True):
        first_reply.setdefault(tuple(map(repr, item)), reply)
    if not first_reply:
        return None
    return sum(reference_split_score(reply) for reply in first_reply.values()) / len(first_reply)


# What a malformed item of the authors' files is made of (JSON scalars); a longer element than
# this is no phrase, and NUL cannot be stored by PostgreSQL.
MAX_MALFORMED_ELEMENT_CHARS = 2000


def countable_malformed(item: object) -> bool:
    """A dropped item the reference rules count: three elements, each a string (possibly empty),
    a finite number or null. Items of another length never reach the authors' scoring (it
    unpacks three)."""
    if not isinstance(item, list) or len(item) != 3:
        return False
    return all(_storable_scalar(element) for element in item)


def _storable_scalar(element: object) -> bool:
    if isinstance(element, str):
        return "\x00" not in element and len(element) <= MAX_MALFORMED_ELEMENT_CHARS
    if isinstance(element, float):
        return math.isfinite(element)  # JSON columns refuse NaN and infinities
    return element is None or (isinstance(element, int) and not isinstance(element, bool))


def judgeable(item: Sequence[object]) -> bool:
    """Three strings (a triple, or a malformed item with an empty element): what a judge can read
    and the tokenizer count."""
    return len(item) == 3 and all(isinstance(element, str) for element in item)


def judged_item(item: Sequence[object]) -> tuple[str, ...] | None:
    """What a judge reads of an item under the reference rules: its three elements as strings, a
    number written as in JSON (the authors' prompts hold the item's JSON, so their judge read
    ``["Film", "released in", 1927]`` like any triple); None for an item no judge is asked about
    (another length, null, true or false, a list, a non-finite number)."""
    if len(item) != 3:
        return None
    judged = []
    for element in item:
        if isinstance(element, str):
            judged.append(element)
        elif isinstance(element, int | float) and not isinstance(element, bool) and math.isfinite(element):
            judged.append(json.dumps(element))
        else:
            return None
    return tuple(judged)


def word_tokens_in_item(item: Sequence[object]) -> int:
    """Word tokens of subject, relation and object; 0 for an item with a non-string element."""
    if not judgeable(item):
        return 0
    return sum(word_tokens(element) for element in item)


@lru_cache(maxsize=100_000)
def word_tokens(element: str) -> int:
    """Word tokens of one element; kept, as relations and entities recur across a benchmark's
    outputs and the Treebank tokenizer's regular expressions cost milliseconds per phrase."""
    return len(word_tokenizer().tokenize(element))


def output_statistics(
    triples: Sequence[Triple], malformed: Sequence[Sequence[object]] = (), rules: str = APP
) -> tuple[int, float | None]:
    """(triples counted, tokens per triple) of one output under ``rules``.

    App rules: valid triples only, whitespace tokens, None without a triple (not applicable).
    Reference rules: malformed items too, word tokens, 0 without an item.
    """
    if rules == REFERENCE:
        items = [*triples, *malformed]
        if not items:
            return 0, 0.0
        return len(items), sum(word_tokens_in_item(item) for item in items) / len(items)
    return len(triples), tokens_per_triple(triples)
