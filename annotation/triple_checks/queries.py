"""Reading triple-check campaigns for staff's page, the leaderboard and the Python API: gold
labels, agreement between annotators, and every judge against them (``statistics``).

A *judge* here is a scoring setting with current factualness or granularity verdicts on the
sampled triples; settings that differ only in what the judge does not see (embedder, topics)
give the same verdicts and are shown once, by their newest run.
"""

from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from django.db.models import Count, Q, QuerySet

from annotation.triple_checks import statistics
from annotation.triple_checks.models import TripleCheck, TripleCheckItem, TripleLabel
from scoring.models import Dataset, Output
from scoring.models.runs import settings_choices
from scoring.models.scores import TextScore

# The judge table and the bias table as flat records (the leaderboard's CSV, the DataFrames).
JUDGE_MEASURES = ("accuracy", "kappa", "precision", "recall", "mae")
JUDGE_FIELDS = (
    "judge", "setting", "triples", "adjudicated", *(f"{measure}{part}" for measure in JUDGE_MEASURES for part in ("", "_low", "_high")),
)  # fmt: skip
BIAS_FIELDS = (
    "judge", "setting", "system", "aspect", "judge_score", "human_score", "human_low", "human_high",
    "bias", "bias_low", "bias_high", "triples",
)  # fmt: skip
# Verdicts per triple of one judge: {(output id, index): value}.
Verdicts = dict[tuple[int, int], Any]
# The aspects whose system mean counts an empty output as 0, by rule set (docs/metrics.md): the
# reference rules leave an empty output out of the granularity mean.
EMPTY_COUNTS = {"app": ("fs", "gs"), "reference": ("fs",)}


@dataclass(frozen=True)
class Gold:
    item: int
    output: int
    index: int
    system: str
    weight: float
    triple: list[str]
    supported: bool
    facts: int
    adjudicated: bool


def judge_label(provenance: dict[str, Any]) -> str:
    """A judge in words: its name, model and prompt version, and the rules counting its splits."""
    label = str(provenance.get("judge", "?"))
    if provenance.get("heuristic_judge"):
        label += " (offline heuristic)"
    elif provenance.get("judge_model"):
        label += f" · {provenance['judge_model']}"
    if provenance.get("prompt_version"):
        label += f" · prompt {provenance['prompt_version']}"
    if provenance.get("rules") == "reference":
        label += " · reference rules"
    return label


def answers_by_item(items: QuerySet[TripleCheckItem]) -> dict[int, dict[int, tuple[bool, int]]]:
    """``{item id: {annotator id: (supported, facts)}}`` of the saved labels."""
    answers: defaultdict[int, dict[int, tuple[bool, int]]] = defaultdict(dict)
    saved = TripleLabel.objects.answered().filter(item__in=items)
    for item_id, annotator_id, supported, facts in saved.values_list("item_id", "annotator_id", "supported", "facts"):
        answers[item_id][annotator_id] = (bool(supported), int(facts or 0))  # saved: both present
    return answers


def gold_labels(items: QuerySet[TripleCheckItem]) -> tuple[list[Gold], int]:
    """The gold label of every sampled triple that has one: adjudicated, else the majority; and
    how many labelled triples wait for adjudication (their annotators split evenly)."""
    answers = answers_by_item(items)
    gold: list[Gold] = []
    waiting = 0
    rows = items.values_list(
        "pk", "output_id", "index", "output__system__name", "weight", "triple",
        "adjudication__supported", "adjudication__facts",
    )  # fmt: skip
    for pk, output, index, system, weight, triple, adjudicated_supported, adjudicated_facts in rows.order_by("pk"):
        given = list(answers.get(pk, {}).values())
        adjudicated = adjudicated_supported is not None  # an adjudication holds both
        supported: bool | None
        facts: int | None
        if adjudicated:
            supported, facts = adjudicated_supported, adjudicated_facts
        else:
            supported, facts = statistics.gold_label([each[0] for each in given], [each[1] for each in given])
        if supported is not None and facts is not None:
            gold.append(Gold(pk, output, index, system, weight, triple, supported, facts, adjudicated))
        elif given:
            waiting += 1
    return gold, waiting


def label_agreement(items: QuerySet[TripleCheckItem]) -> dict[str, Any]:
    """Agreement of the annotators on factualness and on the fact count (``statistics.annotator_agreement``)."""
    answers = list(answers_by_item(items).values())
    return {
        "fs": statistics.annotator_agreement(
            [{who: answer[0] for who, answer in each.items()} for each in answers], (True, False)
        ),
        "gs": statistics.annotator_agreement(
            [{who: answer[1] for who, answer in each.items()} for each in answers], statistics.FACT_COUNTS
        ),
    }


