"""The chunk scorer: every GENRES metric for a batch of texts of one system, and system means.

The Django jobs split a system's outputs into chunks and call ``Scorer.score`` on each; the
scorer batches all the work of a chunk, so each distinct string is embedded once and the judge
receives every triple of the chunk in one call (and can send its requests concurrently).

Values per text (``TextScores.values``), None where not applicable or not requested:
ts, us, fs, gs, cs, precision, recall, f1, relaxed_precision, relaxed_recall, relaxed_f1, and the
statistics triples (count) and tokens_per_triple, which are always filled in. The edge cases are
those of the metric modules: no triples gives ts = us = fs = gs = cs = 0 (app rules) and P = R = F1 = 0; one
triple gives us = 1; no gold gives cs and every P/R/F1 value None.

``ScoreSettings.rules`` picks the app's own rules or the reference rules of the GENRES authors'
code (``rules``): they differ in granularity, tokens per triple, malformed items, and the ts and
us of an output with no triples only.
"""

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from scoring.genres.aspects import ASPECT_CODES, METRICS, PRF_CODES
from scoring.genres.embedders import Embedder
from scoring.genres.judges.base import Judge, SplitVerdict, SupportVerdict, factualness, granularity
from scoring.genres.prf import exact_prf, relaxed_prf
from scoring.genres.prompts import PromptTemplate, templates_from_texts
from scoring.genres.rules import (
    APP,
    REFERENCE,
    check_rules,
    judged_item,
    output_statistics,
    reference_granularity,
)
from scoring.genres.similarity import (
    EMBEDDING_MODES,
    completeness,
    embed_triple_lists,
    reference_uniqueness,
    uniqueness,
)
from scoring.genres.stats import empty_share
from scoring.genres.topics import TopicModel, TopicSettings
from scoring.genres.triples import triple_problem

VALUE_NAMES = (*ASPECT_CODES, *PRF_CODES, "triples", "tokens_per_triple")
AVERAGED = (*ASPECT_CODES, *PRF_CODES)


@dataclass(frozen=True)
class ScoreSettings:
    """What a scoring run is asked to do; ``provenance`` records what it then actually used."""

    embedder: str = "hashing"
    embedding_mode: str = "sum"
    threshold: float | None = None  # φ; None: the embedder's calibrated default
    judge: str = "heuristic"
    lda_topics: int | None = None  # None: scaled to the dataset (topics.default_topic_count)
    lda_seed: int = 13
    relaxed_threshold: float = 0.5
    # A researcher's own judge prompts, {"fs": text, "gs": text}, stored with the run.
    prompt_templates: dict = field(default_factory=dict)
    # The recorded judge: the source name its verdicts were imported under.
    verdict_source: str = ""
    rules: str = APP

    def __post_init__(self) -> None:
        check_rules(self.rules)
        if self.embedding_mode not in EMBEDDING_MODES:
            raise ValueError(f"embedding_mode must be one of {', '.join(EMBEDDING_MODES)}, not {self.embedding_mode!r}")
        if self.threshold is not None and not -1 <= self.threshold <= 1:
            raise ValueError(f"threshold is a cosine, between -1 and 1, not {self.threshold}")
        if self.lda_topics is not None and self.lda_topics < 2:
            raise ValueError(f"lda_topics must be at least 2, not {self.lda_topics}")
        if not 0 < self.relaxed_threshold <= 1:
            raise ValueError(f"relaxed_threshold is a Jaccard share in (0, 1], not {self.relaxed_threshold}")
        if self.prompt_templates and self.judge != "openai":
            raise ValueError(f"prompt templates are for the openai judge; the {self.judge} judge asks no LLM")
        self.judge_templates()  # a template without its placeholders raises TemplateError here
        if (self.judge == "recorded") != bool(self.verdict_source):
            raise ValueError("the recorded judge, and only it, needs the source name of imported verdicts")

    def judge_templates(self) -> list[PromptTemplate]:
        return templates_from_texts(self.prompt_templates)

    def threshold_for(self, embedder: Embedder) -> float:
        return embedder.default_threshold if self.threshold is None else self.threshold

    def topic_settings(self) -> TopicSettings:
        return TopicSettings(num_topics=self.lda_topics, seed=self.lda_seed)

    def provenance(
        self, embedder: Embedder, judge: Judge | None = None, topic_model: TopicModel | None = None
    ) -> dict[str, Any]:
        """Everything that shapes the scores, with defaults resolved (φ, topic count).

        A judge or topic model that a run does not use is given as None; its entries then
        name the requested judge and topic count without a model.
        """
        templates = getattr(judge, "prompt_templates", None)  # the openai judge's only
        return {
            "embedder": embedder.name,
            "embedder_model": embedder.model,
            "threshold": self.threshold_for(embedder),
            "embedding_mode": self.embedding_mode,
            "judge": judge.name if judge else self.judge,
            "judge_model": judge.model if judge else None,
            "prompt_version": judge.prompt_version if judge else None,
            "heuristic_judge": judge.heuristic if judge else None,
            # Only with templates: runs with the app's own prompts keep their fingerprint.
            **({"prompt_templates": templates} if templates else {}),
            "lda_topics": topic_model.num_topics if topic_model else self.lda_topics,
            "lda_seed": self.lda_seed,
            "relaxed_threshold": self.relaxed_threshold,
            "rules": self.rules,
        }

    def fingerprint(self, embedder: Embedder, judge: Judge | None = None, topic_model: TopicModel | None = None) -> str:
        """A stable hash of the provenance: equal exactly when scores are comparable.

        The app's own rules are hashed without their entry, so settings stored before the
        reference rules existed keep their fingerprint and their scores stay current.
        """
        provenance = self.provenance(embedder, judge, topic_model)
        if provenance["rules"] == APP:
            del provenance["rules"]
        canonical = json.dumps(provenance, sort_keys=True)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass
