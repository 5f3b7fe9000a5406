"""Turn a model's whole reply into triples.

Generative models wrap their triples in chat-template echoes, prose, markdown fences and
numbering, and sometimes stop mid-list. ``extract_triples`` keeps the answer after the
last assistant marker, removes end-of-text tokens, finds every bracketed list in what is
left, and keeps each item that is exactly three non-empty strings. Everything else it met
on the way is reported as a short, human-readable warning; nothing is ever evaluated
beyond ``json`` and ``ast.literal_eval``.

Linear in the length of the reply, whatever it holds: one regular expression takes the scan
from run of brackets to run of brackets, reading each quoted string whole, and a run of lists
each wrapping the next is kept as one; each character is parsed as part of at most ``MAX_NESTING`` lists,
a reply longer than ``MAX_REPLY_CHARS`` is read only that far (with a warning saying so), and
an output keeps its first ``MAX_WARNINGS`` warnings and the count of the rest.
"""

import ast
import json
import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any, TypeVarTuple

from scoring.genres.triples import clean_triple, storable, triple_problem

# The answer follows the last of these; the bracket tokens are exact, the word forms any case.
ASSISTANT_MARKER = re.compile(r"\[/INST\]|<\|assistant\|>|(?i:GPT4 Correct Assistant:|ASSISTANT:)")
# OpenChat ends its turns with <|end_of_turn|>, next to the usual end-of-text tokens.
END_TOKEN = re.compile(r"</s>|<\|endoftext\|>|<\|im_end\|>|<\|eot_id\|>|<\|end_of_turn\|>")

# A quote opens a string only after one of these, and closes it only before one of these
# (or the end of the reply). That keeps apostrophes in prose and inside single-quoted
# strings ('Ireland's capital') from being mistaken for string boundaries.
BEFORE_STRING = "[,(:{"
AFTER_STRING = ",])}:"
# The rest of a string after its opening quote: escaped characters, quotes not followed by one
# of AFTER_STRING, anything else; then the closing quote. Possessive: no backtracking.
AFTER_CLOSING_QUOTE = rf"\s*+(?:[{re.escape(AFTER_STRING)}]|\Z)"  # Or the end of the reply.
STRING = "|".join(
    rf"{quote}(?:[^\\{quote}]++|\\[\s\S]|{quote}(?!{AFTER_CLOSING_QUOTE}))*+{quote}(?={AFTER_CLOSING_QUOTE})"
    for quote in "'\""
)
# What the scan stops at: outside every list, a run of "["; inside one, runs of either
# bracket, and a whole quoted string (its brackets are text), or a string that never closes.
OPENING = re.compile(r"\[+")
LIST_EVENT = re.compile(
    rf"(?P<opening>\[+)|(?P<closing>\]+)"
    rf"|(?<=[{re.escape(BEFORE_STRING)}])\s*+(?:(?P<string>{STRING})|(?P<unclosed_string>['\"]))"
)

# Triples nest two or three lists deep. Deeper lists are not parsed whole but searched
# inside, which keeps a reply of a million brackets linear instead of quadratic.
MAX_NESTING = 8
SHOWN_CHARS = 80
UNPARSABLE_LIST = "not a list of quoted strings"
# The usual single-quoted triple, read without ast.literal_eval: strings with no backslash, no
# line break and no NUL (which a Python string literal cannot hold), separated by commas.
FLAT_ITEM = re.compile(r"'[^'\\\n\r\x00]*'|\"[^\"\\\n\r\x00]*\"")
FLAT_SPACE = r"[ \t\n\r\f]*"  # What Python reads as space between a list's items; \s is wider.
FLAT_LIST = re.compile(
    rf"\[{FLAT_SPACE}(?:(?:{FLAT_ITEM.pattern}){FLAT_SPACE}(?:,{FLAT_SPACE}(?:{FLAT_ITEM.pattern}){FLAT_SPACE})*,?{FLAT_SPACE})?\]"
)
JSON_LIST_START = re.compile(r'\[[ \t\n\r]*[]["{0-9tfn-]')
# Deeply nested input makes the parsers give up with RecursionError or MemoryError.
PARSE_ERRORS = (ValueError, SyntaxError, TypeError, RecursionError, MemoryError)
# About 50,000 tokens, far beyond any extraction a model writes; a longer reply is read this far.
MAX_REPLY_CHARS = 200_000
# One reply of repeated junk once made 83,333 warnings; an output keeps this many and a count.
MAX_WARNINGS = 50
Parts = TypeVarTuple("Parts")  # what a warning's message is made of, formatted only when kept


