"""Built leaderboards, stored so that pages, JSON and CSVs only read them (see ``leaderboard.jobs``)."""

import json
from typing import Any

from django.db import models
from django.utils.functional import cached_property

from scoring.models import Dataset


class SnapshotQuerySet(models.QuerySet["Snapshot"]):
    def variant(self, dataset: Dataset, setting_key: str, margin: float) -> "SnapshotQuerySet":
        """The snapshot of one setting (its fingerprint; empty for the newest) and margin."""
        chosen = self.filter(dataset=dataset, margin=margin)
        return chosen.filter(setting=setting_key) if setting_key else chosen.filter(newest=True)

    def without_content(self) -> "SnapshotQuerySet":
        """Everything but the large text columns: enough to find a snapshot and say when it was built."""
        return self.defer("tables", "plots")


class Snapshot(models.Model):
    """One dataset's leaderboard for one scoring setting and margin, as a build job left it.

    A build replaces every snapshot of its dataset at once, in one transaction: a reader sees
    the whole old build or the whole new one.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="leaderboard_snapshots")
    # The scoring setting shown (a run fingerprint); empty when the dataset has no finished run.
    setting = models.CharField(max_length=64, blank=True)
    # Built for a page that names no setting: the newest one at build time.
    newest = models.BooleanField()
    margin = models.FloatField()
    # leaderboard.json as served (without the figures, with "as_of"), and the figures: kept as
    # text so that the JSON routes send them without parsing.
    tables = models.TextField()
    plots = models.TextField()
    # What the index shows of the dataset (only on the newest setting at the default margin).
    summary = models.JSONField(null=True, blank=True)
    judgement_version = models.CharField(max_length=32)
    scores_version = models.CharField(max_length=32)
    built_at = models.DateTimeField()

    objects = SnapshotQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["dataset", "setting", "margin"], name="one_snapshot_per_variant"),
            models.UniqueConstraint(
                fields=["dataset", "margin"], condition=models.Q(newest=True), name="one_newest_snapshot_per_margin"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.dataset} leaderboard, setting {self.setting[:12] or 'none'}, margin {self.margin:.2f}"

    @cached_property
    def data(self) -> dict[str, Any]:
        """The leaderboard as ``leaderboard.contents`` built it, but for the figures (``plots``, as text)."""
        return json.loads(self.tables)
