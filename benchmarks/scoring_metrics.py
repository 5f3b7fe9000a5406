"""Speed of the GENRES metrics that need no judge: ts, us, cs and exact/relaxed P/R/F1.

A synthetic dataset, generated from a fixed seed: 1,000 texts on 20 topics, about 6 gold
triples each, and 10 systems whose outputs are perturbed copies of the gold (dropped, reworded,
reversed, duplicated and invented triples, some empty answers). Everything runs with the default
hashing embedder and one in-memory embedding cache shared by all systems, as a scoring run shares
the database cache: what one system's triples have in common with another's is embedded once.

    python -m benchmarks.scoring_metrics [--texts 1000] [--systems 10]
"""

import argparse
import tempfile
import time

import numpy as np

from scoring.genres.cache import InMemoryRequestCache
from scoring.genres.embedders import HashingEmbedder
from scoring.genres.scorer import Scorer, ScoreSettings, TextRecord, aggregate
from scoring.genres.topics import TopicModel

SEED = 2026
TOPICS = 20
WORDS_PER_TOPIC = 60
SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "si", "pe", "da", "go", "zu", "ba", "fi", "ho", "ly"]
RELATIONS = [
    "located in",
    "founded by",
    "part of",
    "treats",
    "causes",
    "member of",
    "born in",
    "produces",
    "owned by",
    "adjacent to",
    "married to",
    "works for",
    "capital of",
    "derived from",
]


def make_words(random, count):
    """Distinct pronounceable pseudo-words, so the stop-word list removes none of them."""
    words = set()
    while len(words) < count:
        words.add("".join(random.choice(SYLLABLES, size=random.randint(2, 5))))
    return sorted(words)


def make_dataset(random, n_texts):
    words = make_words(random, TOPICS * WORDS_PER_TOPIC)
    random.shuffle(words)
    topics = [words[i * WORDS_PER_TOPIC : (i + 1) * WORDS_PER_TOPIC] for i in range(TOPICS)]
    dataset = []
    for _ in range(n_texts):
        vocabulary = topics[random.randint(TOPICS)]
        gold = []
        for _ in range(random.randint(4, 9)):
            subject = " ".join(random.choice(vocabulary, size=random.randint(1, 3)))
            object_ = " ".join(random.choice(vocabulary, size=random.randint(1, 3)))
            gold.append([subject.capitalize(), str(random.choice(RELATIONS)), object_])
        filler = " ".join(random.choice(vocabulary, size=25))
        text = ". ".join(f"{s} {r} {o}" for s, r, o in gold) + ". " + filler + "."
        dataset.append((text, gold, vocabulary))
    return dataset


def perturb(random, gold, vocabulary):
    """One system's output for a text: a noisy copy of the gold triples."""
    if random.random() < 0.03:
        return []
    output = []
    for subject, relation, object_ in gold:
        roll = random.random()
        if roll < 0.15:
            continue
        if roll < 0.35:
            object_ = f"{object_} {random.choice(vocabulary)}"
        elif roll < 0.45:
            subject, object_ = object_, subject
        elif roll < 0.55:
            relation = str(random.choice(RELATIONS))
        output.append([subject, relation, object_])
        if random.random() < 0.1:
            output.append([subject.lower(), relation, object_])
    for _ in range(random.poisson(1.0)):
        output.append([str(random.choice(vocabulary)), str(random.choice(RELATIONS)), str(random.choice(vocabulary))])
    return output


def timed(function):
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def run(n_texts, n_systems):
    random = np.random.RandomState(SEED)
    (dataset, systems), generation = timed(lambda: _generate(random, n_texts, n_systems))
    n_scored = n_texts * n_systems
    n_triples = sum(len(record.triples) for records in systems for record in records)
    print(
        f"{n_texts} texts x {n_systems} systems = {n_scored} outputs, {n_triples} triples "
        f"({n_triples / n_scored:.1f} per output); generated in {generation:.2f} s"
    )

    settings = ScoreSettings()
    with tempfile.TemporaryDirectory() as cache_dir:
        topic_model, training = timed(
            lambda: TopicModel.for_texts([text for text, _, _ in dataset], cache_dir, settings.topic_settings())
        )
    cache = InMemoryRequestCache()
    scorer = Scorer(settings, HashingEmbedder(cache=cache), topic_model=topic_model)
    print(f"LDA training: {topic_model.num_topics} topics in {training:.2f} s")

    total = training
    rows = []
    for metric in ("ts", "us", "cs", "prf"):
        _, seconds = timed(lambda metric=metric: [scorer.score(records, [metric]) for records in systems])
        total += seconds
        rows.append((metric, seconds))
    for metric, seconds in rows:
        print(f"{metric:>4}: {n_scored / seconds:10,.0f} texts/s  ({seconds:.2f} s)")
    print(f"embedding cache: {len(cache)} distinct strings embedded once, reused across systems")
    summary = aggregate(scorer.score(systems[0], ["us", "cs", "prf"]))
    print("system 1 means: " + ", ".join(f"{name} {summary[name]:.3f}" for name in ("us", "cs", "f1", "relaxed_f1")))
    print(f"total (LDA training + all metrics): {total:.2f} s")
    return total


def _generate(random, n_texts, n_systems):
    dataset = make_dataset(random, n_texts)
    systems = [
        [
            TextRecord(index, text, perturb(random, gold, vocabulary), gold)
            for index, (text, gold, vocabulary) in enumerate(dataset)
        ]
        for _ in range(n_systems)
    ]
    return dataset, systems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=1000)
    parser.add_argument("--systems", type=int, default=10)
    arguments = parser.parse_args(argv)
    run(arguments.texts, arguments.systems)


if __name__ == "__main__":
    main()
