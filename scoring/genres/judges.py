"""The judges behind factualness (fs) and granularity (gs).

A judge answers two questions about one triple at a time, in batches:

- ``check_support(pairs)``: is the triple supported by its text? -> ``SupportVerdict``
- ``split(pairs)``: into how many finer triples does it split? -> ``SplitVerdict``

where ``pairs`` is a list of ``(text, triple)``. A text's scores come from its verdicts:

- fs = share of its triples judged supported (``factualness``);
- gs = mean over its triples of e^(-n), n the number of finer triples, where n = 1 counts as
  0, so an atomic triple scores 1 (``granularity``);
- a text without triples scores fs = gs = 0: an empty answer earns nothing.

A reply that cannot be read, or a request that failed for good, gives a verdict with
``parsed=False`` that scores as not supported / not split, keeps the reply (or the error) for
display, and is counted by the caller; it never stops the batch.

Two judges are registered (``get_judge``):

- ``heuristic``: offline rules, no LLM; ``heuristic=True`` so pages label its scores as such.
- ``openai``: an LLM behind any OpenAI-compatible endpoint, with the prompts of ``prompts.py``.
"""

import math
import re
import unicodedata
from dataclasses import dataclass, field
from functools import partial
from itertools import product
from typing import Protocol

from scoring.genres import prompts
from scoring.genres.cache import InMemoryRequestCache, request_key
from scoring.genres.openai_backend import (
    DEFAULT_JUDGE_MODEL,
    MalformedResponse,
    OpenAIService,
    RequestFailed,
    Usage,
    environment,
)

SUPPORT = "support"
SPLIT = "split"
TASKS = (SUPPORT, SPLIT)


@dataclass(frozen=True)
class SupportVerdict:
    supported: bool
    parsed: bool
    reply: str
    error: str = ""


@dataclass(frozen=True)
class SplitVerdict:
    n: int  # finer triples, with n = 1 already counted as 0
    sub_triples: list = field(default_factory=list)
    parsed: bool = True
    reply: str = ""
    error: str = ""

    @property
    def score(self):
        return math.exp(-self.n)


def factualness(verdicts):
    """fs of one text: the share of its triples' verdicts that say supported; 0 without triples."""
    if not verdicts:
        return 0.0
    return sum(verdict.supported for verdict in verdicts) / len(verdicts)


def granularity(verdicts):
    """gs of one text: the mean of e^(-n) over its triples' verdicts; 0 without triples."""
    if not verdicts:
        return 0.0
    return sum(verdict.score for verdict in verdicts) / len(verdicts)


@dataclass(frozen=True)
class RequestCount:
    """What judging a batch would take: shown, with a cost estimate, before a run starts."""

    judgements: int
    requests: int  # distinct requests the batch needs (identical questions are asked once)
    cached: int  # of which answered by the cache

    @property
    def to_send(self):
        return self.requests - self.cached


class Judge(Protocol):
    name: str
    model: str
    prompt_version: str
    heuristic: bool

    def check_support(self, pairs: list[tuple[str, list[str]]]) -> list[SupportVerdict]: ...

    def split(self, pairs: list[tuple[str, list[str]]]) -> list[SplitVerdict]: ...

    def count_requests(self, pairs: list[tuple[str, list[str]]], task: str) -> RequestCount: ...

    @property
    def usage(self) -> Usage: ...


def _check_task(task):
    if task not in TASKS:
        raise ValueError(f"unknown judge task {task!r}; choose one of {', '.join(TASKS)}")


# Heuristic judge -------------------------------------------------------------------------

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


