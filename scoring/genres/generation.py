"""Generating a system's outputs: asking a model behind an OpenAI-compatible endpoint for the
triples of each text, and reading its replies.

Open generative relation extraction as the GENRES paper runs it: one fixed instruction, the text
in, a list of ``[subject, relation, object]`` triples out, one reply per text and seed. The
prompt is a template (``$TEXT$`` stands for the text), stored and versioned by the app. Every
request goes through ``OpenAIService`` (rate limit, retries, concurrency) and the request cache,
keyed by the exact request (model, prompt, temperature, max tokens, seed): asking again for the
same thing sends nothing. Replies enter the cache as each request is answered, so a worker that
dies has lost no reply it was sent, and the chunk asked again asks for none of them twice. On the
completions API, prompts of one seed share requests (``completion_requests``): the cache still
holds one reply per prompt, whatever request carried it. Replies are parsed by
``postprocess.extract_triples``.

No Django here: ``scoring.generation_jobs`` stores what this module produces.
"""

import hashlib
import json
import re
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from scoring.genres.cache import RequestCache, request_key
from scoring.genres.completion_requests import CHAT, COMPLETIONS, CompletionRequests
from scoring.genres.openai_backend import OpenAIService, RequestFailed, environment
from scoring.genres.postprocess import extract_triples
from scoring.genres.prompts import MAX_TEMPLATE_CHARS, TEXT_PLACEHOLDER, TemplateError
from scoring.genres.triples import storable

API_CHOICES = (CHAT, COMPLETIONS)
DEFAULT_TEMPLATE_NAME = "open-gre"
DEFAULT_TEMPLATE_TEXT = """Read the text below and write down every relation it states between two things, each as a
triple [subject, relation, object]: the subject and the object as the text names them, the relation
as a short phrase. Answer with one JSON list of such triples and nothing else, for example
[["Marie Curie", "born in", "Warsaw"], ["Warsaw", "capital of", "Poland"]]. Write [] when the text
states no relation.

Text: $TEXT$
Triples:"""
# A reply is stored up to this length: postprocess reads no further, and an endpoint gone astray
# must not fill the database.
MAX_STORED_REPLY_CHARS = 200_000
# Prompts per request on the completions API (chat takes one): as the judge's default.
DEFAULT_BATCH_SIZE = 16
# Four characters a token: OpenAI's rule of thumb for English, for the estimate before a run.
CHARS_PER_TOKEN = 4
NAME_UNSAFE = re.compile(r"[^\w .+()-]+")
MAX_GROUP_CHARS = 80
NO_LIST = "no list of triples in the reply"


def check_template(text: str) -> None:
    """TemplateError when ``text`` cannot be a generation prompt template."""
    text = text.strip()
    if len(text) > MAX_TEMPLATE_CHARS:
        raise TemplateError(f"the template has {len(text):,} characters; at most {MAX_TEMPLATE_CHARS:,}")
    if "\x00" in text:
        raise TemplateError("the template contains a NUL character")
    if TEXT_PLACEHOLDER not in text:
        raise TemplateError(f"the template lacks the placeholder {TEXT_PLACEHOLDER}, where the text goes")


def render(template: str, text: str) -> str:
    """The prompt for one text. One pass: a text that itself holds "$TEXT$" stays as it is."""
    return text.join(template.strip().split(TEXT_PLACEHOLDER))


def group_name(name: str) -> str:
    """A replicate group (and system name stem) from a model's name: "meta-llama/Llama-3:8b" is
    "meta-llama-Llama-3-8b"; ValueError when nothing usable is left."""
    cleaned = NAME_UNSAFE.sub("-", name).strip(" .+()-")[:MAX_GROUP_CHARS].strip()
    if not cleaned:
        raise ValueError(f"{name!r} gives no usable system name: name the group")
    return cleaned


def system_names(name: str, seeds: Iterable[int]) -> dict[int, tuple[str, str]]:
    """Per seed, (system name, replicate seed label): "gpt-4o seed 54", "54"."""
    group = group_name(name)
    return {seed: (f"{group} seed {seed}", str(seed)) for seed in seeds}


