"""Which gold triples each extracted triple nearly equals, for the completeness page's hover marks.

The test is the one of the relaxed P/R/F1 (``scoring.genres.prf.relaxed_matches``), on the same
normalised triples with the same default threshold: subject, relation and object each reach a
token Jaccard of at least the threshold. Every passing pair is listed, not a one-to-one matching:
the page points at what is near, and the annotator judges.
"""

from collections.abc import Sequence

from scoring.genres.prf import normalise_triple, relaxed_matches
from scoring.genres.scorer import ScoreSettings
from scoring.genres.triples import Triple


def gold_matches(
    triples: Sequence[Triple], gold: Sequence[Triple], threshold: float = ScoreSettings.relaxed_threshold
) -> list[list[int]]:
    """For each triple of ``triples``, the 0-based positions of the ``gold`` triples it soft-matches."""
    if not triples or not gold:
        return [[] for _ in triples]
    allowed = relaxed_matches(
        [normalise_triple(triple) for triple in triples], [normalise_triple(triple) for triple in gold], threshold
    )
    return [[int(position) for position in row.nonzero()[0]] for row in allowed]
