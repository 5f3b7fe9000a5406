"""Topical similarity (ts): how close the topics of the triples are to the topics of their text.

ts = exp(−KL(θ_D ‖ θ_T)), where θ_D is the LDA topic mixture of the text and θ_T that of its
triples read as one document. One LDA model (gensim) is trained per dataset on the dataset's texts.

Determinism: training is seeded (``random_state``), and inference starts every document from the
same seeded gamma draw, so a mixture depends only on the document and the model, never on what
was inferred before it or in which process. Models are cached on disk per (texts, settings) and
reloaded instead of retrained.

Edge cases: no triples gives ts = 0 (an empty answer earns nothing). A document whose words are
all stop words or unknown to the model gets the prior mixture (the symmetric α, i.e. uniform).
Mixtures are smoothed with ε = 1e-10 before the KL divergence, so a topic that one side lacks
cannot make it infinite.
"""

import hashlib
import json
import math
import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Self

import numpy as np

# gensim and scipy are imported by the functions that use them: this module is imported whenever
# Django loads the apps (TopicSettings, default_topic_count), and they take over a second to import.

SMOOTHING = 1e-10
# Part of every model fingerprint: bump when tokenisation or training changes, so cached models
# built the old way are not reused.
PREPROCESSING_VERSION = 1
MIN_TOPICS, MAX_TOPICS, TOPICS_PER_SQRT_TEXT = 2, 150, 1.3
# Text mixtures memoised at most: a text's outputs are scored together (one chunk, every system),
# so a bound far above a chunk keeps the hits, and a model reused for a whole run stays small.
TEXT_MIXTURES_KEPT = 10_000


def default_topic_count(n_texts: int) -> int:
    """round(1.3 · √n) topics, clamped to [2, 150].

    This meets the paper's range (50–150 topics on 1.5k–38k texts: 50 at 1.5k, capped at 150 from
    about 13k) and gives small datasets few topics (8 for 40 texts), where many would be empty.
    """
    return min(MAX_TOPICS, max(MIN_TOPICS, round(TOPICS_PER_SQRT_TEXT * math.sqrt(n_texts))))


def text_tokens(text: str) -> list[str]:
    """Lower-cased alphabetic tokens of two letters or more, stop words removed."""
    from gensim.parsing.preprocessing import STOPWORDS
    from gensim.utils import tokenize

    return [token for token in tokenize(text, lowercase=True) if len(token) > 1 and token not in STOPWORDS]


def triple_tokens(triples: Iterable[Sequence[str]]) -> list[str]:
    """The tokens of all triples as one document, each triple tokenised on its own."""
    return [token for triple in triples for token in text_tokens(" ".join(triple))]


@dataclass(frozen=True)
class TopicSettings:
    num_topics: int | None = None  # None: default_topic_count(number of texts)
    seed: int = 13
    passes: int = 10
    iterations: int = 100


def corpus_fingerprint(texts: Iterable[str], settings: TopicSettings) -> str:
    digest = hashlib.sha256()
    digest.update(json.dumps({"preprocessing": PREPROCESSING_VERSION, **asdict(settings)}, sort_keys=True).encode())
    # Text order is part of the fingerprint: online LDA sees documents in order.
    for text in texts:
        digest.update(hashlib.sha256(text.encode("utf-8")).digest())
    return digest.hexdigest()


def kl_divergence(p: Sequence[float] | np.ndarray, q: Sequence[float] | np.ndarray) -> float:
    """KL(p ‖ q) after ε-smoothing both mixtures and renormalising them."""
    from scipy.special import rel_entr

    smoothed_p = (np.asarray(p, dtype=np.float64) + SMOOTHING) / (1 + SMOOTHING * len(p))
    smoothed_q = (np.asarray(q, dtype=np.float64) + SMOOTHING) / (1 + SMOOTHING * len(q))
    return float(rel_entr(smoothed_p, smoothed_q).sum())


