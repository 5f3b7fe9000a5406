import json

import pytest

from scoring.genres.embedders import HashingEmbedder
from scoring.genres.judges.heuristic import HeuristicJudge
from scoring.genres.scorer import VALUE_NAMES, Scorer, ScoreSettings, TextRecord, aggregate
from scoring.genres.topics import TopicModel

CURIE = "Marie Curie was born in Warsaw. She won the Nobel Prize in Physics and the Nobel Prize in Chemistry."
DANUBE = "The Danube rises in the Black Forest and flows into the Black Sea after crossing ten countries."
GOLD_CURIE = [["Marie Curie", "born in", "Warsaw"], ["Marie Curie", "won", "Nobel Prize in Physics"]]


class RecordingJudge(HeuristicJudge):
    """The heuristic judge, noting every batch it is given."""

    def __init__(self):
        self.batches = []

    def check_support(self, pairs):
        self.batches.append(("support", list(pairs)))
        return super().check_support(pairs)

    def split(self, pairs):
        self.batches.append(("split", list(pairs)))
        return super().split(pairs)


@pytest.fixture(scope="module")
def topic_model(tmp_path_factory):
    return TopicModel.for_texts([CURIE, DANUBE] * 5, tmp_path_factory.mktemp("lda"), ScoreSettings().topic_settings())


@pytest.fixture
def judge():
    return RecordingJudge()


@pytest.fixture
def scorer(judge, topic_model):
    return Scorer(ScoreSettings(), HashingEmbedder(), judge, topic_model)


def records():
    return [
        TextRecord("curie", CURIE, [["Marie Curie", "born in", "Warsaw"], ["Curie", "won", "Nobel Prize"]], GOLD_CURIE),
        TextRecord("danube", DANUBE, [["Danube", "flows into", "Black Sea"]], []),
        TextRecord("empty", CURIE, [], GOLD_CURIE),
    ]


def test_every_metric_per_text(scorer):
    curie, danube, empty = (text_scores.values for text_scores in scorer.score(records()))
    assert set(curie) == set(VALUE_NAMES)
    assert curie["triples"] == 2 and curie["tokens_per_triple"] == 4.5
    assert 0 < curie["ts"] <= 1
    assert curie["us"] == 1.0
    assert curie["fs"] == 1.0
    assert curie["gs"] == 1.0
    assert curie["cs"] == 1.0
    # Exact: only "born in" matches; relaxed: both, one-to-one.
    assert (curie["precision"], curie["recall"], curie["f1"]) == (0.5, 0.5, 0.5)
    assert (curie["relaxed_precision"], curie["relaxed_recall"], curie["relaxed_f1"]) == (1.0, 1.0, 1.0)
    # One triple, no gold.
    assert danube["us"] == 1.0
    assert [danube[name] for name in ("cs", "precision", "recall", "f1", "relaxed_f1")] == [None] * 5
    # An empty answer earns nothing, and has no tokens per triple.
    assert [empty[name] for name in ("ts", "us", "fs", "gs", "cs", "precision", "recall", "f1")] == [0.0] * 8
    assert empty["triples"] == 0 and empty["tokens_per_triple"] is None


def test_scores_are_plain_json_values(scorer):
    scores = scorer.score(records())
    assert json.loads(json.dumps([[s.key, s.values, s.details] for s in scores]))[0][1] == scores[0].values


def test_judge_gets_each_task_once_for_the_whole_chunk(scorer, judge):
    scorer.score(records(), ["fs", "gs"])
    pairs = [
        (CURIE, ["Marie Curie", "born in", "Warsaw"]),
        (CURIE, ["Curie", "won", "Nobel Prize"]),
        (DANUBE, ["Danube", "flows into", "Black Sea"]),
    ]
    assert judge.batches == [("support", pairs), ("split", pairs)]


def test_verdicts_are_kept_per_triple(scorer):
    curie, danube, empty = scorer.score(records(), ["fs", "gs"])
    assert [verdict["supported"] for verdict in curie.details["fs"]] == [True, True]
    assert [verdict["n"] for verdict in danube.details["gs"]] == [0]
    assert empty.details == {"fs": [], "gs": []}


def test_split_triples_lower_granularity(scorer):
    record = TextRecord("k", CURIE, [["Marie Curie", "won", "Physics and Chemistry prizes"]])
    [text_scores] = scorer.score([record], ["gs"])
    # Two sub-triples: e^-2.
    assert text_scores.values["gs"] == pytest.approx(0.1353352832)


def test_only_requested_metrics_are_computed(scorer, judge):
    [text_scores, *_] = scorer.score(records(), ["prf"])
    assert text_scores.values["precision"] == 0.5
    assert [text_scores.values[name] for name in ("ts", "us", "fs", "gs", "cs")] == [None] * 5
    assert text_scores.values["triples"] == 2
    assert judge.batches == []


