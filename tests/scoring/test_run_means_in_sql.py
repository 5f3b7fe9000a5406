"""System means computed by the database equal ``scorer.aggregate`` over the same stored scores."""

import random

import pytest

from scoring.genres.scorer import VALUE_NAMES, ScoreSettings, TextScores, aggregate
from scoring.genres.stats import tokens_per_triple
from scoring.imports import import_dataset, import_outputs
from scoring.jobs import run_in_process
from scoring.models import Dataset, Output, System
from scoring.models.runs import ScoringRun
from scoring.models.scores import SystemScore, TextScore
from tests.scoring.run_fixtures import jsonl

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_relevant]

WORDS = ["Lisbon", "river", "bakery", "Oslo", "founded", "near", "the old harbour", "Quito", "library", "ran"]


def mixed_dataset(texts=23, seed=5):
    """Texts with and without gold; systems with empty outputs, duplicates and texts they skipped."""
    rng = random.Random(seed)

    def triple():
        return [rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS)]

    records = [
        {
            "id": f"t{number}",
            "text": f"Text {number}: " + " ".join(rng.choice(WORDS) for _ in range(12)),
            "triples": [] if number % 4 == 1 else [triple() for _ in range(rng.randint(1, 3))],
        }
        for number in range(texts)
    ]
    import_dataset(jsonl(records), file_name="mixed.jsonl", name="mixed")
    for name in ("Alpha", "Beta"):
        rows = [
            {"id": record["id"], "triples": [triple() for _ in range(rng.choice([0, 1, 2, 4]))]}
            for record in records
            if not (name == "Beta" and rng.random() < 0.2)  # Beta has no output at all for some texts
        ]
        if rows[0]["triples"]:
            rows[0]["triples"].append(rows[0]["triples"][0])  # a duplicate triple
        import_outputs(jsonl(rows), file_name=f"{name}.jsonl", dataset="mixed", system_name=name)
    return Dataset.objects.get(name="mixed")


def python_means(run):
    """``scorer.aggregate`` per system over the run's stored per-text scores, rebuilt in memory."""
    per_output = {}
    for row in TextScore.objects.filter(run=run).select_related("output"):
        output = row.output
        if output.pk not in per_output:
            values = dict.fromkeys(VALUE_NAMES)
            values.update(triples=len(output.triples), tokens_per_triple=tokens_per_triple(output.triples))
            per_output[output.pk] = (output.system_id, TextScores(output.pk, values))
        per_output[output.pk][1].values.update(row.values)
    by_system = {}
    for system_id, text_scores in per_output.values():
        by_system.setdefault(system_id, []).append(text_scores)
    return {system_id: aggregate(scores) for system_id, scores in by_system.items()}


def assert_equal_means(run):
    stored = {row.system_id: row.values for row in SystemScore.objects.filter(run=run)}
    expected = python_means(run)
    assert stored.keys() == expected.keys()
    for system_id, values in expected.items():
        assert stored[system_id].keys() == values.keys()
        for name, value in values.items():
            assert stored[system_id][name] == (None if value is None else pytest.approx(value)), (system_id, name)


@pytest.fixture
def run():
    dataset = mixed_dataset()
    systems = [System.ground_truth(), *System.objects.filter(name__in=["Alpha", "Beta"])]
    metrics = ["ts", "us", "fs", "gs", "cs", "prf"]
    return run_in_process(ScoringRun.create(dataset, systems, metrics, ScoreSettings(), chunk_texts=4))


def test_means_from_the_database_equal_aggregate_over_the_same_scores(run):
    assert run.status == ScoringRun.Status.DONE
    assert_equal_means(run)
    beta = SystemScore.objects.get(run=run, system__name="Beta").values
    assert beta["texts"] == Output.objects.filter(system__name="Beta").count() < 23  # only texts it answered
    assert beta["cs"] is not None and beta["empty_share"] > 0


def test_a_not_applicable_value_is_left_out_of_its_mean(run):
    # As a rule set that leaves an output out of a mean stores it: None, which SQL reads as NULL.
    alpha = System.objects.get(name="Alpha")
    for row in TextScore.objects.filter(run=run, metric="gs", output__system=alpha)[:5]:
        row.values = {"gs": None}
        row.save()
    SystemScore.store_means(run)
    assert_equal_means(run)


def test_a_system_whose_every_value_is_not_applicable_has_no_mean(run):
    TextScore.objects.filter(run=run, metric="cs").update(values={"cs": None})
    SystemScore.store_means(run)
    assert {row.values["cs"] for row in SystemScore.objects.filter(run=run)} == {None}
    assert_equal_means(run)
