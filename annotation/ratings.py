"""Ratings of systems from pairwise battles: online Elo and Bradley–Terry (pure numpy/scipy).

A battle compares system ``a`` with system ``b``; its outcome is system a's score: 1 (a
better), 0 (b better) or 0.5 (tie). :class:`Battles` holds them as parallel numpy arrays of
system indices and outcomes, beside the tuple of system names. Human judgements and metric
battles (``leaderboard.metric_battles``) both arrive in this form, so both are rated the same way.

Both methods put ratings on the chess scale: a system rated 400 points above another is
expected to score 10 to 1 against it (initial rating 1000, scale 400, base 10).

* Online Elo plays the battles one by one, in the given order or in a seeded shuffle, each
  moving the two ratings by ``k · (outcome − expected outcome)``. One pass in import order
  (``single_pass_leaderboard``) is how the GENRES paper computed its ratings; the leaderboards
  report the bootstrap median beside it, which does not depend on the order of play.
* Bradley–Terry is the maximum-likelihood fit of the same model to all battles at once, with
  a tie counted as half a win for each side. A weak Gaussian prior on the log-strengths
  (standard deviation :data:`PRIOR_SD` rating points) keeps a system that never wins, or never
  loses, at a finite rating; it also anchors the scale: the mean rating is exactly 1000. With
  200 battles between two systems it moves their difference by half a point.

The bootstrap resamples the battles with replacement (seeded) and recomputes the ratings in
every round; the 95% interval runs from the 2.5th to the 97.5th percentile of the rounds. Both
bootstraps run all rounds at once: Elo loops over battle positions only, updating every round
in one vector operation; Bradley–Terry aggregates each round into a win matrix and fits all
rounds together with batched Newton steps.

The leaderboard functions return ``{system: {"rating", "ci_low", "ci_high", "battles"}}``.
"""

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Self

import numpy as np

from annotation.agreement import TIE, A, B

# scipy is imported by the functions that use it: this module is imported whenever Django loads
# the apps, and scipy.sparse and scipy.special take half a second to import.

INITIAL_RATING = 1000.0
SCALE = 400.0
BASE = 10.0
K_FACTOR = 16.0
BOOTSTRAP_ROUNDS = 1000
INTERVAL_PERCENTILES = (2.5, 97.5)
PRIOR_SD = 400.0
ORDERS = ("given", "shuffled")
OUTCOME_OF_LABEL = {A: 1.0, B: 0.0, TIE: 0.5}

# Natural-log strength per rating point: P(a beats b) = expit(LOG_STRENGTH_PER_POINT · (R_a − R_b)).
LOG_STRENGTH_PER_POINT = math.log(BASE) / SCALE
# Newton's method on the penalised Bradley–Terry likelihood: stop once no strength moves by more
# than this (in natural-log units: 1e-10 is 2e-8 rating points).
_NEWTON_TOLERANCE = 1e-10
_NEWTON_MAX_STEPS = 100
_NEWTON_MAX_HALVINGS = 30
# The Elo bootstrap holds one battle index per round and position (4 bytes each); above this
# many it runs the rounds in blocks, trading a little speed for bounded memory (512 MiB).
_MAX_POSITIONS_IN_MEMORY = 2**27

# Per system: its rating, and for a bootstrap its interval (ci_low, ci_high); battles it took part in.
Leaderboard = dict[str, dict[str, float]]