def test_duplicates_lower_uniqueness_but_count_once_in_prf(scorer):
    triple = ["Marie Curie", "born in", "Warsaw"]
    [text_scores] = scorer.score([TextRecord("k", CURIE, [triple, triple], GOLD_CURIE)], ["us", "prf"])
    assert text_scores.values["us"] == 0.0
    assert (text_scores.values["precision"], text_scores.values["recall"]) == (1.0, 0.5)


def test_concat_mode_tells_reversed_triples_apart(topic_model):
    reversed_pair = [["Warsaw", "capital of", "Poland"], ["Poland", "capital of", "Warsaw"]]
    record = TextRecord("k", CURIE, reversed_pair)
    summed = Scorer(ScoreSettings(), HashingEmbedder()).score([record], ["us"])
    concatenated = Scorer(ScoreSettings(embedding_mode="concat"), HashingEmbedder()).score([record], ["us"])
    assert (summed[0].values["us"], concatenated[0].values["us"]) == (0.0, 1.0)


def test_scores_are_the_same_twice(scorer):
    assert [s.values for s in scorer.score(records())] == [s.values for s in scorer.score(records())]


def test_invalid_records_are_refused_before_any_work(scorer, judge):
    bad = [*records(), TextRecord("text-9", CURIE, [["Marie Curie", "", "Warsaw"]])]
    with pytest.raises(ValueError, match=r"record 'text-9', triple 1: relation is empty"):
        scorer.score(bad)
    with pytest.raises(ValueError, match=r"record 'g', gold triple 2: expected 3 items"):
        scorer.score([TextRecord("g", CURIE, [], [GOLD_CURIE[0], ["a", "b"]])])
    assert judge.batches == []


def test_unknown_or_unservable_metrics_are_refused():
    with pytest.raises(ValueError, match="unknown metric"):
        Scorer(ScoreSettings(), HashingEmbedder()).score(records(), ["bleu"])
    with pytest.raises(ValueError, match="needs the dataset's topic model"):
        Scorer(ScoreSettings(), HashingEmbedder()).score(records(), ["ts"])
    with pytest.raises(ValueError, match="need a judge"):
        Scorer(ScoreSettings(), HashingEmbedder()).score(records(), ["gs"])


@pytest.mark.parametrize(
    "options, message",
    [
        ({"embedding_mode": "mean"}, "embedding_mode"),
        ({"threshold": 1.5}, "between -1 and 1"),
        ({"lda_topics": 1}, "at least 2"),
        ({"relaxed_threshold": 0}, "Jaccard"),
    ],
)
def test_settings_refuse_impossible_values(options, message):
    with pytest.raises(ValueError, match=message):
        ScoreSettings(**options)


def test_threshold_defaults_to_the_embedder_and_can_be_set():
    assert Scorer(ScoreSettings(), HashingEmbedder()).threshold == HashingEmbedder.default_threshold
    assert Scorer(ScoreSettings(threshold=0.9), HashingEmbedder()).threshold == 0.9


def test_provenance_names_everything_that_shapes_the_scores(scorer, topic_model):
    assert scorer.provenance() == {
        "embedder": "hashing",
        "embedder_model": HashingEmbedder().model,
        "threshold": HashingEmbedder.default_threshold,
        "embedding_mode": "sum",
        "judge": "heuristic",
        "judge_model": HeuristicJudge.model,
        "prompt_version": HeuristicJudge.prompt_version,
        "heuristic_judge": True,
        "lda_topics": topic_model.num_topics,
        "lda_seed": 13,
        "relaxed_threshold": 0.5,
        "rules": "app",
    }


def test_fingerprint_is_stable_and_follows_the_settings(topic_model):
    embedder, judge = HashingEmbedder(), HeuristicJudge()
    fingerprint = ScoreSettings().fingerprint(embedder, judge, topic_model)
    explicit = ScoreSettings(threshold=HashingEmbedder.default_threshold)
    assert fingerprint == explicit.fingerprint(embedder, judge, topic_model)
    assert fingerprint != ScoreSettings(threshold=0.7).fingerprint(embedder, judge, topic_model)
    assert fingerprint != ScoreSettings(lda_seed=14).fingerprint(embedder, judge, topic_model)
    assert len(fingerprint) == 64


def test_aggregate_averages_texts_and_leaves_out_not_applicable_ones(scorer):
    scores = scorer.score(records(), ["us", "cs", "prf"])
    summary = aggregate(scores)
    assert summary["texts"] == 3
    assert summary["triples_per_text"] == 1.0
    assert summary["tokens_per_triple"] == pytest.approx((4.5 + 5) / 2)
    assert summary["us"] == pytest.approx(2 / 3)
    # The Danube text has no gold: cs and P/R/F1 average over the other two.
    assert summary["cs"] == 0.5
    assert summary["precision"] == 0.25 and summary["relaxed_recall"] == 0.5
    assert summary["empty_share"] == pytest.approx(1 / 3)
    assert summary["ts"] is None and summary["fs"] is None


def test_aggregate_of_nothing():
    summary = aggregate([])
    assert summary["texts"] == 0
    assert all(summary[name] is None for name in summary if name != "texts")