@dataclass(frozen=True)
class GenerationSettings:
    base_url: str
    model: str
    api: str = CHAT
    temperature: float = 0.0
    max_tokens: int = 512

    def check(self) -> None:
        url = urllib.parse.urlsplit(self.base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"{self.base_url!r} is not an http:// or https:// URL")
        if url.username or url.password or url.query or url.fragment:
            # The URL is stored and shown: a key belongs in GENRES_GENERATION_API_KEY.
            raise ValueError("the endpoint's URL holds credentials or a query: give the key by environment instead")
        if not self.model.strip():
            raise ValueError("name the model")
        if self.api not in API_CHOICES:
            raise ValueError(f"unknown API {self.api!r}; choose {' or '.join(API_CHOICES)}")
        if not 0 <= self.temperature <= 2:
            raise ValueError(f"the temperature is between 0 and 2, not {self.temperature}")
        if not 1 <= self.max_tokens <= 32_768:
            raise ValueError(f"max tokens is between 1 and 32768, not {self.max_tokens}")

    def described(self) -> dict[str, Any]:
        """The settings as provenance: the endpoint's host, never its path's secrets or a key."""
        url = urllib.parse.urlsplit(self.base_url)
        host = url.hostname or ""
        return {
            "endpoint_host": f"{host}:{url.port}" if url.port else host,
            "model": self.model,
            "api": self.api,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def fingerprint(self, template: str) -> str:
        """What makes two runs' replies the same: the settings (the endpoint aside) and the template."""
        settings = {**asdict(self), "template": template.strip()}
        del settings["base_url"]
        return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()

    def cache_key(self, prompt: str, seed: int) -> str:
        return request_key(self.model, self.payload(prompt, seed))

    def payload(self, prompt: str, seed: int) -> dict[str, Any]:
        """The request body, less the model: what is sent and cached."""
        parameters = {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": seed}
        if self.api == COMPLETIONS:
            return {"prompt": prompt, **parameters}
        return {"messages": [{"role": "user", "content": prompt}], **parameters}


@dataclass(frozen=True)
class Reply:
    raw: str = ""
    error: str = ""
    cached: bool = False


@dataclass(frozen=True)
class Parsed:
    triples: list[list[str]]
    warnings: list[str]
    problem: str  # why the reply gave no triples; "" when it parsed (an empty "[]" included)


def parse_reply(reply: Reply) -> Parsed:
    if reply.error:
        return Parsed([], [f"the request failed: {reply.error}"], f"the request failed: {reply.error}")
    triples, warnings = extract_triples(reply.raw)
    if triples or (not warnings and "[" in reply.raw):
        return Parsed(triples, warnings, "")
    return Parsed([], warnings, "; ".join(warnings) if warnings else NO_LIST)


def estimated_tokens(prompt: str) -> int:
    return max(1, len(prompt) // CHARS_PER_TOKEN)


def generation_requests(settings: GenerationSettings, batch_size: int | None = None) -> CompletionRequests:
    """The requests of a generation run: ``batch_size`` prompts a request on the completions API
    (by default GENRES_GENERATION_BATCH_SIZE, or 16), one on chat."""
    if batch_size is None:
        batch_size = environment("GENRES_GENERATION_BATCH_SIZE", DEFAULT_BATCH_SIZE, int)
    return CompletionRequests(settings.model, settings.api, batch_size)


class Generator:
    """Asks ``settings.model`` for replies, through the cache: on the completions API, up to
    ``batch_size`` prompts of one seed in a request (GENRES_GENERATION_BATCH_SIZE; see
    ``completion_requests``), on chat one. ``service`` configures the ``OpenAIService`` (key,
    concurrency, retries, rate limit)."""

    def __init__(
        self, settings: GenerationSettings, cache: RequestCache, batch_size: int | None = None, **service: Any
    ) -> None:
        self.settings = settings
        self.cache = cache
        self.requests = generation_requests(settings, batch_size)
        self.service = OpenAIService(base_url=settings.base_url, **service)

    def generate(
        self,
        questions: Sequence[tuple[str, int]],
        on_answer: Callable[[int, int], object] = lambda _answered, _cached: None,
    ) -> list[Reply]:
        """One reply per (prompt, seed), in order: from the cache, else asked and cached as it comes
        (the replies of a batch as their request is answered); ``on_answer(requests answered so
        far, replies from the cache)`` after each request answered."""
        keys = [self.settings.cache_key(prompt, seed) for prompt, seed in questions]
        cached = self.cache.get_many(set(keys))
        self.service.usage.cache_hits += len(cached)
        replies: dict[str, Reply] = {key: Reply(raw=value["reply"], cached=True) for key, value in cached.items()}
        payload_of: dict[str, dict[str, Any]] = {}

        def missing() -> Iterator[str]:
            for key, (prompt, seed) in zip(keys, questions, strict=True):
                if key not in replies and key not in payload_of:
                    payload_of[key] = self.settings.payload(prompt, seed)
                    yield key

        answered = 0
        for batch, response in self.service.stream(self.requests.batched(missing(), payload_of)):
            fresh = {}
            for key, reply in zip(batch, self._read(response, len(batch)), strict=True):
                replies[key] = reply
                if not reply.error:
                    fresh[key] = {"reply": reply.raw}
            self.cache.set_many(fresh)
            answered += 1
            on_answer(answered, len(cached))
        return [replies[key] for key in keys]

    def _read(self, response: Any, count: int) -> list[Reply]:
        """The replies to the ``count`` prompts of one request, in order."""
        if isinstance(response, RequestFailed):
            return [Reply(error=response.error)] * count
        return [Reply(raw=storable(text)[:MAX_STORED_REPLY_CHARS]) for text in self.requests.texts(response, count)]