@dataclass(frozen=True, eq=False)
class Battles:
    """Battles between ``systems``: ``a[i]`` and ``b[i]`` index ``systems``; ``outcome[i]`` is a's score.

    The arrays are copied, checked and made read-only: indices in range, ``a != b``, outcomes
    in {0, 0.5, 1}; errors number the battles from 1. Battle order is the order of the arrays
    (it matters to online Elo only).
    """

    systems: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray

    def __post_init__(self) -> None:
        systems = tuple(self.systems)
        if len(set(systems)) != len(systems):
            raise ValueError("system names must be unique")
        a = np.array(self.a, dtype=np.intp).reshape(-1)
        b = np.array(self.b, dtype=np.intp).reshape(-1)
        outcome = np.array(self.outcome, dtype=float).reshape(-1)
        if not len(a) == len(b) == len(outcome):
            raise ValueError(f"a, b and outcome differ in length ({len(a)}, {len(b)}, {len(outcome)})")
        for name, indices in (("a", a), ("b", b)):
            bad = np.flatnonzero((indices < 0) | (indices >= len(systems)))
            if bad.size:
                raise ValueError(f"battle {bad[0] + 1}: {name} = {indices[bad[0]]} is not a system index")
        bad = np.flatnonzero(a == b)
        if bad.size:
            raise ValueError(f"battle {bad[0] + 1}: a system cannot battle itself ({systems[a[bad[0]]]!r})")
        bad = np.flatnonzero(~np.isin(outcome, list(OUTCOME_OF_LABEL.values())))
        if bad.size:
            raise ValueError(f"battle {bad[0] + 1}: outcome {float(outcome[bad[0]]):g} is not 1, 0 or 0.5")
        for array in (a, b, outcome):
            array.flags.writeable = False
        object.__setattr__(self, "systems", systems)
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)
        object.__setattr__(self, "outcome", outcome)

    @classmethod
    def from_labels(cls, records: Iterable[Sequence[str]], systems: Sequence[str] | None = None) -> Self:
        """Battles from ``(system_a, system_b, label)`` records, label "a", "b" or "tie".

        ``systems`` fixes the list and order of systems (so a system without battles still gets
        a rating); by default it is the systems in order of first appearance. Raises ValueError
        naming the record (counted from 1) when a label or a system is unknown.
        """
        records = list(records)
        if systems is None:
            systems = list(dict.fromkeys(name for record in records for name in record[:2]))
        index_of = {name: index for index, name in enumerate(systems)}
        a: list[int] = []
        b: list[int] = []
        outcome: list[float] = []
        for number, (system_a, system_b, label) in enumerate(records, start=1):
            if label not in OUTCOME_OF_LABEL:
                raise ValueError(f"battle {number}: unknown label {label!r}, expected one of {(A, B, TIE)}")
            for name in (system_a, system_b):
                if name not in index_of:
                    raise ValueError(f"battle {number}: unknown system {name!r}")
            if system_a == system_b:
                raise ValueError(f"battle {number}: a system cannot battle itself ({system_a!r})")
            a.append(index_of[system_a])
            b.append(index_of[system_b])
            outcome.append(OUTCOME_OF_LABEL[label])
        return cls(tuple(systems), np.array(a, dtype=np.intp), np.array(b, dtype=np.intp), np.array(outcome))

    def __len__(self) -> int:
        return len(self.outcome)

    def per_system(self) -> np.ndarray:
        """Number of battles each system took part in, in ``systems`` order."""
        return np.bincount(self.a, minlength=len(self.systems)) + np.bincount(self.b, minlength=len(self.systems))


def elo_ratings(battles: Battles, k: float = K_FACTOR, order: str = "given", seed: int = 0) -> np.ndarray:
    """Online Elo ratings after one pass over the battles, as an array in ``systems`` order.

    ``order`` is "given" (the arrays' order, e.g. import order) or "shuffled" (a permutation
    drawn with ``seed``).
    """
    _check_order(order)
    _check_k(k)
    a, b, outcome = battles.a, battles.b, battles.outcome
    if order == "shuffled":
        played = np.random.default_rng(seed).permutation(len(battles))
        a, b, outcome = a[played], b[played], outcome[played]
    # A plain loop over Python floats: numpy's per-call overhead would dominate one battle's work.
    # 1 / (1 + exp(−x)) is expit as scipy computes it, so the ratings are _play_elo's to the bit.
    ratings = [INITIAL_RATING] * len(battles.systems)
    for first, second, score in zip(a.tolist(), b.tolist(), outcome.tolist(), strict=True):
        expected = 1.0 / (1.0 + math.exp(-LOG_STRENGTH_PER_POINT * (ratings[first] - ratings[second])))
        change = (score - expected) * k
        ratings[first] += change
        ratings[second] -= change
    return np.array(ratings)