def judge_verdicts(dataset: Dataset, gold: Sequence[Gold]) -> dict[str, tuple[str, Verdicts, Verdicts, str]]:
    """``{setting: (judge label, support verdicts, fact counts, rules)}`` on the gold triples, one
    setting per judge, those with no verdict on them left out; rules: "app" or "reference"."""
    outputs = {each.output for each in gold}
    # A verdict counts only while the output still holds the labelled triple at that place.
    current = dict(Output.objects.filter(pk__in=outputs).values_list("pk", "triples"))
    sampled = {
        (each.output, each.index)
        for each in gold
        if each.index < len(current.get(each.output, [])) and current[each.output][each.index] == each.triple
    }
    labels: dict[str, str] = {}
    rules: dict[str, str] = {}
    for run in settings_choices(dataset):
        labels.setdefault(run.fingerprint, judge_label(run.provenance or {}))
        rules.setdefault(run.fingerprint, "reference" if (run.provenance or {}).get("rules") == "reference" else "app")
    found: dict[str, tuple[Verdicts, Verdicts]] = defaultdict(lambda: ({}, {}))
    scored = TextScore.objects.current().filter(output_id__in=outputs, metric__in=("fs", "gs"), fingerprint__in=labels)
    for fingerprint, metric, output_id, details in scored.values_list("fingerprint", "metric", "output_id", "details"):
        support, facts = found[fingerprint]
        for index, verdict in enumerate(details):
            if (output_id, index) not in sampled or verdict.get("missing"):
                continue
            if metric == "fs":
                support[output_id, index] = bool(verdict["supported"])
            else:
                facts[output_id, index] = statistics.judge_facts(int(verdict["n"]))
    chosen: dict[str, tuple[str, Verdicts, Verdicts, str]] = {}
    seen: set[str] = set()
    for fingerprint, label in labels.items():  # newest first
        if fingerprint in found and label not in seen and any(found[fingerprint]):
            seen.add(label)
            chosen[fingerprint] = (label, *found[fingerprint], rules[fingerprint])
    return chosen


@dataclass(frozen=True)
class TextShape:
    """What turns triple-level figures into the leaderboard's per-text ones: the triples of each
    labelled triple's output now, and per system the share of its texts with at least one triple."""

    output_triples: dict[int, int]
    answered_share: dict[Hashable, float]  # by system name

    @classmethod
    def of(cls, dataset: Dataset, gold: Sequence[Gold]) -> "TextShape":
        current = Output.objects.filter(pk__in={each.output for each in gold}).values_list("pk", "triples")
        outputs = Output.objects.filter(text__dataset=dataset, system__name__in={each.system for each in gold})
        shares = outputs.values("system__name").annotate(texts=Count("pk"), answered=Count("pk", filter=~Q(triples=[])))
        return cls(
            {pk: len(triples) for pk, triples in current},
            {row["system__name"]: row["answered"] / row["texts"] for row in shares},
        )


def _sample(gold: Sequence[Gold], support: Verdicts, facts: Verdicts, shape: TextShape) -> statistics.Sample:
    keys = [(each.output, each.index) for each in gold]
    return statistics.Sample.of(
        system=[each.system for each in gold],
        human_supported=[each.supported for each in gold],
        human_facts=[each.facts for each in gold],
        judge_supported=[support.get(key) for key in keys],
        judge_facts=[facts.get(key) for key in keys],
        weight=[each.weight for each in gold],
        # An output emptied since it was sampled has no verdict on the triple: 1 keeps the arithmetic.
        output_triples=[max(shape.output_triples.get(each.output, 0), 1) for each in gold],
    )


def judge_report(
    dataset: Dataset, campaigns: Iterable[TripleCheck] | None = None, rounds: int = 1000
) -> dict[str, Any]:
    """Everything the triple checks of ``dataset`` say (all its campaigns pooled unless given).

    Attention checks are left out of every figure. ``{"campaigns", "triples", "labels", "gold", "adjudicated", "awaiting_adjudication", "agreement",
    "judges": [...], "paired": [...]}``;
    judges ranked by Cohen's κ with the humans, best first; ``paired``: McNemar's test of every
    two judges on the triples both judged.
    """
    chosen = list(campaigns) if campaigns is not None else list(TripleCheck.objects.filter(dataset=dataset))
    items = TripleCheckItem.objects.filter(campaign__in=chosen, attention=False)
    gold, waiting = gold_labels(items)
    judges = []
    verdicts = judge_verdicts(dataset, gold)
    shape = TextShape.of(dataset, gold)
    for setting, (label, support, facts, rules) in verdicts.items():
        sample = _sample(gold, support, facts, shape)
        judges.append(
            {
                "setting": setting,
                "judge": label,
                **statistics.judge_agreement(sample, rounds),
                "adjudicated": sum(each.adjudicated for each in gold if (each.output, each.index) in support),
                "systems": statistics.system_bias(
                    sample, rounds, answered_share=shape.answered_share, empty_counts=EMPTY_COUNTS[rules]
                ),
            }
        )
    judges.sort(key=lambda judge: -(judge["kappa"]["value"] if judge["kappa"]["value"] is not None else -2))
    return {
        "campaigns": [campaign.name for campaign in chosen],
        "triples": items.count(),
        "labels": TripleLabel.objects.answered().filter(item__in=items).count(),
        "gold": len(gold),
        "adjudicated": sum(each.adjudicated for each in gold),
        "awaiting_adjudication": waiting,
        "agreement": label_agreement(items),
        "judges": judges,
        "paired": _paired(gold, verdicts),
    }


