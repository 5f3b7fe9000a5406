"""The ``heuristic`` judge: offline rules, no LLM; its scores are labelled heuristic everywhere."""

import re
import unicodedata
from collections.abc import Iterable
from itertools import product

from scoring.genres import prompts
from scoring.genres.judges.base import OfflineJudge, Pairs, SplitVerdict, SupportVerdict
from scoring.genres.triples import Triple

# Function words carry no content to look for in the text.
STOPWORDS = frozenset(
    "a an the of in on at to for by with from into as and or but is are was were be been being "
    "has have had do does did its it this that these those which who whom whose than then".split()
)
# Words are compared on their first six letters: a crude stem that makes "founded" meet
# "founder" and "located" meet "location" without a lemmatiser.
STEM_LENGTH = 6
# Subject and object: at least half their content words must occur in the text ("Barack
# Obama" is found in a text that only says "Obama"). The relation is not required: extractors
# name relations in their own vocabulary ("located in" for "hangs in", "spouse" for "was
# married to"), and requiring its words rejected most gold triples of the demo data. Its
# coverage is still reported in the verdict.
ENTITY_MIN_COVERAGE = 0.5

_WORDS = re.compile(r"\w+")
_SEMICOLON = re.compile(r"\s*;\s*")
_CONJUNCTION = re.compile(r"\s*,?\s+(?:and|as well as|&)\s+", re.IGNORECASE)
# A comma followed by a space separates list items; "1,000" has no space and stays whole.
_LIST_COMMA = re.compile(r"\s*,\s+")


def fold(text: str) -> str:
    """Case- and accent-free text: "Zürich" and "zurich" compare equal."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(character for character in decomposed if not unicodedata.combining(character))


def _stems(words: Iterable[str]) -> set[str]:
    return {word[:STEM_LENGTH] for word in words}


def coverage(element: str, folded_text: str, text_stems: set[str]) -> float:
    """Share of an element's content words found in the text (all its words if it has no
    content word; for an element without any word, 1 or 0 as it occurs verbatim or not)."""
    words = _WORDS.findall(fold(element))
    if not words:
        return float(fold(element).strip() in folded_text)
    content = [word for word in words if word not in STOPWORDS] or words
    return sum(word[:STEM_LENGTH] in text_stems for word in content) / len(content)


def conjuncts(phrase: str) -> list[str]:
    """The items of a coordinated list: "A, B and C", "A as well as B", "A; B" -> parts."""
    parts: list[str] = []
    for segment in _SEMICOLON.split(phrase):
        pieces = _CONJUNCTION.split(segment)
        if len(pieces) > 1:  # commas separate items only in a list closed by a conjunction
            pieces = [item for piece in pieces for item in _LIST_COMMA.split(piece)]
        parts.extend(piece.strip() for piece in pieces if piece.strip())
    return parts or [phrase.strip()]


class HeuristicJudge(OfflineJudge):
    """Offline rules instead of an LLM; every score it gives is marked heuristic.

    Support: subject and object must each have at least ``ENTITY_MIN_COVERAGE`` of their
    content words in the text; words are case-, accent- and stopword-normalised and compared
    on ``STEM_LENGTH``-letter prefixes. It catches invented entities, not a wrong relation
    between entities the text does mention: an LLM judge is needed for that.
    Split: a coordinated list in the subject or the object ("A, B and C", "A and B",
    "A as well as B", "A; B") splits the triple into one triple per combination of items.
    """

    name = "heuristic"
    model = "content-word-overlap"
    prompt_version = "rules-2"
    heuristic = True

    def check_support(self, pairs: Pairs) -> list[SupportVerdict]:
        return [self._support(text, triple) for text, triple in pairs]

    def _support(self, text: str, triple: Triple) -> SupportVerdict:
        folded = fold(text)
        stems = _stems(_WORDS.findall(folded))
        subject, relation, object_ = (coverage(element, folded, stems) for element in triple)
        supported = subject >= ENTITY_MIN_COVERAGE and object_ >= ENTITY_MIN_COVERAGE
        reply = f"content words found: subject {subject:.0%}, relation {relation:.0%}, object {object_:.0%}"
        return SupportVerdict(supported=supported, parsed=True, reply=reply)

    def split(self, pairs: Pairs) -> list[SplitVerdict]:
        return [self._split(triple) for _text, triple in pairs]

    def _split(self, triple: Triple) -> SplitVerdict:
        subject, relation, object_ = triple
        subjects, objects = conjuncts(subject), conjuncts(object_)
        sub_triples = [[s, relation, o] for s, o in product(subjects, objects)]
        count = len(sub_triples)
        # The finer triples are written out as an LLM judge writes them, so that the reference
        # rules, which count bracketed triples in the reply, read this reply alike.
        listed = "\n".join(prompts.show_triple(sub_triple) for sub_triple in sub_triples)
        reply = f"{len(subjects)} subject item(s) x {len(objects)} object item(s)\n{listed}"
        return SplitVerdict(n=prompts.finer_triples(count), sub_triples=sub_triples, reply=reply)