def bootstrap_elo(
    battles: Battles, rounds: int = BOOTSTRAP_ROUNDS, k: float = K_FACTOR, order: str = "given", seed: int = 0
) -> np.ndarray:
    """Online Elo ratings of ``rounds`` bootstrap samples of the battles, shape (rounds, systems).

    Each round draws ``len(battles)`` battles with replacement. With ``order="given"`` they are
    played in the original order (a battle drawn twice is played twice in its place); with
    "shuffled" in the random order drawn.
    """
    _check_order(order)
    _check_rounds(rounds)
    _check_k(k)
    count = len(battles)
    if count == 0:
        return np.full((rounds, len(battles.systems)), INITIAL_RATING)
    rng = np.random.default_rng(seed)
    block = max(1, min(rounds, _MAX_POSITIONS_IN_MEMORY // count))
    results = []
    for start in range(0, rounds, block):
        size = min(block, rounds - start)
        if order == "given":
            positions = np.empty((size, count), dtype=np.int32)
            for row in positions:
                row[:] = _sorted_draws(rng, count)
        else:
            positions = rng.integers(0, count, (size, count), dtype=np.int32)
        results.append(_play_elo(battles, positions, k))
    return np.concatenate(results)


def _sorted_draws(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` draws with replacement from ``range(count)``, in increasing order.

    Same distribution as sorting uniform draws, without the sort: the order statistics of
    ``count`` uniforms on [0, 1) are the partial sums of ``count + 1`` exponentials divided by
    their total. Several times faster than sorting at 10⁵ battles.
    """
    partial_sums = np.cumsum(rng.standard_exponential(count + 1))
    uniforms = partial_sums[:count] / partial_sums[count]
    return np.minimum((uniforms * count).astype(np.intp), count - 1)


def elo_leaderboard(
    battles: Battles, rounds: int = BOOTSTRAP_ROUNDS, k: float = K_FACTOR, order: str = "given", seed: int = 0
) -> Leaderboard:
    """``{system: {"rating", "ci_low", "ci_high", "battles"}}`` from the Elo bootstrap.

    The rating is the median over bootstrap rounds (steadier than a single pass, whose result
    depends on the order of play); the interval is the 2.5–97.5 percentile range.
    """
    samples = bootstrap_elo(battles, rounds=rounds, k=k, order=order, seed=seed)
    return _leaderboard(battles, np.median(samples, axis=0), samples)


def single_pass_leaderboard(battles: Battles, k: float = K_FACTOR, order: str = "given", seed: int = 0) -> Leaderboard:
    """``{system: {"rating", "battles"}}`` after one pass of online Elo (``elo_ratings``): no interval."""
    return _point_leaderboard(battles, elo_ratings(battles, k=k, order=order, seed=seed))


def bradley_terry_fit_leaderboard(battles: Battles) -> Leaderboard:
    """``{system: {"rating", "battles"}}`` of the Bradley–Terry fit on all battles: no interval."""
    return _point_leaderboard(battles, bradley_terry_ratings(battles))


def bradley_terry_ratings(battles: Battles) -> np.ndarray:
    """Maximum-likelihood Bradley–Terry ratings (with the weak prior), in ``systems`` order."""
    return _fit_bradley_terry(win_matrix(battles)[np.newaxis])[0]


def bootstrap_bradley_terry(battles: Battles, rounds: int = BOOTSTRAP_ROUNDS, seed: int = 0) -> np.ndarray:
    """Bradley–Terry ratings of ``rounds`` bootstrap samples, shape (rounds, systems).

    A bootstrap round only needs how often each distinct (a, b, outcome) battle was drawn, so
    the rounds are multinomial counts over the distinct battles, folded into win matrices.
    """
    import scipy.sparse

    _check_rounds(rounds)
    systems = len(battles.systems)
    count = len(battles)
    if count == 0:
        return np.full((rounds, systems), INITIAL_RATING)
    # Outcome code 0, 1, 2 for b won, tie, a won: distinct battles are distinct (a, b, code).
    codes = (battles.a * systems + battles.b) * 3 + np.rint(battles.outcome * 2).astype(np.intp)
    distinct, frequency = np.unique(codes, return_counts=True)
    draws = np.random.default_rng(seed).multinomial(count, frequency / count, size=rounds)
    pair, outcome = np.divmod(distinct, 3)
    first, second = np.divmod(pair, systems)
    score = outcome / 2
    # Sparse map from distinct battles to win-matrix cells: a's share of the win to (a, b),
    # b's share to (b, a). One product turns every round's draws into its win matrix.
    shares = np.concatenate([score, 1 - score])
    battle_rows = np.tile(np.arange(len(distinct)), 2)
    cell_columns = np.concatenate([first * systems + second, second * systems + first])
    cells = scipy.sparse.csr_matrix((shares, (battle_rows, cell_columns)), shape=(len(distinct), systems * systems))
    wins = np.asarray(draws @ cells).reshape(rounds, systems, systems)
    return _fit_bradley_terry(wins)


def bradley_terry_leaderboard(battles: Battles, rounds: int = BOOTSTRAP_ROUNDS, seed: int = 0) -> Leaderboard:
    """``{system: {"rating", "ci_low", "ci_high", "battles"}}``: the fit on all battles as the
    rating, the 2.5–97.5 percentile range of its bootstrap as the interval."""
    samples = bootstrap_bradley_terry(battles, rounds=rounds, seed=seed)
    return _leaderboard(battles, bradley_terry_ratings(battles), samples)


def _play_elo(battles: Battles, positions: np.ndarray, k: float) -> np.ndarray:
    """Online Elo for each row of ``positions`` (battle indices in order of play), rows at once."""
    from scipy.special import expit

    rounds = positions.shape[0]
    systems = len(battles.systems)
    # One flat vector holds every round's ratings: round r's system s sits at r · systems + s.
    ratings = np.full(rounds * systems, INITIAL_RATING)
    round_start = np.arange(rounds) * systems
    # In-place arithmetic throughout: this loop runs once per battle and dominates the time.
    for column in positions.T:
        played = column.astype(np.intp)  # native indices gather about twice as fast
        at_a = battles.a[played]
        at_a += round_start
        at_b = battles.b[played]
        at_b += round_start
        rating_a = ratings[at_a]
        rating_b = ratings[at_b]
        change = battles.outcome[played] - expit(LOG_STRENGTH_PER_POINT * (rating_a - rating_b))
        change *= k
        rating_a += change
        rating_b -= change
        # Plain assignment is safe: within one position every round touches its own two cells.
        ratings[at_a] = rating_a
        ratings[at_b] = rating_b
    return ratings.reshape(rounds, systems)


def win_matrix(battles: Battles) -> np.ndarray:
    """``wins[i, j]``: how often system i beat system j, ties counting half to each."""
    systems = len(battles.systems)
    won = np.bincount(battles.a * systems + battles.b, weights=battles.outcome, minlength=systems * systems)
    lost = np.bincount(battles.b * systems + battles.a, weights=1 - battles.outcome, minlength=systems * systems)
    return (won + lost).reshape(systems, systems)


def _fit_bradley_terry(wins: np.ndarray) -> np.ndarray:
    """Penalised maximum-likelihood ratings for each of a stack of win matrices (rounds, m, m).

    The objective is strictly convex (the prior), so Newton's method converges in a handful of
    steps; all rounds take their steps together, one batched m × m solve each. A step that would
    raise a round's objective is halved for that round (a plain backtracking line search).
    """
    from scipy.special import expit

    rounds, systems, _ = wins.shape
    prior = 1.0 / (PRIOR_SD * LOG_STRENGTH_PER_POINT) ** 2
    games = wins + wins.transpose(0, 2, 1)
    strength = np.zeros((rounds, systems))
    loss = _bradley_terry_loss(wins, prior, strength)
    for _ in range(_NEWTON_MAX_STEPS):
        margin = strength[:, :, np.newaxis] - strength[:, np.newaxis, :]
        surprise = wins * expit(-margin)
        gradient = surprise.sum(axis=1) - surprise.sum(axis=2) + prior * strength
        # Curvature of each pair's term: games · p · (1 − p), the same for (i, j) and (j, i).
        curvature = games * expit(margin) * expit(-margin)
        hessian = -curvature
        hessian[:, np.arange(systems), np.arange(systems)] += curvature.sum(axis=2) + prior
        step = np.linalg.solve(hessian, gradient[:, :, np.newaxis])[:, :, 0]
        for _ in range(_NEWTON_MAX_HALVINGS):
            candidate = strength - step
            candidate_loss = _bradley_terry_loss(wins, prior, candidate)
            worse = candidate_loss > loss + 1e-12 * np.abs(loss)
            if not worse.any():
                break
            step[worse] /= 2
        strength, loss = candidate, np.minimum(candidate_loss, loss)
        if np.abs(step).max() < _NEWTON_TOLERANCE:
            break
    else:
        raise RuntimeError(f"the Bradley–Terry fit did not converge in {_NEWTON_MAX_STEPS} Newton steps")
    # The optimum has mean strength 0; re-centring removes the last rounding.
    strength -= strength.mean(axis=1, keepdims=True)
    return INITIAL_RATING + strength / LOG_STRENGTH_PER_POINT


def _bradley_terry_loss(wins: np.ndarray, prior: float, strength: np.ndarray) -> np.ndarray:
    """Per round: −log-likelihood of the win matrix plus the Gaussian prior on the strengths."""
    margin = strength[:, :, np.newaxis] - strength[:, np.newaxis, :]
    # −log P(i beats j) = log(1 + exp(−margin)), weighted by how often i beat j.
    return np.sum(wins * np.logaddexp(0.0, -margin), axis=(1, 2)) + 0.5 * prior * np.sum(strength**2, axis=1)


def _point_leaderboard(battles: Battles, ratings: np.ndarray) -> Leaderboard:
    counts = battles.per_system()
    return {
        system: {"rating": float(ratings[index]), "battles": int(counts[index])}
        for index, system in enumerate(battles.systems)
    }


def _leaderboard(battles: Battles, ratings: np.ndarray, samples: np.ndarray) -> Leaderboard:
    low, high = np.percentile(samples, INTERVAL_PERCENTILES, axis=0)
    counts = battles.per_system()
    return {
        system: {
            "rating": float(ratings[index]),
            "ci_low": float(low[index]),
            "ci_high": float(high[index]),
            "battles": int(counts[index]),
        }
        for index, system in enumerate(battles.systems)
    }


def _check_order(order: str) -> None:
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}, expected one of {ORDERS}")


def _check_k(k: float) -> None:
    if isinstance(k, bool) or not (isinstance(k, Real) and math.isfinite(k) and k > 0):
        raise ValueError(f"the Elo K factor must be a positive number, got {k!r}")


def _check_rounds(rounds: object) -> None:
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise ValueError(f"bootstrap rounds must be a positive integer, got {rounds!r}")
