"""Turn a model's whole reply into triples.

Generative models wrap their triples in chat-template echoes, prose, markdown fences and
numbering, and sometimes stop mid-list. ``extract_triples`` keeps the answer after the
last assistant marker, removes end-of-text tokens, finds every bracketed list in what is
left, and keeps each item that is exactly three non-empty strings. Everything else it met
on the way is reported as a short, human-readable warning; nothing is ever evaluated
beyond ``json`` and ``ast.literal_eval``.
"""

import ast
import json
import re
from bisect import bisect_left
from dataclasses import dataclass, field

from scoring.genres.triples import clean_triple, storable, triple_problem

# The answer follows the last of these; the bracket tokens are exact, the word forms any case.
ASSISTANT_MARKER = re.compile(r"\[/INST\]|<\|assistant\|>|(?i:GPT4 Correct Assistant:|ASSISTANT:)")
# OpenChat ends its turns with <|end_of_turn|>, next to the usual end-of-text tokens.
END_TOKEN = re.compile(r"</s>|<\|endoftext\|>|<\|im_end\|>|<\|eot_id\|>|<\|end_of_turn\|>")

# A quote opens a string only after one of these, and closes it only before one of these
# (or the end of the reply). That keeps apostrophes in prose and inside single-quoted
# strings ('Ireland's capital') from being mistaken for string boundaries.
BEFORE_STRING = frozenset("[,(:{")
AFTER_STRING = frozenset(",])}:")
QUOTES = frozenset("\"'")
NEXT_VISIBLE = re.compile(r"\S")

# Triples nest two or three lists deep. Deeper lists are not parsed whole but searched
# inside, which keeps a reply of a million brackets linear instead of quadratic.
MAX_NESTING = 8
SHOWN_CHARS = 80
UNPARSABLE_LIST = "not a list of quoted strings"
# Deeply nested input makes the parsers give up with RecursionError or MemoryError.
PARSE_ERRORS = (ValueError, SyntaxError, TypeError, RecursionError, MemoryError)


def extract_triples(reply):
    """The triples in ``reply`` and a warning for each thing dropped on the way."""
    answer = answer_part(reply)
    roots, strings, unterminated = scan_lists(answer)
    triples, warnings = [], []
    pending = list(reversed(roots))
    while pending:
        span = pending.pop()
        source = answer[span.start : span.end]
        if not span.children and "," not in source:
            continue  # Brackets without a comma are prose ("[1]", "[Note]"), not an attempted triple.
        if span.height > MAX_NESTING:
            pending.extend(reversed(span.children))
            continue
        value = parse_list(source, span, strings, answer)
        if value is not UNPARSED:
            collect(value, triples, warnings)
        elif span.children:
            # A broken outer list may still hold well-formed triples: look inside.
            pending.extend(reversed(span.children))
        else:
            warnings.append(f"dropped {shorten(source)}: {UNPARSABLE_LIST}")
    if unterminated is not None:
        warnings.append(f"unterminated list at character {unterminated}")
    return triples, warnings


def answer_part(reply):
    """What follows the last assistant marker, without end-of-text tokens."""
    markers = list(ASSISTANT_MARKER.finditer(reply))
    if markers:
        reply = reply[markers[-1].end() :]
    return END_TOKEN.sub(" ", reply)


@dataclass
class Span:
    """A bracketed list found in the reply: ``text[start:end]``, and the lists closed inside it."""

    start: int
    end: int = -1
    children: list = field(default_factory=list)
    height: int = 1  # 1 for a list of no lists, 2 for a list of those, and so on


def scan_lists(text):
    """One pass of quote-aware bracket matching.

    Returns the outermost closed lists (in order), the (start, end) of every quoted string
    inside a list, and the position of the innermost list left open at the end (or None).
    Quotes count only inside brackets, so prose apostrophes never unbalance the scan.
    """
    roots, strings, open_lists = [], [], []
    quote = None
    string_start = 0
    previous = ""
    position, length = 0, len(text)
    while position < length:
        char = text[position]
        if quote:
            if char == "\\":
                position += 2
                continue
            if char == quote and next_visible(text, position + 1) in AFTER_STRING:
                quote = None
                strings.append((string_start, position + 1))
                previous = char
            position += 1
            continue
        if char == "[":
            open_lists.append(Span(position))
        elif char == "]" and open_lists:
            span = open_lists.pop()
            span.end = position + 1
            span.height = 1 + max((child.height for child in span.children), default=0)
            (open_lists[-1].children if open_lists else roots).append(span)
        elif char in QUOTES and open_lists and previous in BEFORE_STRING:
            quote = char
            string_start = position
        if not char.isspace():
            previous = char
        position += 1
    # Lists closed inside a list that never closes (a cut-off reply) still count.
    for span in open_lists:
        roots.extend(span.children)
    roots.sort(key=lambda span: span.start)
    unterminated = open_lists[-1].start if open_lists else None
    return roots, strings, unterminated


def next_visible(text, position):
    """The next non-space character from ``position``; "," at the end, which closes any string."""
    match = NEXT_VISIBLE.search(text, position)
    return match.group() if match else ","


UNPARSED = object()


def parse_list(source, span, strings, text):
    """The Python value of ``source``, the bracketed list at ``span`` of ``text``, or UNPARSED.

    JSON first, then Python literals (single quotes, tuples), then the same text with every
    string the scanner found re-quoted as JSON, for quotes that neither parser accepts.
    """
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(source)
        except PARSE_ERRORS:
            pass
    try:
        return json.loads(requoted(text, span, strings))
    except PARSE_ERRORS:
        return UNPARSED


def requoted(text, span, strings):
    """``text[span]`` with each quoted string rewritten as a JSON string."""
    pieces, cursor = [], span.start
    first = bisect_left(strings, (span.start, 0))
    for start, end in strings[first:]:
        if start >= span.end:
            break
        quote = text[start]
        content = text[start + 1 : end - 1].replace("\\" + quote, quote)
        pieces.append(text[cursor:start])
        pieces.append(json.dumps(content, ensure_ascii=False))
        cursor = end
    pieces.append(text[cursor : span.end])
    return "".join(pieces)


def collect(value, triples, warnings):
    """Add the triples in a parsed list to ``triples``; a warning for every other item."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, tuple):
            warnings.append(f"dropped {show(item)}: a tuple in parentheses, not a list")
        elif isinstance(item, list) and any(isinstance(inner, (list, tuple)) for inner in item):
            pending.extend(reversed(item))
        elif item == []:
            continue  # "[]" says "no triples here"; nothing was dropped.
        elif problem := triple_problem(item):
            warnings.append(f"dropped {show(item)}: {problem}")
        else:
            triples.append(clean_triple(item))


def show(value):
    """A short rendering of a dropped value; tuples keep their parentheses."""
    if isinstance(value, tuple):
        rendered = "(" + ", ".join(show(item) for item in value) + ")"
    elif isinstance(value, list):
        rendered = "[" + ", ".join(show(item) for item in value) + "]"
    else:
        rendered = json.dumps(value, ensure_ascii=False, default=repr)
    return shorten(rendered)


def shorten(text):
    # Warnings are stored: a NUL or lone surrogate the reply's escapes produced must not reach them.
    text = storable(" ".join(text.split()))
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"
