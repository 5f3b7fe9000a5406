"""Judgements the adaptive pair order needs to reach the full study's ranking, against the queue order.

The simulated study of the demo (``fixtures.simulate_judgements``): the demo-sentences outputs
and Ground truth, scored with the pure library, and its simulated raters, who label each pair of
systems from their quality difference with noise, ties and slips of their own. Every text with
gold is in the study (one rater per text, in turn), every pair of systems on it.

For each seed the raters' labels of every item are drawn once, so both orders see the same
labels and differ only in which item comes next:

* **queue**: the campaign's queue (texts in a seeded order, each text's pairs shuffled), a
  text's four first aspects pair by pair, then its completeness;
* **adaptive**: ``annotation.adaptive.choose`` after every save, on priorities from the
  judgements so far (``pair_priorities``), exactly as ``next_assignment`` does for an adaptive
  campaign (completeness of a text still after the four first aspects of all its pairs).

The target is the ranking of the whole study (Bradley–Terry, per aspect). After every
``--every`` items, each order's ranking so far is compared with it (Kendall τ per aspect, mean
over the five aspects, over the four first ones, and per aspect); printed: how many judgements
each order needs until the mean τ reaches a level and stays there to the end, median over the
seeds, and the ratio adaptive / queue.

    python -m benchmarks.adaptive_pairs [--seeds 3] [--every 10]
"""

import argparse
import os
import random
import statistics
import time
from collections import Counter
from itertools import combinations

import numpy as np
from scipy.stats import kendalltau

from annotation.adaptive import Candidate, choose, pair_priorities
from annotation.ratings import Battles, bradley_terry_ratings
from fixtures import simulate_judgements as study

DATASET = "demo-sentences"
FIRST = ("ts", "us", "fs", "gs")
LEVELS = (0.8, 0.9, 1.0)
# Mean τ over all five aspects, over the four first ones, and each aspect alone: completeness of a
# text is judged only after all its pairs, so it is the aspect an order can hold back.
GROUPS = {
    "all five aspects": study.ASPECTS,
    "the four first aspects": FIRST,
    **{f"{aspect} alone": (aspect,) for aspect in study.ASPECTS},
}


def study_items():
    """The study's texts and systems, and every item's scaled quality difference per aspect."""
    datasets, outputs = study.read_manifest()
    entry = next(dataset for dataset in datasets if dataset["name"] == DATASET)
    texts = study.load_dataset(entry)
    by_system = {output["system"]: study.load_outputs(output) for output in outputs if output["dataset"] == DATASET}
    by_system = {study.GROUND_TRUTH: {content: gold for _, content, gold in texts}, **by_system}
    qualities = study.dataset_qualities(texts, by_system)
    spreads = {aspect: study.aspect_spread(qualities, aspect) for aspect in study.ASPECTS}
    text_ids = [text_id for text_id, _, gold in texts if gold]
    systems = list(by_system)
    differences = {
        (text, a, b): {
            aspect: (qualities[text, a][aspect] - qualities[text, b][aspect]) / spreads[aspect]
            for aspect in study.ASPECTS
        }
        for text in text_ids
        for a, b in combinations(systems, 2)
    }
    return text_ids, systems, differences


def draw_labels(text_ids, differences, seed):
    """Each item's label per aspect, from the rater of its text (the raters take texts in turn)."""
    rng = random.Random(f"{seed}:labels")
    rater = {text: study.ANNOTATORS[number % len(study.ANNOTATORS)] for number, text in enumerate(text_ids)}
    return {
        item: {aspect: study.label(difference, rater[item[0]], rng) for aspect, difference in by_aspect.items()}
        for item, by_aspect in differences.items()
    }


def queue_of(text_ids, systems, seed):
    """The campaign's queue: texts in a seeded order, each text's pairs shuffled."""
    rng = random.Random(f"{seed}:queue")
    texts = rng.sample(text_ids, len(text_ids))
    queue = []
    for text in texts:
        pairs = list(combinations(systems, 2))
        rng.shuffle(pairs)
        queue += [(text, a, b) for a, b in pairs]
    return queue


