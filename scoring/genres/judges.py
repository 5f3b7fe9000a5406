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
- ``openai``: an LLM behind any OpenAI-compatible endpoint, with the prompts of ``prompts.py`` or
  a researcher's own prompt templates (``prompts.PromptTemplate``).

A third, ``RecordedJudge``, answers from verdicts produced elsewhere and imported; a run builds
one per system from the database (``scoring.verdict_imports``).
"""

import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import product
from typing import Any, Protocol, TypeVar

from scoring.genres import prompts
from scoring.genres.cache import InMemoryRequestCache, RequestCache, request_key
from scoring.genres.openai_backend import (
    DEFAULT_JUDGE_MODEL,
    Endpoint,
    EndpointStatusError,
    MalformedResponse,
    OpenAIService,
    Request,
    RequestFailed,
    SendInstead,
    Usage,
    environment,
)
from scoring.genres.triples import Triple

SUPPORT = "support"
SPLIT = "split"
TASKS = (SUPPORT, SPLIT)
# The aspect each task scores: prompt templates are given per aspect.
ASPECT_OF_TASK = {SUPPORT: "fs", SPLIT: "gs"}


@dataclass(frozen=True)
class SupportVerdict:
    supported: bool
    parsed: bool
    reply: str
    error: str = ""
    missing: bool = False  # recorded verdicts only: none was recorded for this triple


@dataclass(frozen=True)
class SplitVerdict:
    n: int  # finer triples, with n = 1 already counted as 0
    sub_triples: list[list[str]] = field(default_factory=list)
    parsed: bool = True
    reply: str = ""
    error: str = ""
    missing: bool = False  # recorded verdicts only: none was recorded for this triple

    @property
    def score(self) -> float:
        return math.exp(-self.n)


_Verdict = TypeVar("_Verdict", SupportVerdict, SplitVerdict)


def _judged(verdicts: Sequence[_Verdict]) -> list[_Verdict] | None:
    """The verdicts that exist; None when the text has triples but none has a verdict."""
    judged = [verdict for verdict in verdicts if not verdict.missing]
    return judged if judged or not verdicts else None


def factualness(verdicts: Sequence[SupportVerdict]) -> float | None:
    """fs of one text: the share of its triples' verdicts that say supported; 0 without triples.

    A missing (recorded) verdict is left out; a text with none left is None, out of the mean.
    """
    judged = _judged(verdicts)
    if judged is None:
        return None
    return sum(verdict.supported for verdict in judged) / len(judged) if judged else 0.0


def granularity(verdicts: Sequence[SplitVerdict]) -> float | None:
    """gs of one text: the mean of e^(-n) over its triples' verdicts; 0 without triples.

    A missing (recorded) verdict is left out; a text with none left is None, out of the mean.
    """
    judged = _judged(verdicts)
    if judged is None:
        return None
    return sum(verdict.score for verdict in judged) / len(judged) if judged else 0.0


@dataclass(frozen=True)
class RequestCount:
    """What judging a batch would take: shown, with a cost estimate, before a run starts."""

    judgements: int
    requests: int  # distinct requests the batch needs (identical questions are asked once)
    cached: int  # of which answered by the cache

    @property
    def to_send(self) -> int:
        return self.requests - self.cached


# Each item a judge is asked about: a text and one of its triples.
Pairs = Sequence[tuple[str, Triple]]
# A request body as sent (less the model) and cached, and a response as read: JSON objects.
Payload = dict[str, Any]


class Judge(Protocol):
    name: str
    model: str
    prompt_version: str
    heuristic: bool

    def check_support(self, pairs: Pairs) -> list[SupportVerdict]: ...

    def split(self, pairs: Pairs) -> list[SplitVerdict]: ...

    def count_requests(self, pairs: Pairs, task: str) -> RequestCount: ...

    @property
    def usage(self) -> Usage: ...


def _check_task(task: str) -> None:
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


class OfflineJudge:
    """What a judge that sends no request answers about requests and their cost."""

    def count_requests(self, pairs: Pairs, task: str) -> RequestCount:
        _check_task(task)
        return RequestCount(judgements=len(pairs), requests=0, cached=0)

    @property
    def usage(self) -> Usage:
        return Usage()


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


# Recorded verdicts --------------------------------------------------------------------------

MISSING_VERDICT = "no recorded verdict for this triple"


def triple_key(triple: Triple) -> str:
    """How a triple is looked up among recorded verdicts: its elements, exactly, as JSON."""
    return json.dumps(list(triple), ensure_ascii=False)


@dataclass(frozen=True)
class RecordedVerdict:
    """One verdict produced elsewhere: ``supported`` for fs; for gs the judge's ``reply`` (its
    bracketed sub-triples are counted) or, without a reply, the number ``sub_triples``."""

    aspect: str  # "fs" or "gs"
    text: str
    triple: tuple[str, ...]
    supported: bool | None = None
    reply: str = ""
    sub_triples: int | None = None


class RecordedJudge(OfflineJudge):
    """Verdicts recorded elsewhere (another judge's run, the GENRES authors' release) instead
    of an LLM: no request is ever sent. A triple without a recorded verdict gets a verdict
    marked ``missing``, which the scores leave out; ``missing`` counts them.

    Granularity from a recorded reply follows the authors' released code: n = the number of
    bracketed sub-triples in the reply (``prompts.bracketed_sub_triples``), n = 1 counted as 0.
    """

    name = "recorded"
    prompt_version = "recorded"
    heuristic = False

    def __init__(self, source: str, verdicts: Iterable[RecordedVerdict]) -> None:
        self.model = source  # the name the verdicts were imported under
        self._verdicts = {(verdict.aspect, verdict.text, triple_key(verdict.triple)): verdict for verdict in verdicts}
        self.missing = 0

    def check_support(self, pairs: Pairs) -> list[SupportVerdict]:
        return [self._support(self._lookup("fs", text, triple)) for text, triple in pairs]

    def split(self, pairs: Pairs) -> list[SplitVerdict]:
        return [self._split(self._lookup("gs", text, triple)) for text, triple in pairs]

    def _lookup(self, aspect: str, text: str, triple: Triple) -> RecordedVerdict | None:
        verdict = self._verdicts.get((aspect, text, triple_key(triple)))
        if verdict is None:
            self.missing += 1
        return verdict

    @staticmethod
    def _support(verdict: RecordedVerdict | None) -> SupportVerdict:
        if verdict is None:
            return SupportVerdict(supported=False, parsed=False, reply="", error=MISSING_VERDICT, missing=True)
        assert verdict.supported is not None, "the importers record every fs verdict with supported"
        return SupportVerdict(supported=verdict.supported, parsed=True, reply="true" if verdict.supported else "false")

    @staticmethod
    def _split(verdict: RecordedVerdict | None) -> SplitVerdict:
        if verdict is None:
            return SplitVerdict(n=0, parsed=False, error=MISSING_VERDICT, missing=True)
        if verdict.reply:
            count = prompts.bracketed_sub_triples(verdict.reply)
            return SplitVerdict(n=prompts.finer_triples(count), reply=prompts.keep_reply(verdict.reply))
        assert verdict.sub_triples is not None, "the importers record every gs verdict with a reply or a count"
        count = verdict.sub_triples
        return SplitVerdict(n=prompts.finer_triples(count), reply=f"{count} sub-triple(s), recorded")


# OpenAI-compatible judge -----------------------------------------------------------------

COMPLETIONS = "completions"
CHAT = "chat"
# Cache writes and progress reports go every this many replies: an interrupted run keeps what
# it has paid for, and progress moves while the requests stream.
DEFAULT_CHUNK_SIZE = 256
# Prompts per request on the completions API, which takes a list of prompts (OpenAI, vLLM,
# llama.cpp): one request then carries that many judgements. Chat takes one conversation.
DEFAULT_BATCH_SIZE = 16
# What an endpoint that takes one prompt answers to a list: a refused request.
LIST_REFUSAL_STATUS = {400, 422}


@dataclass(frozen=True)
class _Reply:
    text: str = ""
    error: str = ""


class OpenAIJudge:
    """An LLM judge behind an OpenAI-compatible endpoint, at temperature 0.

    ``*-instruct`` models get the completions API, others chat (``api`` or GENRES_JUDGE_API
    overrides). Every reply is cached by (model, request) one prompt at a time, whether it
    came alone or in a batch; identical questions in a batch are asked once. On the
    completions API, ``batch_size`` prompts (GENRES_JUDGE_BATCH_SIZE) go in one request; an
    endpoint that refuses a list is then asked one prompt at a time, for the rest of this
    judge's life (``lists_refused``). ``progress(done, total)``, if given, counts pairs and
    is called every ``chunk_size`` replies and at the end, from the caller's thread. Other
    keyword arguments configure the ``OpenAIService`` (endpoint, key, concurrency, retries,
    rate limiter).
    """

    name = "openai"
    prompt_version = prompts.PROMPT_VERSION
    heuristic = False

    def __init__(
        self,
        model: str | None = None,
        api: str | None = None,
        cache: RequestCache | None = None,
        progress: Callable[[int, int], None] | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        batch_size: int | None = None,
        templates: Iterable[prompts.PromptTemplate] = (),
        **service: Any,
    ) -> None:
        self.model: str = model or environment("GENRES_JUDGE_MODEL", DEFAULT_JUDGE_MODEL)
        api = api or environment("GENRES_JUDGE_API", "auto")
        if api == "auto":
            api = COMPLETIONS if self.model.endswith("-instruct") else CHAT
        if api not in (COMPLETIONS, CHAT):
            raise ValueError(f"unknown API {api!r}; choose auto, {COMPLETIONS} or {CHAT}")
        self.api = api
        if batch_size is None:
            batch_size = environment("GENRES_JUDGE_BATCH_SIZE", DEFAULT_BATCH_SIZE, int)
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.batch_size = batch_size if api == COMPLETIONS else 1
        self.lists_refused = False
        self.templates = {template.aspect: template for template in templates}
        self.cache: RequestCache = cache if cache is not None else InMemoryRequestCache()
        self.progress = progress
        self.chunk_size = chunk_size
        self.service = OpenAIService(**service)

    @property
    def usage(self) -> Usage:
        return self.service.usage.snapshot()

    @property
    def prompt_templates(self) -> dict[str, str]:
        """The SHA-256 of each aspect's own prompt template, for provenance; {} with the app's prompts."""
        return {aspect: template.sha256 for aspect, template in sorted(self.templates.items())}

    def check_support(self, pairs: Pairs) -> list[SupportVerdict]:
        return self._verdicts(pairs, SUPPORT, _support_verdict)

    def split(self, pairs: Pairs) -> list[SplitVerdict]:
        return self._verdicts(pairs, SPLIT, _split_verdict)

    def count_requests(self, pairs: Pairs, task: str) -> RequestCount:
        """Distinct questions, and how many the cache holds; ``requests`` counts questions, so
        with batching fewer HTTP requests carry them."""
        keys = {self._key(payload, task) for payload in self._payloads(pairs, task)}
        return RequestCount(judgements=len(pairs), requests=len(keys), cached=len(self.cache.get_many(keys)))

    def _payloads(self, pairs: Pairs, task: str) -> list[Payload]:
        """The exact request body (less the model) for each pair: what is sent and cached."""
        _check_task(task)
        max_tokens = prompts.SUPPORT_MAX_TOKENS if task == SUPPORT else prompts.SPLIT_MAX_TOKENS
        parameters: Payload = {"temperature": 0, "max_tokens": max_tokens}
        template = self.templates.get(ASPECT_OF_TASK[task])
        if template:
            rendered = [template.render(text, triple) for text, triple in pairs]
            if self.api == COMPLETIONS:
                return [{"prompt": prompt, **parameters, "stop": prompts.COMPLETION_STOP} for prompt in rendered]
            return [{"messages": [{"role": "user", "content": prompt}], **parameters} for prompt in rendered]
        if task == SUPPORT:
            built = [prompts.support_prompt(text, triple) for text, triple in pairs]
        else:
            built = [prompts.split_prompt(triple) for _text, triple in pairs]
        if self.api == COMPLETIONS:
            return [
                {"prompt": prompt.as_completion(), **parameters, "stop": prompts.COMPLETION_STOP} for prompt in built
            ]
        return [{"messages": prompt.as_messages(), **parameters} for prompt in built]

    def _key(self, payload: Payload, task: str) -> str:
        """The cache key of a request: the request itself, and the hash of the template it came from."""
        template = self.templates.get(ASPECT_OF_TASK[task])
        return request_key(self.model, {**payload, "template_sha256": template.sha256} if template else payload)

    def _verdicts(self, pairs: Pairs, task: str, verdict_of: Callable[[_Reply], _Verdict]) -> list[_Verdict]:
        """One verdict per pair, read from its reply: from the cache, else streamed from the
        endpoint and cached. Payloads and keys are made, and the cache asked, a few at a time as
        the stream takes more questions: made all at once, they would hold up the stream's
        thread while the first requests are in flight. Replies are read as they arrive."""
        keys: list[str] = []
        payload_of: dict[str, Payload] = {}  # one per distinct question
        verdicts: dict[str, _Verdict] = {}
        look_up = self.service.concurrency * self.batch_size  # a round of requests in flight

        def missing() -> Iterator[tuple[tuple[str, ...], Request]]:
            for start in range(0, len(pairs), look_up):
                new: dict[str, Payload] = {}
                for payload in self._payloads(pairs[start : start + look_up], task):
                    key = self._key(payload, task)
                    keys.append(key)
                    if key not in payload_of:
                        payload_of[key] = new[key] = payload
                cached = self.cache.get_many(new)
                verdicts.update((key, verdict_of(_Reply(text=value["reply"]))) for key, value in cached.items())
                self.service.usage.cache_hits += len(cached)
                yield from self._requests([key for key in new if key not in cached], payload_of)

        fresh: dict[str, _Reply] = {}
        done = 0

        def store() -> None:
            nonlocal done
            self.cache.set_many({key: {"reply": reply.text} for key, reply in fresh.items() if not reply.error})
            fresh.clear()
            done = sum(key in verdicts for key in keys)
            if self.progress:
                self.progress(done, len(pairs))

        for batch, response in self.service.stream(missing()):
            # A single prompt's reply is its first choice; any other choice is ignored.
            for key, reply in zip(batch, self._read(response, len(batch)), strict=False):
                fresh[key] = reply
                verdicts[key] = verdict_of(reply)
            if len(fresh) >= self.chunk_size:
                store()
        if fresh or done < len(pairs):
            store()
        return [verdicts[key] for key in keys]

    def _requests(self, keys: list[str], payload_of: dict[str, Payload]) -> Iterator[tuple[tuple[str, ...], Request]]:
        """``(keys, request)`` pairs for the service: a batch of up to ``batch_size`` prompts while
        the endpoint takes lists, single prompts once it refused one."""
        size = 1 if self.lists_refused else self.batch_size
        for start in range(0, len(keys), size):
            batch = tuple(keys[start : start + size])
            if size == 1:
                yield batch, self._request(payload_of[batch[0]])
            else:
                yield batch, partial(self._create_completions, batch=batch, payloads=[payload_of[key] for key in batch])

    def _request(self, payload: Payload) -> Request:
        create = self._create_completion if self.api == COMPLETIONS else self._create_chat
        return partial(create, payload=payload)

    async def _create_completion(self, endpoint: Endpoint, payload: Payload) -> Payload:
        return _with_choices(await endpoint.post_json("/completions", {"model": self.model, **payload}))

    async def _create_completions(self, endpoint: Endpoint, batch: tuple[str, ...], payloads: list[Payload]) -> Payload:
        """Several prompts in one request (the payloads of one task share their parameters).

        A refusal, or an answer without exactly one choice per prompt, means the endpoint does
        not take lists: the prompts are sent one by one instead, and so is every later batch.
        """
        response: Payload | None = None
        if not self.lists_refused:  # else a list was refused since this batch was made
            try:
                batched = {"model": self.model, **payloads[0], "prompt": [payload["prompt"] for payload in payloads]}
                response = await endpoint.post_json("/completions", batched)
            except EndpointStatusError as error:
                if error.status_code not in LIST_REFUSAL_STATUS:
                    raise
        indexes = sorted(choice.get("index", -1) for choice in response.get("choices") or ()) if response else None
        if response is None or indexes != list(range(len(batch))):
            self.lists_refused = True
            raise SendInstead([((key,), self._request(payload)) for key, payload in zip(batch, payloads, strict=True)])
        return response

    async def _create_chat(self, endpoint: Endpoint, payload: Payload) -> Payload:
        return _with_choices(await endpoint.post_json("/chat/completions", {"model": self.model, **payload}))

    def _read(self, response: Payload | RequestFailed, count: int) -> list[_Reply]:
        """The replies to the ``count`` prompts of one request, in order."""
        if isinstance(response, RequestFailed):
            return [_Reply(error=prompts.keep_reply(response.error))] * count
        choices = sorted(response["choices"], key=lambda choice: choice.get("index", 0))
        if self.api == COMPLETIONS:
            texts = [choice.get("text") for choice in choices]
        else:
            texts = [(choice.get("message") or {}).get("content") for choice in choices]
        return [_Reply(text=(text or "").strip()) for text in texts]


def _support_verdict(reply: _Reply) -> SupportVerdict:
    if reply.error:
        return SupportVerdict(supported=False, parsed=False, reply="", error=reply.error)
    supported, parsed = prompts.parse_support(reply.text)
    return SupportVerdict(supported, parsed, prompts.keep_reply(reply.text))


def _split_verdict(reply: _Reply) -> SplitVerdict:
    if reply.error:
        return SplitVerdict(n=0, parsed=False, error=reply.error)
    n, sub_triples, parsed = prompts.parse_split(reply.text)
    return SplitVerdict(n, sub_triples, parsed, prompts.keep_reply(reply.text))


def _with_choices(response: Payload) -> Payload:
    """The response, checked inside the request so that an empty or malformed one counts as a failure."""
    choices = response.get("choices") if isinstance(response, dict) else None
    if not choices:
        raise MalformedResponse("the endpoint answered without any choice")
    if not all(isinstance(choice, dict) for choice in choices):
        raise MalformedResponse("the endpoint answered choices that are not objects")
    return response


JUDGES: dict[str, type[HeuristicJudge] | type[OpenAIJudge]] = {"heuristic": HeuristicJudge, "openai": OpenAIJudge}


def get_judge(name: str = "heuristic", **options: Any) -> Judge:
    """The judge registered as ``name``; ``options`` go to its constructor (the heuristic judge
    takes none; see ``OpenAIJudge`` for the other)."""
    try:
        judge_class = JUDGES[name]
    except KeyError:
        raise ValueError(f"unknown judge {name!r}; choose one of {', '.join(JUDGES)}") from None
    return judge_class(**options)
