"""Speed of the rating bootstraps: Bradley–Terry and online Elo, all rounds at once.

Synthetic battles from a fixed seed: systems with known ratings, pairs drawn uniformly,
outcomes drawn so that system a's expected score is the Elo model's, with a share of ties.
Prints the wall-clock time of each bootstrap (the target is under 10 s for 100,000 battles ×
1,000 rounds) and how far the Bradley–Terry fit lands from the true ratings.

    python -m benchmarks.ratings [--battles 100000] [--rounds 1000] [--systems 10]
"""

import argparse
import time

import numpy as np

from annotation.ratings import Battles, bootstrap_bradley_terry, bootstrap_elo, bradley_terry_ratings

SEED = 2026
RATING_SPREAD = 150.0  # standard deviation of the true ratings, in points
# Each side hands this share of wins over to ties, which leaves the expected score unchanged
# (except where a side's expected score is below it).
TIE_SHARE = 0.1


def make_battles(rng, n_battles, n_systems):
    """Battles drawn from the Elo model, and the true ratings (mean 1000) that generated them."""
    true_ratings = rng.normal(0.0, RATING_SPREAD, n_systems)
    true_ratings += 1000.0 - true_ratings.mean()
    a = rng.integers(0, n_systems, n_battles)
    b = (a + rng.integers(1, n_systems, n_battles)) % n_systems
    expected_a = 1.0 / (1.0 + 10.0 ** ((true_ratings[b] - true_ratings[a]) / 400.0))
    draw = rng.random(n_battles)
    outcome = np.where(draw < expected_a - TIE_SHARE, 1.0, np.where(draw < expected_a + TIE_SHARE, 0.5, 0.0))
    systems = tuple(f"system-{index:02d}" for index in range(n_systems))
    return Battles(systems, a, b, outcome), true_ratings


def timed(label, function):
    """Run ``function``, print its wall-clock and CPU time, return its result.

    CPU time is printed too because on a shared machine wall-clock time also counts the
    other processes; the bootstraps are single-threaded, so on a quiet machine the two agree.
    """
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"  {label:<34} {wall:6.2f} s wall, {cpu:6.2f} s CPU", flush=True)
    return result


def run(n_battles, rounds, n_systems):
    battles, true_ratings = make_battles(np.random.default_rng(SEED), n_battles, n_systems)
    print(f"{n_battles:,} battles between {n_systems} systems, {rounds:,} bootstrap rounds")
    fitted = timed("Bradley–Terry fit on all battles", lambda: bradley_terry_ratings(battles))
    bt_rounds = timed("Bradley–Terry bootstrap", lambda: bootstrap_bradley_terry(battles, rounds=rounds))
    timed("Elo bootstrap, given order", lambda: bootstrap_elo(battles, rounds=rounds, order="given"))
    timed("Elo bootstrap, shuffled order", lambda: bootstrap_elo(battles, rounds=rounds, order="shuffled"))
    low, high = np.percentile(bt_rounds, [2.5, 97.5], axis=0)
    covered = np.count_nonzero((low <= true_ratings) & (true_ratings <= high))
    print(f"  Bradley–Terry fit, largest distance from a true rating: {np.abs(fitted - true_ratings).max():.1f} points")
    print(
        f"  Bradley–Terry 95% intervals: mean width {np.mean(high - low):.1f} points, "
        f"{covered} of {n_systems} contain the true rating"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--systems", type=int, default=10)
    arguments = parser.parse_args(argv)
    run(arguments.battles, arguments.rounds, arguments.systems)


if __name__ == "__main__":
    main()