def play(queue, labels, systems, adaptive, every, target):
    """Serve the whole study in one order; return [(judgements so far, mean τ with target)]."""
    position = {item: index for index, item in enumerate(queue)}
    first_done, pending = set(), set(queue)
    lacking = Counter(text for text, _, _ in queue)  # per text, pairs still lacking their first four
    records = {aspect: [] for aspect in study.ASPECTS}
    judgements, served, curve = 0, 0, []
    while pending:
        candidates = [
            Candidate(
                key=item, text=item[0], pair=item[1:], position=position[item], first_aspects_done=item in first_done
            )
            for item in pending
        ]
        # A text ready for completeness comes first whatever the priorities: spare computing them.
        ready = any(lacking[item[0]] == 0 for item in pending)
        if adaptive and not ready:
            priorities = pair_priorities(
                {aspect: Battles.from_labels(rows, systems) for aspect, rows in records.items()}
            )
            item = choose(candidates, priorities)
        else:
            # With no priorities, choose follows the queue (and a ready text's completeness comes first).
            item = choose(candidates, {})
        aspects = ("cs",) if item in first_done else FIRST
        for aspect in aspects:
            records[aspect].append((item[1], item[2], labels[item][aspect]))
        judgements += len(aspects)
        if item in first_done:
            pending.discard(item)
        else:
            first_done.add(item)
            lacking[item[0]] -= 1
            served += 1
            if served % every == 0 or len(first_done) == len(queue):
                curve.append((judgements, mean_taus(records, systems, target)))
    curve.append((judgements, mean_taus(records, systems, target)))
    return curve


def ranking(records, systems):
    return {aspect: bradley_terry_ratings(Battles.from_labels(rows, systems)) for aspect, rows in records.items()}


def mean_taus(records, systems, target):
    """Per group of :data:`GROUPS`, the mean over its aspects of Kendall τ with the target ranking."""
    current = ranking(records, systems)
    taus = {aspect: kendalltau(current[aspect], target[aspect]).statistic for aspect in study.ASPECTS}
    taus = {aspect: 0.0 if np.isnan(tau) else tau for aspect, tau in taus.items()}
    return {group: float(np.mean([taus[aspect] for aspect in aspects])) for group, aspects in GROUPS.items()}


def needed(curve, group, level):
    """Judgements from which the group's mean τ stays at or above ``level`` to the end."""
    for index, (judgements, _) in enumerate(curve):
        if all(taus[group] >= level - 1e-9 for _, taus in curve[index:]):
            return judgements
    return curve[-1][0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="simulated studies (label draws and queues)")
    parser.add_argument("--every", type=int, default=10, help="items between two comparisons with the target")
    arguments = parser.parse_args(argv)

    started = time.perf_counter()
    text_ids, systems, differences = study_items()
    print(
        f"{DATASET}: {len(text_ids)} texts × {len(systems) * (len(systems) - 1) // 2} pairs of {len(systems)} systems, "
        f"{len(differences) * 5:,} judgements in the whole study; load average {os.getloadavg()}",
        flush=True,
    )
    results = {(order, group, level): [] for order in ("queue", "adaptive") for group in GROUPS for level in LEVELS}
    for seed in range(arguments.seeds):
        labels = draw_labels(text_ids, differences, seed)
        target = ranking(
            {aspect: [(a, b, labels[text, a, b][aspect]) for text, a, b in differences] for aspect in study.ASPECTS},
            systems,
        )
        queue = queue_of(text_ids, systems, seed)
        for order in ("queue", "adaptive"):
            curve = play(queue, labels, systems, order == "adaptive", arguments.every, target)
            for group in GROUPS:
                for level in LEVELS:
                    results[order, group, level].append(needed(curve, group, level))
        print(
            f"  seed {seed}, all five aspects: "
            + "; ".join(
                f"τ ≥ {level:g} after {results['queue', 'all five aspects', level][-1]:,} (queue) / "
                f"{results['adaptive', 'all five aspects', level][-1]:,} (adaptive)"
                for level in LEVELS
            ),
            flush=True,
        )
    for group in GROUPS:
        for level in LEVELS:
            queue_median = statistics.median(results["queue", group, level])
            adaptive_median = statistics.median(results["adaptive", group, level])
            print(
                f"  {group}, mean Kendall τ with the full study ≥ {level:g} for good: queue {queue_median:,.0f} "
                f"judgements, adaptive {adaptive_median:,.0f} (adaptive / queue {adaptive_median / queue_median:.2f})"
            )
    print(f"  medians of {arguments.seeds} seeds")
    print(f"  {time.perf_counter() - started:.0f} s; load average at the end {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