class Warnings:
    """The warnings about the lists of one reply: the first ``limit`` kept, the rest only counted."""

    def __init__(self, limit: int = MAX_WARNINGS) -> None:
        self.kept: list[str] = []
        self.limit, self.more = limit, 0

    def add(self, describe: Callable[[*Parts], str], *parts: *Parts) -> None:
        """Keep the message ``describe(*parts)`` returns; past the limit it is only counted, never formatted."""
        if len(self.kept) < self.limit:
            self.kept.append(describe(*parts))
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
        elif span.levels > 1:
            pending.append(span.innermost())
        elif span.children:
            # A broken outer list may still hold well-formed triples: look inside.
            pending.extend(reversed(span.children))
        else:
            warnings.add(lambda span: f"dropped {shorten(reader.source(span))}: {UNPARSABLE_LIST}", span)
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
    ListReader made of it, once it has read it. ``levels`` > 1 stands for that many lists each
    wrapping the next with nothing else inside ("[[[x]]]" is three levels around the list
    "[x]"): a run of brackets makes one span, not one per bracket, and the text of every level
    reads the same but for its outer brackets.
    """

    __slots__ = ("children", "end", "height", "levels", "start", "value")

    def __init__(self, start: int, end: int, children: list["Span"], height: int, levels: int = 1) -> None:
        self.start, self.end, self.children, self.height, self.levels = start, end, children, height, levels
        self.value: Any = None

    def innermost(self) -> "Span":
        """The list the wrapping levels wrap."""
        inset = self.levels - 1
        return Span(self.start + inset, self.end - inset, self.children, self.height - inset)


def scan_lists(text: str) -> tuple[list[Span], list[tuple[int, int]], int | None]:
    """One pass of quote-aware bracket matching.

    Returns the outermost closed lists (in order), the (start, end) of every quoted string
    inside a list, and the position of the innermost list left open at the end (or None).
    Quotes count only inside brackets, so prose apostrophes never unbalance the scan.
    """
    roots: list[Span] = []
    strings: list[tuple[int, int]] = []
    # The lists open at this point, innermost last: where each starts, where the run of "["
    # it belongs to starts, the lists closed inside it so far (None for none yet) and its
    # height. Runs of brackets are pushed and popped as slices, so they cost C time only.
    starts: list[int] = []
    run_starts: list[int] = []
    children: list[Any] = []  # a list of Span, or None for none yet
    heights: list[int] = []
    position = 0
    while opening := OPENING.search(text, position):
        for match in LIST_EVENT.finditer(text, opening.start()):
            event = match.lastgroup
            if event == "string":  # the most frequent event: first, and with no more than it needs
                strings.append(match.span(event))
                continue
            start, end = match.span()
            if event == "opening":
                starts.extend(range(start, end))
                run_starts.extend([start] * (end - start))
                children.extend([None] * (end - start))
                heights.extend([1] * (end - start))
            elif event == "closing":
                close = start
                while close < end and starts:
                    # The innermost open list closes here; the lists of its own run of "["
                    # around it close at the next brackets of this run of "]": pure wrappers.
                    inner = starts[-1]
                    levels = min(inner - run_starts[-1] + 1, end - close)
                    span = Span(
                        inner - levels + 1, close + levels, children[-1] or [], heights[-1] + levels - 1, levels
                    )
                    del starts[-levels:], run_starts[-levels:], children[-levels:], heights[-levels:]
                    close += levels
                    if starts:
                        if children[-1] is None:
                            children[-1] = []
                        children[-1].append(span)
                        heights[-1] = max(heights[-1], span.height + 1)
                    else:
                        roots.append(span)
                if not starts:
                    position = end
                    break  # Outside every list again: quotes are prose until the next "[".
            else:
                position = len(text)
                break  # A string that never closes: the rest of the reply is inside it.
        else:
            break
    # Lists closed inside a list that never closes (a cut-off reply) still count.
    for inner in children:
        roots.extend(inner or ())
    roots.sort(key=lambda span: span.start)
    unterminated = starts[-1] if starts else None
    return roots, strings, unterminated


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
    SLOW_PARSES_PER_CHAR = 1 / 1000

    def __init__(self, text: str, strings: list[tuple[int, int]]) -> None:
        self.text, self.strings = text, strings
        self.unreadable: set[str] = set()
        self.slow_allowance = self.SLOW_PARSES + int(len(text) * self.SLOW_PARSES_PER_CHAR)
        self.slow_parses_left = self.slow_allowance

    def source(self, span: Span) -> str:
        return self.text[span.start : span.end]

    def value(self, span: Span, outermost: bool = False) -> object:
        """The value of ``span``, UNPARSED, or PROSE; worked out once."""
        if span.value is None:
            span.value = self.read(span, outermost)
        return span.value

    def read(self, span: Span, outermost: bool) -> object:
        if span.levels == 1 and not span.children and self.text.find(",", span.start, span.end) < 0:
            return PROSE
        # Levels taller than MAX_NESTING are searched inside: parsing every level would be
        # quadratic. Of wrapping levels, the tallest that is low enough is read, as outermost.
        inset = max(0, span.height - MAX_NESTING)
        if inset >= span.levels:
            return UNPARSED
        start, end = span.start + inset, span.end - inset
        source = self.text[start:end]
        if source in self.unreadable:
            return UNPARSED
        # A list of plain strings, the usual triple, needs no parser (nor JSON's costly failure
        # on single quotes); it reads the same with each.
        value = UNPARSED if span.children else flat_list_of_strings(source)
        if value is UNPARSED and (outermost or inset):
            value = parse_json(source)
        if value is UNPARSED and not any(self.value(child) is UNPARSED for child in span.children):
            value = self.parse(source, start, end, json_tried=outermost or bool(inset))
        if value is UNPARSED:
            self.unreadable.add(source)
        return value

    def parse(self, source: str, start: int, end: int, json_tried: bool) -> object:
        """``source``, which is ``text[start:end]``, read by each parser in turn; UNPARSED if none can."""
        value = UNPARSED if json_tried else parse_json(source)
        if value is not UNPARSED:
            return value
        if self.slow_parses_left < 0:
            return UNPARSED
        try:
            return ast.literal_eval(source)
        except PARSE_ERRORS:
            value = parse_json(requoted(self.text, start, end, self.strings))
        if value is UNPARSED:
            self.slow_parses_left -= 1
        return value


def parse_json(source: str) -> object:
    # Skip JSON's costly failure where it is certain: a list opening with what no JSON value
    # starts with ("[a, b]", "['a', b]"), or single quotes and no double quote anywhere.
    if not JSON_LIST_START.match(source) or ("'" in source and '"' not in source):
        return UNPARSED
    try:
        return json.loads(source)
    except PARSE_ERRORS:
        return UNPARSED


def requoted(text: str, start: int, end: int, strings: list[tuple[int, int]]) -> str:
    """``text[start:end]`` with each quoted string rewritten as a JSON string."""
    pieces, cursor = [], start
    # Indexes, not a slice of ``strings``: a slice would copy the rest of the list for every span.
    for index in range(bisect_left(strings, (start, 0)), len(strings)):
        string_start, string_end = strings[index]
        if string_start >= end:
            break
        quote = text[string_start]
        content = text[string_start + 1 : string_end - 1].replace("\\" + quote, quote)
        pieces.append(text[cursor:string_start])
        pieces.append(json.dumps(content, ensure_ascii=False))
        cursor = string_end
    pieces.append(text[cursor:end])
    return "".join(pieces)


def flat_list_of_strings(source: str) -> object:
    """A list of quoted strings without escapes, read by regular expressions (as literal_eval
    would read it, much faster); UNPARSED for anything else."""
    if FLAT_LIST.fullmatch(source) is None:
        return UNPARSED
    return [item[1:-1] for item in FLAT_ITEM.findall(source)]


def collect(value: Any, triples: list[list[str]], warnings: Warnings) -> None:
    """Add the triples in a parsed list to ``triples``; a warning for every other item."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, tuple):
            warnings.add(lambda item: f"dropped {show(item)}: a tuple in parentheses, not a list", item)
        elif isinstance(item, list) and any(isinstance(inner, (list, tuple)) for inner in item):
            pending.extend(reversed(item))
        elif item == []:
            continue  # "[]" says "no triples here"; nothing was dropped.
        elif problem := triple_problem(item):
            warnings.add(lambda item, problem: f"dropped {show(item)}: {problem}", item, problem)
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