class TopicModel:
    """A dataset's LDA model with seeded, order-independent inference."""

    MODEL_FILE = "lda"

    def __init__(self, lda: Any, seed: int, fingerprint: str, loaded_from_cache: bool = False) -> None:
        self.lda = lda
        self.seed = seed
        self.fingerprint = fingerprint
        self.loaded_from_cache = loaded_from_cache
        self._text_mixtures: dict[str, np.ndarray] = {}

    @property
    def num_topics(self) -> int:
        return self.lda.num_topics

    @classmethod
    def for_texts(
        cls, texts: Iterable[str], cache_dir: str | os.PathLike[str], settings: TopicSettings = TopicSettings()
    ) -> Self:
        """The model for ``texts``: loaded from ``cache_dir`` when trained before, else trained and saved."""
        from gensim.models import LdaModel

        texts = list(texts)
        fingerprint = corpus_fingerprint(texts, settings)
        model_dir = Path(cache_dir) / f"lda-{fingerprint[:24]}"
        if (model_dir / cls.MODEL_FILE).exists():
            return cls(LdaModel.load(str(model_dir / cls.MODEL_FILE)), settings.seed, fingerprint, True)
        lda = train_lda(texts, settings)
        Path(cache_dir).mkdir(parents=True, exist_ok=True)
        # Save next to the final place, then rename: readers never see half-written files, and of
        # two workers training the same model at once, the second one simply discards its copy.
        staging = Path(tempfile.mkdtemp(prefix=".lda-", dir=cache_dir))
        lda.save(str(staging / cls.MODEL_FILE))
        try:
            os.rename(staging, model_dir)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
        return cls(lda, settings.seed, fingerprint)

    def mixture(self, tokens: list[str]) -> np.ndarray:
        """θ of one tokenised document: the normalised variational gamma, with every topic present."""
        bow = self.lda.id2word.doc2bow(tokens)
        # gensim draws the starting gamma from the model's random state; resetting it per document
        # makes the result independent of earlier calls.
        self.lda.random_state = np.random.RandomState(self.seed)
        gamma, _ = self.lda.inference([bow])
        return gamma[0] / gamma[0].sum()

    def text_mixture(self, text: str) -> np.ndarray:
        """θ_D, memoised (up to TEXT_MIXTURES_KEPT): every system's output for a text is compared with it."""
        mixture = self._text_mixtures.get(text)
        if mixture is None:
            if len(self._text_mixtures) >= TEXT_MIXTURES_KEPT:
                self._text_mixtures.clear()
            mixture = self._text_mixtures[text] = self.mixture(text_tokens(text))
        return mixture

    def topical_similarity(self, text: str, triples: Sequence[Sequence[str]]) -> float:
        """ts = exp(−KL(θ_D ‖ θ_T)); 0 when there is no triple."""
        if not triples:
            return 0.0
        return self.reference_topical_similarity(text, triples)

    def reference_topical_similarity(self, text: str, triples: Sequence[Sequence[str]]) -> float:
        """ts under the reference rules: an output with no triple is an empty document, whose mixture
        is the prior (uniform), so it scores exp(−KL(θ_D ‖ uniform)) > 0 instead of 0.

        The authors' code infers the topics of the empty string for such an output; the paper's
        galactica-30b on cdr, 196 empty outputs of 200, prints TS 4.1 (0 would give about 1).
        """
        return math.exp(-kl_divergence(self.text_mixture(text), self.mixture(triple_tokens(triples))))


def train_lda(texts: Sequence[str], settings: TopicSettings) -> Any:
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel

    documents = [text_tokens(text) for text in texts]
    dictionary = Dictionary(documents)
    if len(dictionary) == 0:
        raise ValueError("the texts have no words left once stop words are removed; topical similarity needs some")
    num_topics = settings.num_topics or default_topic_count(len(texts))
    return LdaModel(
        corpus=[dictionary.doc2bow(document) for document in documents],
        id2word=dictionary,
        num_topics=num_topics,
        passes=settings.passes,
        iterations=settings.iterations,
        chunksize=max(len(documents), 1),
        random_state=settings.seed,
        minimum_probability=0.0,
        eval_every=None,
    )
