"""Requests for one model's replies, shared by the LLM judge and generation runs: several prompts
in one request where the endpoint takes lists, one prompt a request where it does not.

The completions API takes a list of prompts (OpenAI, vLLM, llama.cpp) and answers one choice per
prompt, ``choices[i].index`` naming its prompt; chat takes one conversation, so chat requests
carry one prompt each. A batch only groups prompts whose requests are the same but for the prompt
(temperature, max tokens, seed, stop ...): an endpoint applies one request's settings to every
prompt of the list, so each prompt is asked exactly as it would be alone (vLLM seeds each prompt of
a list with the request's seed), and a seeded reply stays the same batched or not. Callers cache
per prompt, whatever request carried it.

An endpoint that refuses a list (HTTP 400 or 422, as Ollama does), or answers it without exactly
one choice per prompt, is asked those prompts one at a time (``SendInstead``), and every later
batch of this ``CompletionRequests`` too (``lists_refused``).

No Django here; the requests go through ``OpenAIService.stream``.
"""

import json
from collections.abc import Iterable, Iterator, Mapping
from functools import partial
from typing import Any

from scoring.genres.endpoints import Endpoint, EndpointStatusError, MalformedResponse
from scoring.genres.openai_backend import Request, SendInstead

COMPLETIONS = "completions"
CHAT = "chat"
PATHS = {COMPLETIONS: "/completions", CHAT: "/chat/completions"}
# What an endpoint that takes one prompt answers to a list: a refused request.
LIST_REFUSAL_STATUS = {400, 422}

Payload = dict[str, Any]


class CompletionRequests:
    """The requests asking ``model`` on ``api`` (completions or chat): ``batch_size`` prompts per
    request on completions, one on chat. A payload is a request body less the model: ``prompt``
    (completions) or ``messages`` (chat), and the settings."""

    def __init__(self, model: str, api: str, batch_size: int = 1) -> None:
        if api not in PATHS:
            raise ValueError(f"unknown API {api!r}; choose {COMPLETIONS} or {CHAT}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.model = model
        self.api = api
        self.batch_size = batch_size if api == COMPLETIONS else 1
        self.lists_refused = False

    def requests_for(self, prompts: int) -> int:
        """How many requests ``prompts`` prompts of the same settings take, if lists are taken."""
        return -(-prompts // self.batch_size)

    def batched(
        self, keys: Iterable[str], payload_of: Mapping[str, Payload]
    ) -> Iterator[tuple[tuple[str, ...], Request]]:
        """``(keys, request)`` pairs for ``OpenAIService.stream``, in the order of ``keys`` (distinct
        questions) as their batches fill: prompts of the same settings, up to ``batch_size`` in one
        request while the endpoint takes lists, single prompts once it refused one."""
        size = 1 if self.lists_refused else self.batch_size
        filling: dict[str, list[str]] = {}  # per settings, the keys of a batch not yet full
        for key in keys:
            settings = _settings_of(payload_of[key])
            batch = filling.setdefault(settings, [])
            batch.append(key)
            if len(batch) == size:
                del filling[settings]
                yield self._batch(tuple(batch), payload_of, size)
        for batch in filling.values():
            yield self._batch(tuple(batch), payload_of, size)

    def texts(self, response: Payload, count: int) -> list[str]:
        """The reply texts of a request's ``count`` prompts, in order: choices sorted by index (a
        single prompt's reply is its first choice; any other is ignored); a text that is not a
        string is empty."""
        choices = sorted(response["choices"], key=lambda choice: choice.get("index", 0))[:count]
        if self.api == COMPLETIONS:
            texts = [choice.get("text") for choice in choices]
        else:
            texts = [(choice.get("message") or {}).get("content") for choice in choices]
        return [text if isinstance(text, str) else "" for text in texts]

    def _batch(
        self, batch: tuple[str, ...], payload_of: Mapping[str, Payload], size: int
    ) -> tuple[tuple[str, ...], Request]:
        """The request of one batch: a list while lists are sent, even of one prompt (the last of its settings)."""
        if size == 1:
            return batch, self._single(payload_of[batch[0]])
        return batch, partial(self._create_list, batch=batch, payloads=[payload_of[key] for key in batch])

    def _single(self, payload: Payload) -> Request:
        return partial(self._create, payload=payload)

    async def _create(self, endpoint: Endpoint, payload: Payload) -> Payload:
        return with_choices(await endpoint.post_json(PATHS[self.api], {"model": self.model, **payload}))

    async def _create_list(self, endpoint: Endpoint, batch: tuple[str, ...], payloads: list[Payload]) -> Payload:
        """Several prompts of the same settings in one completions request.

        A refusal, or an answer without exactly one choice per prompt, means the endpoint does
        not take lists: the prompts are sent one by one instead, and so is every later batch.
        """
        response: Payload | None = None
        if not self.lists_refused:  # else a list was refused since this batch was made
            try:
                listed = {"model": self.model, **payloads[0], "prompt": [payload["prompt"] for payload in payloads]}
                response = await endpoint.post_json(PATHS[COMPLETIONS], listed)
            except EndpointStatusError as error:
                if error.status_code not in LIST_REFUSAL_STATUS:
                    raise
        choices = response.get("choices") if isinstance(response, dict) else None
        indexes = sorted(_index(choice) for choice in choices) if isinstance(choices, list) else None
        if response is None or indexes != list(range(len(batch))):
            self.lists_refused = True
            raise SendInstead([((key,), self._single(payload)) for key, payload in zip(batch, payloads, strict=True)])
        return response


def with_choices(response: Payload) -> Payload:
    """The response, checked inside the request so that an empty or malformed one counts as a failure."""
    choices = response.get("choices") if isinstance(response, dict) else None
    if not choices:
        raise MalformedResponse("the endpoint answered without any choice")
    if not all(isinstance(choice, dict) for choice in choices):
        raise MalformedResponse("the endpoint answered choices that are not objects")
    return response


def _index(choice: Any) -> int:
    index = choice.get("index") if isinstance(choice, dict) else None
    return index if isinstance(index, int) else -1


def _settings_of(payload: Payload) -> str:
    """What a batch's prompts share: the payload less its prompt."""
    return json.dumps({name: value for name, value in payload.items() if name != "prompt"}, sort_keys=True)
