"""The demo's triple-check campaign (``triple_checks`` in the manifest), with simulated labels.

Made after scoring, since its sample is stratified by the verdicts of the dataset's newest
scoring run that judged factualness (without one, by system only). The demo annotators then
find most of their queue labelled by a simulation and the last ``left_for_annotators``
triples each still to do, so the leaderboard shows the judge's agreement with "humans" from
the first ``make demo`` and an annotator who signs in can try the page.

The simulation, plainly a simulation: the offline heuristic judge's verdict on each triple is
taken as the truth, overturned on a seeded ``JUDGE_ERROR`` share of the triples (the errors a
judge makes and humans catch); the fact count multiplies the coordinated items of subject,
relation and object (the heuristic judge does not split the relation, humans do). Each
annotator then answers the truth, with a seeded ``RATER_NOISE`` share of slips on support and
``COUNT_NOISE`` on the count, so that annotators disagree now and then; an attention check's
truth is "not supported", one fact.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import CommandError
from django.db import transaction
from django.utils import timezone

from annotation.attention import MAX_ATTENTION_SHARE
from annotation.sampling import seeded_random
from annotation.services.errors import CampaignError
from annotation.triple_checks.models import MAX_FACTS, TripleCheck, TripleLabel
from annotation.triple_checks.services import create_triple_check
from scoring.genres.judges.heuristic import HeuristicJudge, conjuncts
from scoring.manifests import ManifestError, entries, load_manifest
from scoring.models import Dataset, System
from scoring.models.runs import settings_choices

JUDGE_ERROR = 0.12
RATER_NOISE = 0.06
COUNT_NOISE = 0.1
# Seconds a simulated label claims: a plausible time to read a sentence and one triple.
SIMULATED_SECONDS = 9.0


@dataclass(frozen=True)
class TripleCheckEntry:
    name: str
    dataset: str
    systems: tuple[str, ...]
    annotators: tuple[str, ...]
    per_stratum: int = 5
    overlap: float = 1.0
    seed: int = 0
    left_for_annotators: int = 4
    attention_share: float = 0.0


def read_triple_checks(path: str | Path) -> list[TripleCheckEntry]:
    """The manifest's ``triple_checks`` entries (none when it has no such list)."""
    try:
        manifest = load_manifest(path)
        found = manifest.get("triple_checks", [])
        if not isinstance(found, list):
            raise ManifestError(f'{path}: "triple_checks" must be a list')
        manifest["triple_checks"] = found
        return [_entry(entry, where) for where, entry in entries(manifest, "triple_checks", ("name", "dataset"), path)]
    except ManifestError as error:
        raise CommandError(str(error)) from None


def _entry(entry: dict[str, Any], where: str) -> TripleCheckEntry:
    names: dict[str, list[str]] = {}
    for key in ("systems", "annotators"):
        value = entry.get(key)
        if not isinstance(value, list) or not value or not all(isinstance(name, str) for name in value):
            raise CommandError(f'{where}: "{key}" must be a list of names')
        names[key] = value
    numbers = {
        key: entry.get(key, default) for key, default in (("per_stratum", 5), ("seed", 0), ("left_for_annotators", 4))
    }
    if not all(isinstance(value, int) and not isinstance(value, bool) and value >= 0 for value in numbers.values()):
        raise CommandError(f'{where}: "per_stratum", "seed" and "left_for_annotators" must be whole numbers')
    attention = entry.get("attention_percent", 0)
    if not isinstance(attention, int) or isinstance(attention, bool) or not 0 <= attention <= 100 * MAX_ATTENTION_SHARE:
        raise CommandError(
            f'{where}: "attention_percent" must be a whole percentage from 0 to {100 * MAX_ATTENTION_SHARE:g}'
        )
    overlap = entry.get("overlap", 1.0)
    if not isinstance(overlap, (int, float)) or isinstance(overlap, bool) or not 0 <= overlap <= 1:
        raise CommandError(f'{where}: "overlap" must be a share between 0 and 1')
    return TripleCheckEntry(
        name=entry["name"], dataset=entry["dataset"], systems=tuple(names["systems"]),
        annotators=tuple(names["annotators"]), overlap=float(overlap), attention_share=attention / 100, **numbers,
    )  # fmt: skip


