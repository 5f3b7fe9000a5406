"""A dataset with two systems, two judges' verdicts on every triple, and a triple-check campaign."""

from django.contrib.auth.models import User
from django.utils import timezone

from annotation.triple_checks.models import TripleLabel
from annotation.triple_checks.services import create_triple_check, save_label
from scoring.models import Output
from scoring.models.runs import ScoringRun
from scoring.models.scores import SystemScore, TextScore
from tests.factories import make_dataset

TEXTS = 4
# Three triples per output; the second of each is unsupported, and the third bundles two facts.
# What a run's provenance holds besides its judge (``ScoreSettings.provenance``).
PROVENANCE = {
    "embedder": "local", "embedder_model": None, "threshold": 0.8, "embedding_mode": "sum", "prompt_version": None,
    "heuristic_judge": False, "lda_topics": 2, "lda_seed": 0, "relaxed_threshold": 0.5, "rules": "app",
}  # fmt: skip
TRIPLES = [["Ada", "worked with", "Babbage"], ["Ada", "was born in", "Paris"], ["Ada", "wrote and published", "notes"]]


def judge_run(dataset, systems, fingerprint, judge, unsupported_index):
    """A finished run whose judge calls the triple at ``unsupported_index`` unsupported and splits none."""
    run = ScoringRun.objects.create(
        dataset=dataset, metrics=["fs", "gs"], score_settings={}, status=ScoringRun.Status.DONE,
        fingerprint=fingerprint, provenance={**PROVENANCE, "judge": judge, "judge_model": f"{judge}-model"},
        finished_at=timezone.now(),
    )  # fmt: skip
    run.systems.set(systems)
    for system in systems:
        SystemScore.objects.create(
            run=run, system=system, values={"fs": 0.5, "gs": 0.9, "texts": TEXTS}, outputs_updated_at=timezone.now()
        )
    for output in Output.objects.filter(text__dataset=dataset):
        support = [{"supported": index != unsupported_index, "missing": False} for index in range(len(output.triples))]
        splits = [{"n": 0, "missing": False} for _ in output.triples]
        for metric, details in (("fs", support), ("gs", splits)):
            TextScore.objects.create(
                output=output, run=run, metric=metric, fingerprint=fingerprint,
                output_updated_at=output.updated_at, values={metric: 0.5}, details=details,
            )  # fmt: skip
    return run


def make_triple_check():
    """Two judges' runs on a dataset of two systems, and a campaign sampled by the first judge."""
    dataset, systems = make_dataset("checked", TEXTS, ("sys-one", "sys-two"), outputs=lambda *_: TRIPLES)
    judge_run(dataset, systems, "right-judge", "careful", unsupported_index=1)
    judge_run(dataset, systems, "wrong-judge", "careless", unsupported_index=0)
    annotators = [User.objects.create_user(f"checker{number}", password="checker-pass-123") for number in (1, 2)]
    return create_triple_check(
        "check-one", dataset, systems, annotators, judge_setting="right-judge", per_stratum=2, overlap_share=1.0
    )


def label_with_disagreements(campaign):
    """Every triple labelled by both annotators as the careful judge sees it (supported but the
    second; one fact), except: ``no_majority``, where checker2 says not supported; ``facts``,
    where checker2 counts two facts; ``alone``, which only checker1 answered. Returns those three."""
    items = list(campaign.items.exclude(index=1).order_by("text__position", "pk"))
    chosen = {"no_majority": items[0], "facts": items[1], "alone": items[2]}
    for label in TripleLabel.objects.filter(item__campaign=campaign).select_related("item", "annotator"):
        second = label.annotator.username == "checker2"
        if second and label.item == chosen["alone"]:
            continue
        supported = label.item.index != 1 and not (second and label.item == chosen["no_majority"])
        facts = 2 if second and label.item == chosen["facts"] else 1
        save_label(label, "yes" if supported else "no", str(facts))
    return chosen
