"""The offline heuristic judge: word-overlap support and coordination-based splitting."""

import math

import pytest

from scoring.genres.judges.base import SPLIT, SUPPORT, factualness, granularity
from scoring.genres.judges.heuristic import HeuristicJudge
from scoring.genres.judges.registry import get_judge

TEXT = (
    "Marie Skłodowska-Curie, born in Warsaw, founded the Radium Institute in Paris. "
    "She shared the 1903 prize with Pierre Curie and Henri Becquerel."
)


@pytest.fixture
def judge():
    return HeuristicJudge()


def test_it_is_labelled_heuristic():
    judge = get_judge("heuristic")
    assert judge.heuristic is True
    assert (judge.name, judge.model, judge.prompt_version) == ("heuristic", "content-word-overlap", "rules-2")


@pytest.mark.parametrize(
    "triple",
    [
        ["Marie Curie", "born in", "Warsaw"],
        ["marie sklodowska-curie", "founder of", "Radium Institute"],  # case, accents, founded/founder
        ["Curie", "shared prize with", "Henri Becquerel"],
        ["Curie", "shared Nobel award with", "Pierre Curie"],
        ["Radium Institute", "located in", "Paris"],  # relations are named in the extractor's own words
    ],
)
def test_supported_triples(judge, triple):
    [verdict] = judge.check_support([(TEXT, triple)])
    assert verdict.supported and verdict.parsed


@pytest.mark.parametrize(
    "triple",
    [
        ["Marie Curie", "born in", "Lyon"],  # object absent
        ["Albert Einstein", "founded", "Radium Institute"],  # subject absent
    ],
)
def test_unsupported_triples(judge, triple):
    [verdict] = judge.check_support([(TEXT, triple)])
    assert not verdict.supported and verdict.parsed


def test_a_wrong_relation_between_mentioned_entities_passes(judge):
    # The documented limit of the heuristic: only an LLM judge can check the relation itself.
    [verdict] = judge.check_support([(TEXT, ["Marie Curie", "married", "Henri Becquerel"])])
    assert verdict.supported
    assert verdict.reply == "content words found: subject 100%, relation 0%, object 100%"


def test_the_reply_explains_the_verdict(judge):
    [verdict] = judge.check_support([(TEXT, ["Marie Curie", "born in", "Lyon"])])
    assert verdict.reply == "content words found: subject 100%, relation 100%, object 0%"


def test_element_without_words_must_occur_verbatim(judge):
    text = "Inflation rose by 5 % last year."
    assert judge.check_support([(text, ["Inflation", "rose by", "%"])])[0].supported
    assert not judge.check_support([(text, ["Inflation", "rose by", "‰"])])[0].supported


def test_factualness_from_heuristic_verdicts(judge):
    pairs = [(TEXT, ["Marie Curie", "born in", "Warsaw"]), (TEXT, ["Marie Curie", "born in", "Lyon"])]
    assert factualness(judge.check_support(pairs)) == 0.5


@pytest.mark.parametrize(
    "triple, n",
    [
        (["Marie Curie", "born in", "Warsaw"], 0),
        (["Curie", "shared prize with", "Pierre Curie and Henri Becquerel"], 2),
        (["Curie", "worked in", "Warsaw, Paris and Geneva"], 3),
        (["Curie", "worked in", "Warsaw, Paris, and Geneva"], 3),  # serial comma
        (["Curie", "studied", "physics as well as chemistry"], 2),
        (["Curie", "studied", "physics; chemistry"], 2),
        (["Pierre and Marie Curie", "discovered", "polonium and radium"], 4),  # every combination
        (["Springfield, Illinois", "capital of", "Illinois"], 0),  # a comma alone is no list
        (["Company", "sold", "1,000 cars and 2,000 vans"], 2),  # digit groups stay whole
    ],
)
def test_split_counts_coordinated_items(judge, triple, n):
    [verdict] = judge.split([("unused", triple)])
    assert verdict.n == n
    assert verdict.parsed


def test_split_lists_the_finer_triples(judge):
    [verdict] = judge.split([("", ["Pierre and Marie Curie", "discovered", "polonium and radium"])])
    assert verdict.sub_triples == [
        ["Pierre", "discovered", "polonium"],
        ["Pierre", "discovered", "radium"],
        ["Marie Curie", "discovered", "polonium"],
        ["Marie Curie", "discovered", "radium"],
    ]
    assert verdict.reply.splitlines() == [
        "2 subject item(s) x 2 object item(s)",
        '["Pierre", "discovered", "polonium"]',
        '["Pierre", "discovered", "radium"]',
        '["Marie Curie", "discovered", "polonium"]',
        '["Marie Curie", "discovered", "radium"]',
    ]


def test_granularity_from_heuristic_verdicts(judge):
    pairs = [("", ["A", "r", "B"]), ("", ["A", "r", "B and C"])]
    assert granularity(judge.split(pairs)) == pytest.approx((1 + math.exp(-2)) / 2)


def test_it_needs_no_requests(judge):
    pairs = [(TEXT, ["Marie Curie", "born in", "Warsaw"])] * 3
    for task in (SUPPORT, SPLIT):
        count = judge.count_requests(pairs, task)
        assert (count.judgements, count.requests, count.to_send) == (3, 0, 0)
    assert judge.usage.requests == 0


def test_unknown_task_is_refused(judge):
    with pytest.raises(ValueError, match="unknown judge task 'rank'"):
        judge.count_requests([], "rank")


def test_unknown_judge_is_refused():
    with pytest.raises(ValueError, match="unknown judge 'oracle'; choose one of heuristic, openai"):
        get_judge("oracle")
