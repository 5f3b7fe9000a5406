"""Turn a model's whole reply into triples.

Generative models wrap their triples in chat-template echoes, prose, markdown fences and
numbering, and sometimes stop mid-list. ``extract_triples`` keeps the answer after the
last assistant marker, removes end-of-text tokens, finds every bracketed list in what is
left, and keeps each item that is exactly three non-empty strings. Everything else it met
on the way is reported as a short, human-readable warning; nothing is ever evaluated
beyond ``json`` and ``ast.literal_eval``.

Linear in the length of the reply, whatever it holds: the scan jumps from bracket to quote
with regular expressions, each character is parsed as part of at most ``MAX_NESTING`` lists,
a reply longer than ``MAX_REPLY_CHARS`` is read only that far (with a warning saying so), and
an output keeps its first ``MAX_WARNINGS`` warnings and the count of the rest.
"""

import ast
import json
import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any

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
# What the scan stops at outside a string, and inside a string of each quote.
LIST_EVENT = re.compile(r"\[+|\]+|[\"']")
STRING_EVENT = {quote: re.compile(r"[\\" + quote + "]") for quote in QUOTES}

# Triples nest two or three lists deep. Deeper lists are not parsed whole but searched
# inside, which keeps a reply of a million brackets linear instead of quadratic.
MAX_NESTING = 8
SHOWN_CHARS = 80
UNPARSABLE_LIST = "not a list of quoted strings"
# Deeply nested input makes the parsers give up with RecursionError or MemoryError.
PARSE_ERRORS = (ValueError, SyntaxError, TypeError, RecursionError, MemoryError)
# About 50,000 tokens, far beyond any extraction a model writes; a longer reply is read this far.
MAX_REPLY_CHARS = 200_000
# One reply of repeated junk once made 83,333 warnings; an output keeps this many and a count.
MAX_WARNINGS = 50


class Warnings:
    """The warnings about the lists of one reply: the first ``limit`` kept, the rest only counted."""

    def __init__(self, limit: int = MAX_WARNINGS) -> None:
        self.kept: list[str] = []
        self.limit, self.more = limit, 0

    def add(self, describe: Callable[[], str]) -> None:
        """Keep the message ``describe()`` returns; past the limit it is only counted, never formatted."""
        if len(self.kept) < self.limit:
            self.kept.append(describe())
        else:
            self.more += 1

    def as_list(self, before: Sequence[str] = (), after: Sequence[str] = ()) -> list[str]:
        """The kept warnings and the count of the rest, between warnings about the whole reply."""
        rest = [f"… and {self.more:,} more warning{'' if self.more == 1 else 's'} not kept"] if self.more else []
        return [*before, *self.kept, *rest, *after]


def extract_triples(reply: str, max_chars: int = MAX_REPLY_CHARS) -> tuple[list[list[str]], list[str]]:
    """The triples in ``reply`` and a warning for each thing dropped on the way."""
    warnings = Warnings()
    before: list[str] = []
    after: list[str] = []
    if len(reply) > max_chars:
        before.append(f"the reply has {len(reply):,} characters; only the first {max_chars:,} were read")
        reply = reply[:max_chars]
    answer = answer_part(reply)
    roots, strings, unterminated = scan_lists(answer)
    reader = ListReader(answer, strings)
    triples: list[list[str]] = []
    pending = list(reversed(roots))
    while pending:
        span = pending.pop()
        value = reader.value(span, outermost=True)
        if value is PROSE:
            continue
        if value is not UNPARSED:
            collect(value, triples, warnings)
        elif span.children:
            # A broken outer list may still hold well-formed triples: look inside.
            pending.extend(reversed(span.children))
        else:
            warnings.add(lambda: f"dropped {shorten(reader.source(span))}: {UNPARSABLE_LIST}")
    if reader.slow_parses_left < 0:
        after.append(f"more than {reader.slow_allowance:,} lists could not be read: the rest was read as JSON only")
    if unterminated is not None:
        after.append(f"unterminated list at character {unterminated}")
    return triples, warnings.as_list(before, after)


