"""The request cache in the database: one table shared by every RQ worker on every machine.

It implements the protocol of ``scoring.genres.cache`` (``get_many``/``set_many``) for both kinds
of value the library caches: judge replies (JSON dicts) and embedding vectors (float32 arrays,
stored as raw bytes: a 1536-float vector is 6 KB instead of some 30 KB of JSON text).

A key ``"{model}:{sha256}"`` is split into its model and its hash, which together are unique.
Writes use ``ignore_conflicts``: two workers that asked the same question at once store the
same answer (requests are cached only when they succeed, at temperature 0), so the first one
kept is as good as the second, and neither waits for or fails on the other.
"""

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from django.db import models

# Rows per query: far below SQLite's limit on bound parameters, and small enough for PostgreSQL's planner.
BATCH_SIZE = 500


def split_key(key: str) -> tuple[str, str]:
    """(model, request hash) of a cache key; a model name may itself contain colons ("llama3:8b")."""
    model, separator, request_hash = key.rpartition(":")
    if not separator or not model or len(request_hash) != 64:
        raise ValueError(f"not a request cache key: {key!r}")
    return model, request_hash


class CachedResponse(models.Model):
    """One cached answer: a judge reply or an embedding, under the request that produced it."""

    model = models.CharField(max_length=200)
    request_hash = models.CharField(max_length=64)
    reply = models.JSONField(null=True, blank=True)
    vector = models.BinaryField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["request_hash", "model"], name="one_cached_response_per_request"),
            models.CheckConstraint(
                condition=models.Q(reply__isnull=True) ^ models.Q(vector__isnull=True),
                name="cached_response_is_reply_or_vector",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.model}:{self.request_hash[:12]}…"

    @property
    def value(self) -> Any:
        if self.vector is not None:
            return np.frombuffer(bytes(self.vector), dtype=np.float32)
        return self.reply


class DatabaseRequestCache:
    """The shared request cache; ``hits`` counts the keys it has found, for run statistics."""

    def __init__(self) -> None:
        self.hits = 0

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        wanted: dict[tuple[str, str], str] = {}
        for key in keys:
            model, request_hash = split_key(key)
            wanted[(model, request_hash)] = key
        hashes = sorted({request_hash for _model, request_hash in wanted})
        found: dict[str, Any] = {}
        for start in range(0, len(hashes), BATCH_SIZE):
            rows = CachedResponse.objects.filter(request_hash__in=hashes[start : start + BATCH_SIZE]).only(
                "model", "request_hash", "reply", "vector"
            )
            for row in rows:
                asked = wanted.get((row.model, row.request_hash))
                if asked is not None:
                    found[asked] = row.value
        self.hits += len(found)
        return found

    def set_many(self, mapping: Mapping[str, Any]) -> None:
        rows = []
        for key, value in mapping.items():
            model, request_hash = split_key(key)
            if isinstance(value, np.ndarray):
                rows.append(
                    CachedResponse(
                        model=model, request_hash=request_hash, vector=value.astype(np.float32, copy=False).tobytes()
                    )
                )
            else:
                rows.append(CachedResponse(model=model, request_hash=request_hash, reply=value))
        CachedResponse.objects.bulk_create(rows, batch_size=BATCH_SIZE, ignore_conflicts=True)
