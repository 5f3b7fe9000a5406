"""Announce changes to open leaderboard pages once the transaction that made them commits.

Receivers, not calls inside the writers: ``scoring`` and ``annotation`` never import
``leaderboard`` (data flows one way); a finished run sends ``scoring.runs.run_finished``, saved
judgements Django's model signals. The cache needs no invalidation from here, since its keys
carry versions read from the database (``leaderboard.cache``); these only wake up open pages.
Bulk imports (``import_judgments``) send no per-row signal: their campaigns are closed
studies, and the next page load shows them.
"""

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from annotation.models import Judgement
from leaderboard.consumers import announce
from scoring.runs import run_finished


@receiver(post_save, sender=Judgement)
@receiver(post_delete, sender=Judgement)
def judgement_changed(sender, instance, **kwargs):
    dataset_id = instance.assignment.item.campaign.dataset_id
    # robust: a websocket layer that is down must not fail the save that already committed.
    transaction.on_commit(lambda: announce(dataset_id, "judgements"), robust=True)


@receiver(run_finished)
def scores_changed(sender, run, **kwargs):
    announce(run.dataset_id, "scores")