@dataclass(frozen=True)
class TripleCheckResult:
    campaign: TripleCheck
    unchanged: bool

    @property
    def message(self) -> str:
        state = "kept as it was" if self.unchanged else "created"
        labels = TripleLabel.objects.filter(item__campaign=self.campaign)
        return (
            f"Triple check {self.campaign.name} on {self.campaign.dataset.name} {state}: "
            f"{self.campaign.items.count()} triples, {labels.answered().count()} of {labels.count()} labels simulated."
        )

    def as_dict(self) -> dict[str, Any]:
        labels = TripleLabel.objects.filter(item__campaign=self.campaign)
        return {
            "name": self.campaign.name,
            "dataset": self.campaign.dataset.name,
            "triples": self.campaign.items.count(),
            "labels": labels.count(),
            "simulated": labels.answered().count(),
            "unchanged": self.unchanged,
        }


@transaction.atomic
def ensure_triple_check(entry: TripleCheckEntry, admin: User) -> TripleCheckResult:
    """Create the campaign and simulate its labels, unless one of that name exists (kept as it is)."""
    existing = TripleCheck.objects.filter(name=entry.name).select_related("dataset").first()
    if existing is not None:
        return TripleCheckResult(existing, unchanged=True)
    dataset = Dataset.objects.get(name=entry.dataset)
    judged = [run for run in settings_choices(dataset) if "fs" in run.metrics]
    try:
        campaign = create_triple_check(
            entry.name, dataset, list(System.objects.filter(name__in=entry.systems).order_by("name")),
            list(User.objects.filter(username__in=entry.annotators).order_by("username")),
            judge_setting=judged[0].fingerprint if judged else "", per_stratum=entry.per_stratum,
            overlap_share=entry.overlap, attention_share=entry.attention_share, seed=entry.seed, created_by=admin,
        )  # fmt: skip
    except CampaignError as error:
        raise CommandError(f"triple check {entry.name}: {error}") from None
    simulate_labels(campaign, entry.left_for_annotators)
    return TripleCheckResult(campaign, unchanged=False)


def simulate_labels(campaign: TripleCheck, left_for_annotators: int) -> None:
    """Answer every annotator's queue but its last ``left_for_annotators`` triples (see the module)."""
    labels = list(TripleLabel.objects.filter(item__campaign=campaign).select_related("item__text"))
    lengths: dict[int, int] = {}
    for label in labels:
        lengths[label.annotator_id] = lengths.get(label.annotator_id, 0) + 1
    judge = HeuristicJudge()
    now = timezone.now()
    answered = []
    for label in labels:
        if label.queue_position >= lengths[label.annotator_id] - left_for_annotators:
            continue
        supported, facts = _truth(
            judge, campaign.sample_seed, label.item.pk, label.item.text.content, label.item.triple
        )
        slips = seeded_random(campaign.sample_seed, "rater", label.item.pk, label.annotator_id)
        label.supported = supported != (slips.random() < RATER_NOISE)
        label.facts = min(max(facts + (slips.choice((-1, 1)) if slips.random() < COUNT_NOISE else 0), 1), MAX_FACTS)
        label.seconds_spent, label.saved_at = SIMULATED_SECONDS, now
        answered.append(label)
    TripleLabel.objects.bulk_update(answered, ["supported", "facts", "seconds_spent", "saved_at"])


def _truth(judge: HeuristicJudge, seed: int, item: int, text: str, triple: list[str]) -> tuple[bool, int]:
    (verdict,) = judge.check_support([(text, triple)])
    overturned = seeded_random(seed, "truth", item).random() < JUDGE_ERROR
    facts = len(conjuncts(triple[0])) * len(conjuncts(triple[1])) * len(conjuncts(triple[2]))
    return verdict.supported != overturned, min(facts, MAX_FACTS)