def fold(text):
    """Case- and accent-free text: "Zürich" and "zurich" compare equal."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(character for character in decomposed if not unicodedata.combining(character))


def _stems(words):
    return {word[:STEM_LENGTH] for word in words}


def coverage(element, folded_text, text_stems):
    """Share of an element's content words found in the text (all its words if it has no
    content word; for an element without any word, 1 or 0 as it occurs verbatim or not)."""
    words = _WORDS.findall(fold(element))
    if not words:
        return float(fold(element).strip() in folded_text)
    content = [word for word in words if word not in STOPWORDS] or words
    return sum(word[:STEM_LENGTH] in text_stems for word in content) / len(content)


def conjuncts(phrase):
    """The items of a coordinated list: "A, B and C", "A as well as B", "A; B" -> parts."""
    parts = []
    for segment in _SEMICOLON.split(phrase):
        pieces = _CONJUNCTION.split(segment)
        if len(pieces) > 1:  # commas separate items only in a list closed by a conjunction
            pieces = [item for piece in pieces for item in _LIST_COMMA.split(piece)]
        parts.extend(piece.strip() for piece in pieces if piece.strip())
    return parts or [phrase.strip()]


class HeuristicJudge:
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

    def check_support(self, pairs):
        return [self._support(text, triple) for text, triple in pairs]

    def _support(self, text, triple):
        folded = fold(text)
        stems = _stems(_WORDS.findall(folded))
        subject, relation, object_ = (coverage(element, folded, stems) for element in triple)
        supported = subject >= ENTITY_MIN_COVERAGE and object_ >= ENTITY_MIN_COVERAGE
        reply = f"content words found: subject {subject:.0%}, relation {relation:.0%}, object {object_:.0%}"
        return SupportVerdict(supported=supported, parsed=True, reply=reply)

    def split(self, pairs):
        return [self._split(triple) for _text, triple in pairs]

    def _split(self, triple):
        subject, relation, object_ = triple
        subjects, objects = conjuncts(subject), conjuncts(object_)
        sub_triples = [[s, relation, o] for s, o in product(subjects, objects)]
        count = len(sub_triples)
        # The finer triples are written out as an LLM judge writes them, so that the reference
        # rules, which count bracketed triples in the reply, read this reply alike.
        listed = "\n".join(prompts.show_triple(sub_triple) for sub_triple in sub_triples)
        reply = f"{len(subjects)} subject item(s) x {len(objects)} object item(s)\n{listed}"
        return SplitVerdict(n=0 if count == 1 else count, sub_triples=sub_triples, reply=reply)

    def count_requests(self, pairs, task):
        _check_task(task)
        return RequestCount(judgements=len(pairs), requests=0, cached=0)

    @property
    def usage(self):
        return Usage()


# OpenAI-compatible judge -----------------------------------------------------------------

COMPLETIONS = "completions"
CHAT = "chat"
# Cache look-ups, requests and cache writes go chunk by chunk: an interrupted run keeps what
# it has paid for, and progress is reported between chunks.
DEFAULT_CHUNK_SIZE = 256


@dataclass(frozen=True)
class _Reply:
    text: str = ""
    error: str = ""


class OpenAIJudge:
    """An LLM judge behind an OpenAI-compatible endpoint, at temperature 0.

    ``*-instruct`` models get the completions API, others chat (``api`` or GENRES_JUDGE_API
    overrides). Every reply is cached by (model, request); identical questions in a batch are
    asked once. ``progress(done, total)``, if given, is called between chunks, outside the
    event loop. Other keyword arguments configure the ``OpenAIService`` (endpoint, key,
    concurrency, retries, rate limiter).
    """

    name = "openai"
    prompt_version = prompts.PROMPT_VERSION
    heuristic = False

    def __init__(self, model=None, api=None, cache=None, progress=None, chunk_size=DEFAULT_CHUNK_SIZE, **service):
        self.model = model or environment("GENRES_JUDGE_MODEL", DEFAULT_JUDGE_MODEL)
        api = api or environment("GENRES_JUDGE_API", "auto")
        if api == "auto":
            api = COMPLETIONS if self.model.endswith("-instruct") else CHAT
        if api not in (COMPLETIONS, CHAT):
            raise ValueError(f"unknown API {api!r}; choose auto, {COMPLETIONS} or {CHAT}")
        self.api = api
        self.cache = cache if cache is not None else InMemoryRequestCache()
        self.progress = progress
        self.chunk_size = chunk_size
        self.service = OpenAIService(**service)

    @property
    def usage(self):
        return self.service.usage.snapshot()

    def check_support(self, pairs):
        verdicts = []
        for reply in self._replies(self._payloads(pairs, SUPPORT)):
            if reply.error:
                verdicts.append(SupportVerdict(supported=False, parsed=False, reply="", error=reply.error))
            else:
                supported, parsed = prompts.parse_support(reply.text)
                verdicts.append(SupportVerdict(supported, parsed, prompts.keep_reply(reply.text)))
        return verdicts

    def split(self, pairs):
        verdicts = []
        for reply in self._replies(self._payloads(pairs, SPLIT)):
            if reply.error:
                verdicts.append(SplitVerdict(n=0, parsed=False, error=reply.error))
            else:
                n, sub_triples, parsed = prompts.parse_split(reply.text)
                verdicts.append(SplitVerdict(n, sub_triples, parsed, prompts.keep_reply(reply.text)))
        return verdicts

    def count_requests(self, pairs, task):
        keys = {request_key(self.model, payload) for payload in self._payloads(pairs, task)}
        return RequestCount(judgements=len(pairs), requests=len(keys), cached=len(self.cache.get_many(keys)))

    def _payloads(self, pairs, task):
        """The exact request body (less the model) for each pair: what is sent and cached."""
        _check_task(task)
        if task == SUPPORT:
            built = [prompts.support_prompt(text, triple) for text, triple in pairs]
            max_tokens = prompts.SUPPORT_MAX_TOKENS
        else:
            built = [prompts.split_prompt(triple) for _text, triple in pairs]
            max_tokens = prompts.SPLIT_MAX_TOKENS
        parameters = {"temperature": 0, "max_tokens": max_tokens}
        if self.api == COMPLETIONS:
            return [
                {"prompt": prompt.as_completion(), **parameters, "stop": prompts.COMPLETION_STOP} for prompt in built
            ]
        return [{"messages": prompt.as_messages(), **parameters} for prompt in built]

    def _replies(self, payloads):
        keys = [request_key(self.model, payload) for payload in payloads]
        payload_of = dict(zip(keys, payloads))
        distinct = list(payload_of)
        replies = {}
        for start in range(0, len(distinct), self.chunk_size):
            chunk = distinct[start : start + self.chunk_size]
            cached = self.cache.get_many(chunk)
            self.service.usage.cache_hits += len(cached)
            replies.update((key, _Reply(text=value["reply"])) for key, value in cached.items())
            missing = [key for key in chunk if key not in cached]
            responses = self.service.run([self._request(payload_of[key]) for key in missing])
            fresh = {key: self._read(response) for key, response in zip(missing, responses)}
            replies.update(fresh)
            self.cache.set_many({key: {"reply": reply.text} for key, reply in fresh.items() if not reply.error})
            if self.progress:
                self.progress(min(start + self.chunk_size, len(distinct)), len(distinct))
        return [replies[key] for key in keys]

    def _request(self, payload):
        create = self._create_completion if self.api == COMPLETIONS else self._create_chat
        return partial(create, payload=payload)

    async def _create_completion(self, client, payload):
        return _with_choices(await client.completions.create(model=self.model, **payload))

    async def _create_chat(self, client, payload):
        return _with_choices(await client.chat.completions.create(model=self.model, **payload))

    def _read(self, response):
        if isinstance(response, RequestFailed):
            return _Reply(error=prompts.keep_reply(response.error))
        choice = response.choices[0]
        text = choice.text if self.api == COMPLETIONS else choice.message.content
        return _Reply(text=(text or "").strip())


def _with_choices(response):
    """The response, checked inside the request so that an empty one counts as a failure."""
    if not response.choices:
        raise MalformedResponse("the endpoint answered without any choice")
    return response


JUDGES = {"heuristic": HeuristicJudge, "openai": OpenAIJudge}


def get_judge(name="heuristic", **options):
    """The judge registered as ``name``; ``options`` go to its constructor (the heuristic judge
    takes none; see ``OpenAIJudge`` for the other)."""
    try:
        judge_class = JUDGES[name]
    except KeyError:
        raise ValueError(f"unknown judge {name!r}; choose one of {', '.join(JUDGES)}") from None
    return judge_class(**options)
