"""Adaptive pair order, the pure choice: pair uncertainty from a Bradley–Terry bootstrap, and what comes next."""

import numpy as np
import pytest

from annotation.adaptive import Candidate, PairPriority, choose, order_uncertainty, pair_priorities
from annotation.ratings import Battles


def battles(records, systems=("alpha", "beta", "gamma")):
    return Battles.from_labels(records, systems=list(systems))


def test_no_battles_leave_every_order_a_coin_flip():
    uncertainty = order_uncertainty(battles([]))
    assert uncertainty == pytest.approx(np.full((3, 3), 0.5))


def test_a_pair_one_side_always_wins_is_certain_and_an_even_pair_is_not():
    records = [("alpha", "beta", "a")] * 40 + [("beta", "gamma", "a"), ("beta", "gamma", "b")] * 20
    uncertainty = order_uncertainty(battles(records), rounds=200)
    assert uncertainty[0, 1] == uncertainty[1, 0] == 0.0  # every round puts alpha above beta
    assert uncertainty[1, 2] > 0.3  # beta and gamma won as often: the rounds split


def test_priorities_sum_the_first_aspects_keep_completeness_apart_and_count_battles_per_pair():
    certain = battles([("alpha", "beta", "a")] * 40)
    unjudged = battles([])
    priorities = pair_priorities({"ts": certain, "us": unjudged, "cs": certain}, rounds=100)
    assert priorities[frozenset(("alpha", "beta"))] == pytest.approx(PairPriority(0.0 + 0.5, 0.0, 80))
    assert tuple(priorities[frozenset(("beta", "gamma"))])[2] == 0
    assert pair_priorities({}) == {}


def candidate(key, text, pair, position, done=False):
    return Candidate(key=key, text=text, pair=pair, position=position, first_aspects_done=done)


PRIORITIES = {
    frozenset(("alpha", "beta")): PairPriority(0.0, 0.0, 40),
    frozenset(("alpha", "gamma")): PairPriority(1.2, 0.0, 5),
    frozenset(("beta", "gamma")): PairPriority(1.2, 0.0, 2),
}


def test_the_least_certain_pair_comes_first_then_the_fewest_battles_then_the_queue():
    pending = [
        candidate(1, "t1", ("alpha", "beta"), 0),
        candidate(2, "t1", ("alpha", "gamma"), 1),
        candidate(3, "t2", ("gamma", "beta"), 5),  # either order of names
        candidate(4, "t3", ("beta", "gamma"), 4),
    ]
    assert choose(pending, PRIORITIES) == 4  # 1.2 like alpha-gamma, fewer battles, earlier than 3
    # A pair without priorities (a system not battled yet) counts as wholly uncertain.
    assert choose([*pending, candidate(5, "t4", ("alpha", "delta"), 9)], PRIORITIES) == 5


def test_completeness_of_a_ready_text_comes_before_any_new_pair():
    pending = [
        candidate(1, "t1", ("alpha", "gamma"), 0),
        candidate(2, "t2", ("alpha", "beta"), 7, done=True),
        candidate(3, "t2", ("beta", "gamma"), 6, done=True),
    ]
    assert choose(pending, PRIORITIES) == 3  # t2's pairs all have their first four: its gold is shown


def test_a_pair_waiting_for_the_rest_of_its_text_is_never_served():
    pending = [
        candidate(1, "t1", ("beta", "gamma"), 0, done=True),  # the most uncertain, but t1 is not ready
        candidate(2, "t1", ("alpha", "beta"), 1),
    ]
    assert choose(pending, PRIORITIES) == 2
    assert choose([], PRIORITIES) is None


def test_an_open_completeness_ranking_pulls_towards_finishing_a_text():
    """Completeness is released a text at a time: a pair of a text with one pair left to finish
    carries all of the text's completeness uncertainty, one of a fresh text a share of it."""
    priorities = {
        frozenset(("alpha", "beta")): PairPriority(0.4, 0.5, 10),
        frozenset(("alpha", "gamma")): PairPriority(0.8, 0.5, 10),
        frozenset(("beta", "gamma")): PairPriority(0.4, 0.5, 10),
    }
    nearly_done = [candidate(1, "t1", ("alpha", "beta"), 0, done=True), candidate(2, "t1", ("beta", "gamma"), 1)]
    fresh = [candidate(3, "t2", ("alpha", "beta"), 2), candidate(4, "t2", ("alpha", "gamma"), 3)]
    # t1: 0.4 + (0.5 + 0.5) / 1 = 1.4; t2's alpha-gamma: 0.8 + 1.0 / 2 = 1.3.
    assert choose([*nearly_done, *fresh], priorities) == 2
    # With completeness settled, the more uncertain pair of the fresh text comes first.
    settled = {pair: priority._replace(completeness=0.0) for pair, priority in priorities.items()}
    assert choose([*nearly_done, *fresh], settled) == 4


def test_without_priorities_the_queue_order():
    pending = [candidate(1, "t1", ("alpha", "beta"), 3), candidate(2, "t2", ("alpha", "gamma"), 1)]
    assert choose(pending, {}) == 2