def answer_part(reply: str) -> str:
    """What follows the last assistant marker, without end-of-text tokens."""
    markers = list(ASSISTANT_MARKER.finditer(reply))
    if markers:
        reply = reply[markers[-1].end() :]
    return END_TOKEN.sub(" ", reply)


class Span:
    """A bracketed list found in the reply: ``text[start:end]``, and the lists closed inside it.

    ``height`` is 1 for a list of no lists, 2 for a list of those, and so on; ``value`` is what
    ListReader made of it, once it has read it. Slots: a reply of brackets makes one per character.
    """

    __slots__ = ("start", "end", "children", "height", "value")

    def __init__(self, start: int, end: int, children: "list[Span]", height: int) -> None:
        self.start, self.end, self.children, self.height = start, end, children, height
        self.value: Any = None


def scan_lists(text: str) -> tuple[list[Span], list[tuple[int, int]], int | None]:
    """One pass of quote-aware bracket matching.

    Returns the outermost closed lists (in order), the (start, end) of every quoted string
    inside a list, and the position of the innermost list left open at the end (or None).
    Quotes count only inside brackets, so prose apostrophes never unbalance the scan.
    """
    roots: list[Span] = []
    strings: list[tuple[int, int]] = []
    # The lists open at this point, innermost last: where each starts, the lists closed inside
    # it so far (None for none yet) and its height. Plain lists: a run of "[" costs C time only.
    starts: list[int] = []
    children: list[Any] = []  # a list of Span, or None for none yet
    heights: list[int] = []
    position, reading = 0, True
    end: int | None
    while reading:
        reading = False
        for match in LIST_EVENT.finditer(text, position):
            start, end = match.span()
            char = text[start]
            if char == "[":
                starts.extend(range(start, end))
                children.extend([None] * (end - start))
                heights.extend([1] * (end - start))
            elif char == "]":
                for close in range(start + 1, min(end, start + len(starts)) + 1):
                    span = Span(starts.pop(), close, children.pop() or [], heights.pop())
                    if starts:
                        if children[-1] is None:
                            children[-1] = []
                        children[-1].append(span)
                        heights[-1] = max(heights[-1], span.height + 1)
                    else:
                        roots.append(span)
            elif starts and visible_before(text, start) in BEFORE_STRING:
                end = string_end(text, start)
                if end is not None:
                    strings.append((start, end))
                    position, reading = end, True
                break  # Scanning goes on after the string, or ends inside it.
    # Lists closed inside a list that never closes (a cut-off reply) still count.
    for inner in children:
        roots.extend(inner or ())
    roots.sort(key=lambda span: span.start)
    unterminated = starts[-1] if starts else None
    return roots, strings, unterminated


def visible_before(text: str, position: int) -> str:
    """The last non-space character before ``position``, or "" at the start.

    Scanned backwards over spaces only, which a quote (what asks) ends: linear overall.
    """
    while position > 0:
        position -= 1
        if not text[position].isspace():
            return text[position]
    return ""


def string_end(text: str, start: int) -> int | None:
    """The end of the string opened by the quote at ``start``: after a matching quote followed
    by one of AFTER_STRING, skipping backslash escapes; None when the text ends first."""
    event = STRING_EVENT[text[start]]
    position = start + 1
    while match := event.search(text, position):
        if match.group() == "\\":
            position = match.start() + 2
        elif next_visible(text, match.start() + 1) in AFTER_STRING:
            return match.end()
        else:
            position = match.end()
    return None


def next_visible(text: str, position: int) -> str:
    """The next non-space character from ``position``; "," at the end, which closes any string."""
    match = NEXT_VISIBLE.search(text, position)
    return match.group() if match else ","


UNPARSED = object()
PROSE = object()  # brackets without a comma ("[1]", "[Note]"): not an attempted triple


