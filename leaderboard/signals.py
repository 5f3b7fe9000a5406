"""Every change a leaderboard shows schedules a rebuild of it (``leaderboard.jobs``).

Receivers, not calls inside the writers: ``scoring`` and ``annotation`` never import
``leaderboard`` (data flows one way). An annotator's save sends ``judgements_saved`` once for
all its judgements (written in bulk); judgements edited or deleted elsewhere (the admin) send
Django's model signals; a finished run sends ``scoring.models.runs.run_finished``; imports of
datasets, outputs and judgements send their own signals (their bulk writes send no per-row
one). Scheduling waits for the commit and is debounced, so a burst of saves makes one or two
builds.
"""

from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from annotation.imports import judgements_imported
from annotation.models import Judgement, TripleCheck, TripleLabel
from annotation.services.judgements import judgements_saved
from leaderboard.jobs import schedule_rebuild
from scoring.imports import dataset_imported, outputs_imported
from scoring.models import Dataset, ScoringRun
from scoring.models.runs import run_finished


@receiver(post_save, sender=Judgement)
@receiver(post_delete, sender=Judgement)
def judgement_changed(sender: type[Judgement], instance: Judgement, **kwargs: Any) -> None:
    schedule_rebuild(instance.assignment.item.campaign.dataset_id)


@receiver(judgements_saved)
def judgements_saved_by_annotator(sender: object, dataset_id: int, **kwargs: Any) -> None:
    schedule_rebuild(dataset_id)


@receiver(post_save, sender=TripleLabel)
def triple_labelled(sender: type[TripleLabel], instance: TripleLabel, **kwargs: Any) -> None:
    dataset_id = TripleCheck.objects.filter(items=instance.item_id).values_list("dataset_id", flat=True).first()
    if dataset_id is not None:
        schedule_rebuild(dataset_id)


@receiver(post_save, sender=TripleCheck)
def triple_check_changed(sender: type[TripleCheck], instance: TripleCheck, **kwargs: Any) -> None:
    schedule_rebuild(instance.dataset_id)


@receiver(run_finished)
def scores_changed(sender: object, run: ScoringRun, **kwargs: Any) -> None:
    schedule_rebuild(run.dataset_id)


@receiver(dataset_imported)
@receiver(outputs_imported)
@receiver(judgements_imported)
def data_imported(sender: object, dataset: Dataset, **kwargs: Any) -> None:
    schedule_rebuild(dataset.pk)
