"""Speed of the ratings: the bootstraps (all rounds at once) and the single pass of online Elo.

Synthetic battles from a fixed seed: systems with known ratings, pairs drawn uniformly,
outcomes drawn so that system a's expected score is the Elo model's, with a share of ties.
Prints the wall-clock time of each bootstrap (the target is under 10 s for 100,000 battles ×
1,000 rounds) and how far the Bradley–Terry fit lands from the true ratings; then the app's
single pass side by side with a FastChat-style loop on the same battles (the target: at least
as fast), with the load average.

    python -m benchmarks.ratings [--battles 100000] [--rounds 1000] [--systems 10]
"""

import argparse
import os
import time
from collections import defaultdict

import numpy as np

from annotation.ratings import (
    BASE,
    INITIAL_RATING,
    K_FACTOR,
    SCALE,
    Battles,
    bootstrap_bradley_terry,
    bootstrap_elo,
    bradley_terry_ratings,
    elo_ratings,
)

SEED = 2026
RATING_SPREAD = 150.0  # standard deviation of the true ratings, in points
# Each side hands this share of wins over to ties, which leaves the expected score unchanged
# (except where a side's expected score is below it).
TIE_SHARE = 0.1
# Each single pass is timed this many times, the two alternating; the fastest run counts.
SINGLE_PASS_REPEATS = 5


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


def fastchat_style_elo(records, k):
    """The reference single pass, in the style of FastChat's ``compute_elo``: a dict of ratings
    by system name, one loop over ``(system_a, system_b, score_a)`` records."""
    rating = defaultdict(lambda: INITIAL_RATING)
    for system_a, system_b, score_a in records:
        rating_a = rating[system_a]
        rating_b = rating[system_b]
        expected_a = 1 / (1 + BASE ** ((rating_b - rating_a) / SCALE))
        expected_b = 1 / (1 + BASE ** ((rating_a - rating_b) / SCALE))
        rating[system_a] += k * (score_a - expected_a)
        rating[system_b] += k * (1 - score_a - expected_b)
    return rating


def compare_single_passes(battles):
    """Time the app's single pass and the FastChat-style loop, alternating, and print the ratio."""
    names = battles.systems
    records = [
        (names[a], names[b], score)
        for a, b, score in zip(battles.a.tolist(), battles.b.tolist(), battles.outcome.tolist(), strict=True)
    ]
    app = elo_ratings(battles)
    reference = fastchat_style_elo(records, K_FACTOR)
    gap = max(abs(app[index] - reference[name]) for index, name in enumerate(names))
    load = os.getloadavg()[0]
    app_time = reference_time = float("inf")
    for _ in range(SINGLE_PASS_REPEATS):
        start = time.perf_counter()
        elo_ratings(battles)
        middle = time.perf_counter()
        fastchat_style_elo(records, K_FACTOR)
        end = time.perf_counter()
        app_time, reference_time = min(app_time, middle - start), min(reference_time, end - middle)
    print(f"  Elo single pass, app (elo_ratings)  {app_time:6.3f} s")
    print(f"  Elo single pass, FastChat-style loop {reference_time:6.3f} s")
    print(
        f"  app ÷ FastChat-style: {app_time / reference_time:.2f} (fastest of {SINGLE_PASS_REPEATS} runs each, "
        f"load {load:.1f} → {os.getloadavg()[0]:.1f}); largest rating difference {gap:.1e} points"
    )


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
    compare_single_passes(battles)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--systems", type=int, default=10)
    arguments = parser.parse_args(argv)
    run(arguments.battles, arguments.rounds, arguments.systems)


if __name__ == "__main__":
    main()