class TextRecord:
    """One system's output for one text. An empty ``gold`` means the text has no gold triples.

    ``malformed``: items the file held that are not triples (see ``rules``); only the reference
    rules count them.
    """

    key: object
    text: str
    triples: list
    gold: list = field(default_factory=list)
    malformed: list = field(default_factory=list)


@dataclass
class TextScores:
    key: object
    values: dict
    details: dict = field(default_factory=dict)  # judge verdicts per triple: {"fs": [...], "gs": [...]}


def check_records(records: Iterable[TextRecord]) -> None:
    """Raise ValueError naming the first record holding something that is not a triple."""
    for record in records:
        for kind, triples in (("triple", record.triples), ("gold triple", record.gold)):
            for number, triple in enumerate(triples, start=1):
                problem = triple_problem(triple)
                if problem:
                    raise ValueError(f"record {record.key!r}, {kind} {number}: {problem}")


class Scorer:
    def __init__(
        self,
        settings: ScoreSettings,
        embedder: Embedder,
        judge: Judge | None = None,
        topic_model: TopicModel | None = None,
    ) -> None:
        self.settings = settings
        self.embedder = embedder
        self.judge = judge
        self.topic_model = topic_model
        self.threshold = settings.threshold_for(embedder)

    def provenance(self) -> dict[str, Any]:
        return self.settings.provenance(self.embedder, self.judge, self.topic_model)

    def score(self, records: Iterable[TextRecord], metrics: Iterable[str] = METRICS) -> list[TextScores]:
        """Scores of each record, in order. Invalid input raises ValueError before any work."""
        records = list(records)
        wanted = self._checked_metrics(metrics)
        check_records(records)
        scores = [TextScores(record.key, dict.fromkeys(VALUE_NAMES)) for record in records]
        for record, text_scores in zip(records, scores, strict=True):
            text_scores.values["triples"], text_scores.values["tokens_per_triple"] = output_statistics(
                record.triples, record.malformed, self.settings.rules
            )
        if "ts" in wanted:
            assert self.topic_model is not None  # _checked_metrics refused ts without one
            topical_similarity = (
                self.topic_model.reference_topical_similarity
                if self.settings.rules == REFERENCE
                else self.topic_model.topical_similarity
            )
            for record, text_scores in zip(records, scores, strict=True):
                text_scores.values["ts"] = topical_similarity(record.text, record.triples)
        if "us" in wanted or "cs" in wanted:
            self._score_embeddings(records, scores, wanted)
        if "fs" in wanted:
            assert self.judge is not None  # _checked_metrics refused fs without one
            support = self.judge.check_support(self._pairs(records))
            self._record_verdicts(records, scores, "fs", support, lambda _items, own: factualness(own))
        if "gs" in wanted:
            assert self.judge is not None  # _checked_metrics refused gs without one
            splits = self.judge.split(self._pairs(records))
            self._record_verdicts(records, scores, "gs", splits, self._granularity_rule())
        if "prf" in wanted:
            for record, text_scores in zip(records, scores, strict=True):
                self._score_prf(record, text_scores.values)
        return scores

    def _checked_metrics(self, metrics: Iterable[str]) -> set[str]:
        wanted = set(metrics)
        unknown = wanted - set(METRICS)
        if unknown:
            raise ValueError(f"unknown metric(s) {', '.join(sorted(unknown))}; choose from {', '.join(METRICS)}")
        if "ts" in wanted and self.topic_model is None:
            raise ValueError("topical similarity (ts) needs the dataset's topic model")
        if wanted & {"fs", "gs"} and self.judge is None:
            raise ValueError("factualness (fs) and granularity (gs) need a judge")
        return wanted

    def _score_embeddings(self, records: list[TextRecord], scores: list[TextScores], metrics: set[str]) -> None:
        with_gold = "cs" in metrics
        triple_lists = [record.triples for record in records]
        if with_gold:
            triple_lists += [record.gold for record in records]
        embeddings = embed_triple_lists(triple_lists, self.embedder, self.settings.embedding_mode)
        uniqueness_rule = reference_uniqueness if self.settings.rules == REFERENCE else uniqueness
        for index, text_scores in enumerate(scores):
            extracted = embeddings[index]
            if "us" in metrics:
                text_scores.values["us"] = uniqueness_rule(extracted, self.threshold)
            if with_gold:
                text_scores.values["cs"] = completeness(extracted, embeddings[len(records) + index], self.threshold)

    def _judged(self, record: TextRecord) -> list[Any]:
        """What the judge sees of a record: its triples, and under the reference rules the
        malformed items the authors judged too."""
        if self.settings.rules == REFERENCE:
            judged = (judged_item(item) for item in record.malformed)
            return [*record.triples, *(list(item) for item in judged if item is not None)]
        return record.triples

    def _granularity_rule(self) -> Callable[[list[Any], list[SplitVerdict]], float | None]:
        if self.settings.rules == REFERENCE:
            # A missing (recorded) verdict is left out, as under the app's rules.
            return lambda items, own: reference_granularity(
                [item for item, verdict in zip(items, own, strict=True) if not verdict.missing],
                [verdict.reply for verdict in own if not verdict.missing],
            )
        return lambda _items, own: granularity(own)

    def _pairs(self, records: list[TextRecord]) -> list[tuple[str, Any]]:
        return [(record.text, item) for record in records for item in self._judged(record)]

    def _record_verdicts(
        self,
        records: list[TextRecord],
        scores: list[TextScores],
        metric: str,
        verdicts: Sequence[SupportVerdict] | Sequence[SplitVerdict],
        score_of: Callable[[list[Any], Any], float | None],
    ) -> None:
        start = 0
        for record, text_scores in zip(records, scores, strict=True):
            items = self._judged(record)
            own = verdicts[start : start + len(items)]
            start += len(items)
            text_scores.values[metric] = score_of(items, own)
            text_scores.details[metric] = [asdict(verdict) for verdict in own]

    def _score_prf(self, record: TextRecord, values: dict[str, Any]) -> None:
        exact = exact_prf(record.triples, record.gold)
        if exact is None:  # no gold: P/R/F1 stay None
            return
        relaxed = relaxed_prf(record.triples, record.gold, self.settings.relaxed_threshold)
        values.update(zip(("precision", "recall", "f1"), exact, strict=True))
        assert relaxed is not None  # there is gold, as for exact
        values.update(zip(("relaxed_precision", "relaxed_recall", "relaxed_f1"), relaxed, strict=True))


def mean(values: Iterable[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return sum(present) / len(present) if present else None


def aggregate(scores: Sequence[TextScores]) -> dict[str, Any]:
    """System-level means over texts; a text whose value is None is left out of that mean."""
    return {
        "texts": len(scores),
        "triples_per_text": mean([text_scores.values["triples"] for text_scores in scores]),
        "tokens_per_triple": mean([text_scores.values["tokens_per_triple"] for text_scores in scores]),
        **{name: mean([text_scores.values[name] for text_scores in scores]) for name in AVERAGED},
        "empty_share": empty_share([text_scores.values["triples"] for text_scores in scores]),
    }
