"""Hand-made leaderboards: stored scores of a finished run and human judgements, chosen so that
every figure on the page can be worked out by hand."""

from django.utils import timezone

from annotation.models import ASPECTS, Assignment, Judgement
from annotation.services.campaigns import create_campaign
from leaderboard.jobs import build_leaderboards
from scoring.models import Dataset
from scoring.models.runs import ScoringRun
from scoring.models.scores import SystemScore, TextScore
from tests.annotation.campaign_factories import make_annotators
from tests.factories import make_dataset

PROVENANCE = {
    "embedder": "hashing",
    "embedder_model": "hashing-512",
    "threshold": 0.82,
    "embedding_mode": "sum",
    "judge": "heuristic",
    "judge_model": None,
    "prompt_version": None,
    "heuristic_judge": True,
    "lda_topics": 7,
    "lda_seed": 13,
    "relaxed_threshold": 0.5,
}
FINGERPRINT = "f" * 64
PRF = ("precision", "recall", "f1", "relaxed_precision", "relaxed_recall", "relaxed_f1")
# The three systems' score on every text and aspect: the GENRES ranking is alpha > beta > gamma.
SCORES = {"alpha": 0.9, "beta": 0.5, "gamma": 0.1}


def store_run(dataset, systems, score_of, provenance=PROVENANCE, fingerprint=FINGERPRINT):
    """A finished run whose stored per-text scores are ``score_of(system name, text position, aspect)``."""
    run = ScoringRun.objects.create(
        dataset=dataset,
        metrics=[*ASPECTS, "prf"],
        score_settings={},
        status=ScoringRun.Status.DONE,
        provenance=provenance,
        fingerprint=fingerprint,
        started_at=timezone.now(),
        finished_at=timezone.now(),
    )
    run.systems.set(systems)
    rows = []
    for system in systems:
        for output in system.outputs.filter(text__dataset=dataset).select_related("text"):
            position = output.text.position
            common = dict(output=output, run=run, fingerprint=fingerprint, output_updated_at=output.updated_at)
            for aspect in ASPECTS:
                rows.append(
                    TextScore(metric=aspect, values={aspect: score_of(system.name, position, aspect)}, **common)
                )
            prf = dict.fromkeys(PRF, score_of(system.name, position, "prf"))
            rows.append(TextScore(metric="prf", values=prf, **common))
    TextScore.store(rows)
    SystemScore.store_means(run)
    return run


def constant_scores(system, position, aspect):
    return SCORES[system]


def scored_dataset(name="toy", texts=4, systems=tuple(SCORES), score_of=constant_scores):
    dataset, made = make_dataset(name=name, texts=texts, systems=systems)
    store_run(dataset, made, score_of)
    return dataset, made


def judged_campaign(dataset, systems, label_of, annotators=1, name="study", is_open=True):
    """A campaign over every text, fully judged: ``label_of(aspect, system A, system B)`` gives each label."""
    people = make_annotators(annotators, prefix=f"{name}-annotator")
    campaign = create_campaign(
        name=name,
        dataset=dataset,
        systems=systems,
        annotators=people,
        seed=3,
        overlap_share=0.0,
        sample_size=dataset.texts.count(),
    ).campaign
    assignments = Assignment.objects.filter(item__campaign=campaign).select_related("item__system_a", "item__system_b")
    Judgement.objects.bulk_create(
        Judgement(
            assignment=assignment,
            aspect=aspect,
            label=label_of(aspect, assignment.item.system_a.name, assignment.item.system_b.name),
        )
        for assignment in assignments
        for aspect in ASPECTS
    )
    assignments.update(status=Assignment.Status.DONE)
    if not is_open:
        campaign.is_open = False
        campaign.save(update_fields=["is_open"])
    return campaign, people


def ranking_labels(order_by_aspect):
    """Labels that make each aspect's human ranking ``order_by_aspect[aspect]`` (best first), no ties."""

    def label_of(aspect, system_a, system_b):
        order = order_by_aspect[aspect]
        return "a" if order.index(system_a) < order.index(system_b) else "b"

    return label_of


# Humans agree with GENRES on every aspect but uniqueness, where they rank the systems backwards.
AGREEING = ("alpha", "beta", "gamma")
REVERSED = ("gamma", "beta", "alpha")
HUMAN_ORDER = {aspect: REVERSED if aspect == "us" else AGREEING for aspect in ASPECTS}


def build_all():
    """What the leaderboard worker does once the changes are scheduled: build every dataset's leaderboards."""
    for dataset_id in Dataset.objects.values_list("pk", flat=True):
        build_leaderboards(dataset_id)


def get_built(client, url, query=None):
    """GET ``url``; when its leaderboard is being built, let the build run (as the worker would) and GET again."""
    response = client.get(url, query)
    if response.status_code == 202 or b'id="leaderboard-building"' in response.content:
        build_all()
        response = client.get(url, query)
    return response


def ranked_dataset():
    """A scored dataset with a closed campaign whose judgements rank the systems in HUMAN_ORDER."""
    dataset, systems = scored_dataset()
    judged_campaign(dataset, systems, ranking_labels(HUMAN_ORDER), is_open=False)
    return dataset
