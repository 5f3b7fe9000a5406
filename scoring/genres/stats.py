"""Output statistics: how many triples a text got and how long they are."""

from collections.abc import Sequence


def tokens_in_triple(triple: Sequence[str]) -> int:
    """Whitespace tokens of subject, relation and object together."""
    return sum(len(element.split()) for element in triple)


def tokens_per_triple(triples: Sequence[Sequence[str]]) -> float | None:
    """Mean tokens per triple of one output; None when it has no triple (nothing to measure)."""
    if not triples:
        return None
    return sum(tokens_in_triple(triple) for triple in triples) / len(triples)


def empty_share(triple_counts: Sequence[int]) -> float | None:
    """Share of texts whose output has no triple at all; None for no texts."""
    if not triple_counts:
        return None
    return sum(1 for count in triple_counts if count == 0) / len(triple_counts)
