"""The vocabulary of scores: every aspect and score column defined once (pure data, no Django).

The scorer, the run form, the score tables of the scoring pages and of the leaderboard, the
plots, the downloads and the annotation models all read these definitions, so a column is
named, headed, scaled and ranked the same way everywhere.
"""

from dataclasses import dataclass

HIGHER = "higher"
LOWER = "lower"
# Fractions are shown ×100 with one decimal, as on the leaderboard and in the GENRES paper; the
# stored values and the CSV/JSON downloads keep the 0–1 fractions. Counts are shown as they are.
HUNDRED = "×100"
COUNT = ""


@dataclass(frozen=True)
class Column:
    """One stored score: ``code`` is its key in the stored values."""

    code: str
    name: str  # what it is, in words (a heading's tooltip)
    heading: str  # the short table heading
    better: str | None = HIGHER  # HIGHER, LOWER, or None where neither is better (the counts)
    unit: str = HUNDRED
    group: str = ""  # the leaderboard's heading above a run of columns
    human: bool = False  # also judged by annotators, pair by pair: one of the five aspects
    judge: bool = False  # computed by the LLM judge (or the offline heuristic standing in for it)

    @property
    def title(self) -> str:
        """The name with the unit the pages show it in."""
        return f"{self.name} {self.unit}" if self.unit else self.name

    @property
    def scale(self) -> int:
        """What a stored value is multiplied by to be shown."""
        return 100 if self.unit == HUNDRED else 1

    def shown(self, value: float | None) -> str:
        """A stored value as the pages show it, one decimal; "" when None."""
        return "" if value is None else f"{self.scale * value:.1f}"


GENRES_GROUP = f"GENRES {HUNDRED}"
TRIPLES = Column("triples_per_text", "Mean number of triples per text", "Triples", better=None, unit=COUNT)
TOKENS = Column(
    "tokens_per_triple", "Mean tokens per triple (subject + relation + object)", "Tokens", better=None, unit=COUNT
)
TS = Column("ts", "Topical similarity", "TS", group=GENRES_GROUP, human=True)
US = Column("us", "Uniqueness", "US", group=GENRES_GROUP, human=True)
FS = Column("fs", "Factualness", "FS", group=GENRES_GROUP, human=True, judge=True)
GS = Column("gs", "Granularity", "GS", group=GENRES_GROUP, human=True, judge=True)
CS = Column("cs", "Completeness", "CS", group=GENRES_GROUP, human=True)
PRECISION = Column("precision", "Exact-match precision", "P", group=f"Exact match {HUNDRED}")
RECALL = Column("recall", "Exact-match recall", "R", group=f"Exact match {HUNDRED}")
F1 = Column("f1", "Exact-match F1", "F1", group=f"Exact match {HUNDRED}")
RELAXED_PRECISION = Column("relaxed_precision", "Relaxed precision", "rP", group=f"Relaxed {HUNDRED}")
RELAXED_RECALL = Column("relaxed_recall", "Relaxed recall", "rR", group=f"Relaxed {HUNDRED}")
RELAXED_F1 = Column("relaxed_f1", "Relaxed F1", "rF1", group=f"Relaxed {HUNDRED}")
EMPTY_SHARE = Column("empty_share", "Share of texts with no triple", "Empty", better=LOWER)

PRF_COLUMNS = (PRECISION, RECALL, F1, RELAXED_PRECISION, RELAXED_RECALL, RELAXED_F1)
# Every column of a system's aggregates, in table order.
COLUMNS = (TRIPLES, TOKENS, TS, US, FS, GS, CS, *PRF_COLUMNS, EMPTY_SHARE)
BY_CODE = {column.code: column for column in COLUMNS}
# The five GENRES aspects, in the paper's order: the metrics that humans judge too.
ASPECTS = tuple(column for column in COLUMNS if column.human)
ASPECT_CODES = tuple(aspect.code for aspect in ASPECTS)
JUDGED_CODES = tuple(column.code for column in COLUMNS if column.judge)
PRF_CODES = tuple(column.code for column in PRF_COLUMNS)
# What a scoring run can compute: each aspect, and precision/recall/F1 (exact and relaxed) as one metric.
PRF = "prf"
METRICS = (*ASPECT_CODES, PRF)
METRIC_NAMES = {
    **{aspect.code: f"{aspect.name} ({aspect.code}{', judge' if aspect.judge else ''})" for aspect in ASPECTS},
    PRF: "Precision, recall, F1: exact and relaxed",
}
