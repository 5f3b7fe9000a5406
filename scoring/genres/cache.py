"""The request cache: every embedding and every judge reply is stored under the exact request
that produced it, so a re-run sends nothing and gets the same answers.

A key is the string ``"{model}:{sha256 of the request}"``. The request is the JSON payload sent
to the endpoint, parameters included (temperature, max_tokens, stop sequences, ...), serialised
canonically. The embedders' keys (``scoring.genres.embedders.cache_key``) have the same shape,
with the text as the request, so one store serves both. The endpoint URL is left out on
purpose: the same model behind another proxy or gateway answers the same request the same way,
and moving a deployment keeps its cache.

Judge replies are stored as JSON-compatible dicts; embedders store float32 vectors. The
in-memory store below serves tests and scripts, a database table serves the Django app.
Failed requests are never cached.
"""

import hashlib
import json
import threading
from collections.abc import Iterable, Mapping
from itertools import islice
from typing import Any, Protocol


def request_key(model: str, payload: Mapping[str, Any]) -> str:
    """The cache key of sending ``payload`` (a JSON-compatible dict) to ``model``."""
    canonical = json.dumps(
        {"model": model, "request": payload}, sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return f"{model}:{hashlib.sha256(canonical.encode('utf-8')).hexdigest()}"


class RequestCache(Protocol):
    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The cached values of those ``keys`` that are cached; missing keys are left out."""

    def set_many(self, mapping: Mapping[str, Any]) -> None:
        """Store values; a key stored twice keeps the newer value."""


class InMemoryRequestCache:
    """A process-local cache: for tests, scripts and the lifetime of one judge, embedder or run.

    With ``max_entries`` it keeps that many values at most, dropping the oldest stored first, so a
    cache kept for a whole run stays bounded however large the dataset.
    """

    def __init__(self, max_entries: int | None = None) -> None:
        self.max_entries = max_entries
        self._values: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        with self._lock:
            return {key: self._values[key] for key in keys if key in self._values}

    def set_many(self, mapping: Mapping[str, Any]) -> None:
        with self._lock:
            self._values.update(mapping)
            if self.max_entries is not None and len(self._values) > self.max_entries:
                oldest = list(islice(self._values, len(self._values) - self.max_entries))
                for key in oldest:
                    del self._values[key]

    def keys(self) -> list[str]:
        with self._lock:
            return list(self._values)

    def __len__(self) -> int:
        return len(self._values)