def _paired(gold: Sequence[Gold], verdicts: dict[str, tuple[str, Verdicts, Verdicts, str]]) -> list[dict[str, Any]]:
    tests = []
    for (_, (first, first_support, *_)), (_, (second, second_support, *_)) in combinations(verdicts.items(), 2):
        both = [each for each in gold if (key := (each.output, each.index)) in first_support and key in second_support]
        keys = [(each.output, each.index) for each in both]
        result = statistics.paired_test(
            [each.supported for each in both],
            [first_support[key] for key in keys],
            [second_support[key] for key in keys],
        )
        tests.append({"first": first, "second": second, "triples": len(both), **result})
    return tests


def annotator_progress(campaign: TripleCheck) -> list[dict[str, Any]]:
    """Per annotator who holds labels: triples labelled and assigned, the attention checks answered
    and passed (a check passes when it is called not supported), and whether they still label."""
    labels = TripleLabel.objects.filter(item__campaign=campaign)
    counts = (
        labels.values("annotator", "annotator__username")
        .annotate(
            assigned=Count("pk"),
            done=Count("saved_at"),
            checks=Count("pk", filter=Q(item__attention=True, saved_at__isnull=False)),
            passed=Count("pk", filter=Q(item__attention=True, supported=False)),
        )
        .order_by("annotator__username")
    )
    active = set(campaign.annotators.values_list("pk", flat=True))
    return [
        {
            "id": row["annotator"],
            "username": row["annotator__username"],
            "active": row["annotator"] in active,
            **{key: row[key] for key in ("assigned", "done", "checks", "passed")},
        }
        for row in counts
    ]


def judge_records(report: dict[str, Any] | None) -> list[dict[str, Any]]:
    """One record of :data:`JUDGE_FIELDS` per judge of a ``judge_report`` (none without a report)."""
    return [
        {
            "judge": judge["judge"],
            "setting": judge["setting"],
            "triples": judge["triples"],
            "adjudicated": judge["adjudicated"],
            **{
                f"{measure}{suffix}": judge[measure][part]
                for measure in JUDGE_MEASURES
                for suffix, part in (("", "value"), ("_low", "low"), ("_high", "high"))
            },
        }
        for judge in (report or {}).get("judges", [])
    ]


def bias_records(report: dict[str, Any] | None) -> list[dict[str, Any]]:
    """One record of :data:`BIAS_FIELDS` per judge, system and aspect of a ``judge_report``."""
    return [
        {
            "judge": judge["judge"],
            "setting": judge["setting"],
            "system": system,
            "aspect": aspect,
            "judge_score": figures["judge"]["value"],
            "human_score": figures["human"]["value"],
            "human_low": figures["human"]["low"],
            "human_high": figures["human"]["high"],
            "bias": figures["bias"]["value"],
            "bias_low": figures["bias"]["low"],
            "bias_high": figures["bias"]["high"],
            "triples": figures["triples"],
        }
        for judge in (report or {}).get("judges", [])
        for system, aspects in judge["systems"].items()
        for aspect, figures in aspects.items()
    ]


LABEL_FIELDS = (
    "campaign", "item", "text", "system", "subject", "relation", "object", "weight", "attention",
    "annotator", "supported", "facts", "seconds", "saved_at", "gold_supported", "gold_facts", "gold",
)  # fmt: skip


def label_records(campaigns: Iterable[TripleCheck]) -> list[dict[str, Any]]:
    """Every saved label of the campaigns, one record of :data:`LABEL_FIELDS` each (for staff and
    notebooks: it names systems and annotators); the text is its external id, else ``#N``. Each
    carries its triple's gold label and where it comes from (``gold``: "adjudicated" or
    "majority"; empty, as the gold label, for a triple without one or an attention check)."""
    chosen = list(campaigns)
    gold, _ = gold_labels(TripleCheckItem.objects.filter(campaign__in=chosen, attention=False))
    gold_of = {
        each.item: (each.supported, each.facts, "adjudicated" if each.adjudicated else "majority") for each in gold
    }
    saved = (
        TripleLabel.objects.answered()
        .filter(item__campaign__in=chosen)
        .order_by("item__campaign_id", "item_id", "annotator__username")
        .values_list(
            "item__campaign__name", "item_id", "item__text__external_id", "item__text__position",
            "item__output__system__name", "item__triple", "item__weight", "item__attention",
            "annotator__username", "supported", "facts", "seconds_spent", "saved_at",
        )
    )  # fmt: skip
    return [
        dict(
            zip(
                LABEL_FIELDS,
                (campaign, item, external_id or f"#{position + 1}", system, *triple, weight, attention,
                 annotator, supported, facts, seconds, saved_at, *gold_of.get(item, (None, None, ""))),
                strict=True,
            )
        )
        for (campaign, item, external_id, position, system, triple, weight, attention,
             annotator, supported, facts, seconds, saved_at) in saved
    ]  # fmt: skip