class ListReader:
    """Reads the lists the scan found into Python values, in time linear in the reply.

    Each list is read with JSON first, then as Python literals (single quotes, tuples), then
    with every string the scanner found re-quoted as JSON, for quotes neither parser accepts.
    Three things keep junk from costing more than a few parses per character:

    - a list holding a list that no parser reads cannot be read either, so it is not tried
      (the outermost list still gets its quick JSON attempt first, the usual whole answer);
    - a list whose text failed before fails again without being parsed;
    - the two slow parsers may both fail ``slow_allowance`` times per reply (a normal reply
      has a few unreadable lists); past that, lists are read as JSON only, and a warning says so.
    """

    SLOW_PARSES = 1000
    SLOW_PARSES_PER_CHAR = 1 / 100

    def __init__(self, text: str, strings: list[tuple[int, int]]) -> None:
        self.text, self.strings = text, strings
        self.unreadable: set[str] = set()
        self.slow_allowance = self.SLOW_PARSES + int(len(text) * self.SLOW_PARSES_PER_CHAR)
        self.slow_parses_left = self.slow_allowance

    def source(self, span: Span) -> str:
        return self.text[span.start : span.end]

    def value(self, span: Span, outermost: bool = False) -> Any:
        """The value of ``span``, UNPARSED, or PROSE; worked out once."""
        if span.value is None:
            span.value = self.read(span, outermost)
        return span.value

    def read(self, span: Span, outermost: bool) -> Any:
        if not span.children and self.text.find(",", span.start, span.end) < 0:
            return PROSE
        if span.height > MAX_NESTING:
            return UNPARSED  # Searched inside instead: parsing every level would be quadratic.
        source = self.source(span)
        if source in self.unreadable:
            return UNPARSED
        value = UNPARSED
        if outermost:
            value = parse_json(source)
        if value is UNPARSED and not any(self.value(child) is UNPARSED for child in span.children):
            value = self.parse(source, span, json_tried=outermost)
        if value is UNPARSED:
            self.unreadable.add(source)
        return value

    def parse(self, source: str, span: Span, json_tried: bool) -> Any:
        value = UNPARSED if json_tried else parse_json(source)
        if value is not UNPARSED:
            return value
        if self.slow_parses_left < 0:
            return UNPARSED
        try:
            return ast.literal_eval(source)
        except PARSE_ERRORS:
            value = parse_json(requoted(self.text, span, self.strings))
        if value is UNPARSED:
            self.slow_parses_left -= 1
        return value


def parse_json(source: str) -> Any:
    try:
        return json.loads(source)
    except PARSE_ERRORS:
        return UNPARSED


def requoted(text: str, span: Span, strings: list[tuple[int, int]]) -> str:
    """``text[span]`` with each quoted string rewritten as a JSON string."""
    pieces: list[str] = []
    cursor = span.start
    # Indexes, not a slice of ``strings``: a slice would copy the rest of the list for every span.
    for index in range(bisect_left(strings, (span.start, 0)), len(strings)):
        start, end = strings[index]
        if start >= span.end:
            break
        quote = text[start]
        content = text[start + 1 : end - 1].replace("\\" + quote, quote)
        pieces.append(text[cursor:start])
        pieces.append(json.dumps(content, ensure_ascii=False))
        cursor = end
    pieces.append(text[cursor : span.end])
    return "".join(pieces)


def collect(value: Any, triples: list[list[str]], warnings: Warnings) -> None:
    """Add the triples in a parsed list to ``triples``; a warning for every other item."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, tuple):
            warnings.add(lambda: f"dropped {show(item)}: a tuple in parentheses, not a list")
        elif isinstance(item, list) and any(isinstance(inner, (list, tuple)) for inner in item):
            pending.extend(reversed(item))
        elif item == []:
            continue  # "[]" says "no triples here"; nothing was dropped.
        elif problem := triple_problem(item):
            warnings.add(lambda: f"dropped {show(item)}: {problem}")
        else:
            triples.append(clean_triple(item))


def show(value: Any) -> str:
    """A short rendering of a dropped value; tuples keep their parentheses."""
    if isinstance(value, tuple):
        rendered = "(" + ", ".join(show(item) for item in value) + ")"
    elif isinstance(value, list):
        rendered = "[" + ", ".join(show(item) for item in value) + "]"
    else:
        rendered = json.dumps(value, ensure_ascii=False, default=repr)
    return shorten(rendered)


def shorten(text: str) -> str:
    # Warnings are stored: a NUL or lone surrogate the reply's escapes produced must not reach them.
    text = storable(" ".join(text.split()))
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"
