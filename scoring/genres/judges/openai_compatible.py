"""The ``openai`` judge: an LLM behind any OpenAI-compatible endpoint, with the prompts of
``prompts.py`` or a researcher's own prompt templates (``prompts.PromptTemplate``)."""

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from scoring.genres import prompts
from scoring.genres.cache import InMemoryRequestCache, RequestCache, request_key
from scoring.genres.completion_requests import CHAT, COMPLETIONS, CompletionRequests
from scoring.genres.judges.base import (
    ASPECT_OF_TASK,
    SPLIT,
    SUPPORT,
    Pairs,
    Payload,
    RequestCount,
    SplitVerdict,
    SupportVerdict,
    Verdict,
    check_task,
)
from scoring.genres.openai_backend import DEFAULT_JUDGE_MODEL, OpenAIService, Request, RequestFailed, Usage, environment

# Cache writes and progress reports go every this many replies: an interrupted run keeps what
# it has paid for, and progress moves while the requests stream.
DEFAULT_CHUNK_SIZE = 256
# Prompts per request on the completions API, which takes a list of prompts (OpenAI, vLLM,
# llama.cpp): one request then carries that many judgements (``completion_requests``).
DEFAULT_BATCH_SIZE = 16


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
        self.requests = CompletionRequests(self.model, api, batch_size)
        self.templates = {template.aspect: template for template in templates}
        self.cache: RequestCache = cache if cache is not None else InMemoryRequestCache()
        self.progress = progress
        self.chunk_size = chunk_size
        self.service = OpenAIService(**service)

    @property
    def batch_size(self) -> int:
        return self.requests.batch_size

    @property
    def lists_refused(self) -> bool:
        return self.requests.lists_refused

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
        check_task(task)
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

    def _verdicts(self, pairs: Pairs, task: str, verdict_of: Callable[[_Reply], Verdict]) -> list[Verdict]:
        """One verdict per pair, read from its reply: from the cache, else streamed from the
        endpoint and cached. Payloads and keys are made, and the cache asked, a few at a time as
        the stream takes more questions: made all at once, they would hold up the stream's
        thread while the first requests are in flight. Replies are read as they arrive."""
        keys: list[str] = []
        payload_of: dict[str, Payload] = {}  # one per distinct question
        verdicts: dict[str, Verdict] = {}
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
                yield from self.requests.batched([key for key in new if key not in cached], payload_of)

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

    def _read(self, response: Payload | RequestFailed, count: int) -> list[_Reply]:
        """The replies to the ``count`` prompts of one request, in order."""
        if isinstance(response, RequestFailed):
            return [_Reply(error=prompts.keep_reply(response.error))] * count
        return [_Reply(text=text.strip()) for text in self.requests.texts(response, count)]


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
