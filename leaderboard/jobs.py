"""Leaderboards are built by RQ jobs on the ``leaderboard`` queue, never in a request.

    a change (judgement saved, run finished, import)  ->  schedule_rebuild(dataset id)
        ->  at most one build_leaderboards job queued per dataset  ->  Snapshot rows  ->  websocket

Debounce: scheduling sets a per-dataset Redis key and enqueues a job only when the key was not
already set; the job deletes the key before it reads anything. So a burst of changes while a
job waits makes no more jobs, and a change committed during a build (the key is free again)
makes exactly one more, which runs after it: builds of one dataset hold a lock, in case
several workers serve the queue.

A build makes every variant a page may ask for: the newest scoring setting at the default
margin, and each other setting or margin some page asked for within ``VARIANTS_KEPT_FOR``
(a Redis sorted set per dataset). It replaces all of the dataset's snapshots in one
transaction, then tells the open pages what changed.
"""

import hashlib
import json
import logging
import time
from functools import cache

import django_rq
import redis
from django.db import transaction
from django.utils import timezone

from leaderboard import exports, human, metrics, services
from leaderboard.battles import DEFAULT_MARGIN
from leaderboard.models import Snapshot
from scoring.models import Dataset
from scoring.progress import broadcast

logger = logging.getLogger(__name__)

QUEUE = "leaderboard"
# The demo's largest dataset builds in seconds; this bounds a build stuck on a dead database.
BUILD_TIMEOUT = 15 * 60
# A queued job lost with its worker frees the dataset for new builds after this long.
PENDING_FOR = BUILD_TIMEOUT
VARIANTS_KEPT_FOR = 24 * 3600


@cache
def queue():
    # One client per process: django_rq makes a new one, and so a new connection, on every call
    # (a save would pay for it). redis-py's pool reconnects after a fork or a Redis restart.
    return django_rq.get_queue(QUEUE)


def _pending_key(dataset_id):
    return f"leaderboard:pending:{dataset_id}"


def _lock_key(dataset_id):
    return f"leaderboard:building:{dataset_id}"


def _variants_key(dataset_id):
    return f"leaderboard:variants:{dataset_id}"


def group_name(dataset_id):
    """The websocket group of the dataset's open leaderboard pages."""
    return f"leaderboard.{dataset_id}"


def schedule_rebuild(dataset_id):
    """Have the dataset's leaderboards rebuilt once the current transaction commits (debounced)."""
    # robust: a Redis that is down must not fail the change that already committed.
    transaction.on_commit(lambda: _enqueue(dataset_id), robust=True)


def _enqueue(dataset_id: int) -> None:
    try:
        if queue().connection.set(_pending_key(dataset_id), 1, nx=True, ex=PENDING_FOR):
            queue().enqueue(build_leaderboards, dataset_id, job_timeout=BUILD_TIMEOUT)
    except redis.ConnectionError as error:
        # A command run without the server (an import from a shell): one line, not a traceback
        # per change. The leaderboard is built at the next change made while Redis is up.
        logger.warning("Leaderboard of dataset %s not scheduled: Redis is unreachable (%s)", dataset_id, error)


def ask_for_variant(dataset_id, setting_key, margin):
    """Note that a page asked for this setting (empty: the newest) and margin; a new one is built."""
    if not setting_key and margin == DEFAULT_MARGIN:
        return
    member = json.dumps([setting_key or "", margin])
    if queue().connection.zadd(_variants_key(dataset_id), {member: time.time()}):
        schedule_rebuild(dataset_id)


def _asked_variants(connection, dataset_id):
    key = _variants_key(dataset_id)
    connection.zremrangebyscore(key, 0, time.time() - VARIANTS_KEPT_FOR)
    return [tuple(json.loads(member)) for member in connection.zrange(key, 0, -1)]


def build_leaderboards(dataset_id):
    """The RQ job: rebuild every variant of the dataset's leaderboard, then tell the open pages."""
    connection = queue().connection
    # Before reading anything: a change committed from now on schedules one more build.
    connection.delete(_pending_key(dataset_id))
    with connection.lock(_lock_key(dataset_id), timeout=BUILD_TIMEOUT):
        dataset = Dataset.objects.filter(pk=dataset_id).first()
        if dataset is None:
            return
        previous = Snapshot.objects.without_content().filter(dataset=dataset, newest=True, margin=DEFAULT_MARGIN).first()
        asked = _asked_variants(connection, dataset_id)
        started = time.monotonic()
        snapshots, unknown = build_snapshots(dataset, asked)
        if unknown:
            connection.zrem(_variants_key(dataset_id), *(json.dumps(list(variant)) for variant in unknown))
    logger.info("Built %d leaderboards of %s in %.1f s", len(snapshots), dataset.name, time.monotonic() - started)
    announce(dataset_id, changes(previous, snapshots[0]), snapshots[0].built_at)


def build_snapshots(dataset, asked=()):
    """Build and store the default leaderboard and the ``asked`` (setting key, margin) variants.

    Returns the snapshots, the default first, and the asked variants whose setting is unknown.
    """
    built_at = timezone.now()
    judgement_version = _digest(human.judgement_version(dataset))
    scores_version = _digest(metrics.scores_version(dataset))
    builder = services.Builder(
        dataset, _current_metric_ratings(dataset, scores_version), _current_score_tests(dataset, scores_version)
    )
    known = {setting["key"] for setting in builder.settings}
    newest = builder.settings[0]["key"] if builder.settings else ""
    unknown = [(key, margin) for key, margin in asked if key and key not in known]
    # A dict for its order: the default first.
    variants = dict.fromkeys([(newest, DEFAULT_MARGIN), *((key or newest, margin) for key, margin in asked)])
    for variant in unknown:
        variants.pop(variant, None)
    snapshots = []
    for setting_key, margin in variants:
        is_newest = setting_key == newest
        data = builder.leaderboard(setting_key or None, margin)
        tables = {**exports.leaderboard_json(data), "as_of": built_at.isoformat()}
        snapshots.append(
            Snapshot(
                dataset=dataset,
                setting=setting_key,
                newest=is_newest,
                margin=margin,
                tables=json.dumps(tables, ensure_ascii=False),
                plots=json.dumps(data["plots"], ensure_ascii=False),
                summary=builder.summary(data) if is_newest and margin == DEFAULT_MARGIN else None,
                judgement_version=judgement_version,
                scores_version=scores_version,
                built_at=built_at,
            )
        )
    with transaction.atomic():
        # Builds of one dataset may meet (a job and load_demo's own build): the dataset's row lock
        # makes one replace the snapshots after the other, never both insert beside each other.
        Dataset.objects.select_for_update().get(pk=dataset.pk)
        Snapshot.objects.filter(dataset=dataset).delete()
        Snapshot.objects.bulk_create(snapshots)
    return snapshots, unknown


def _current_metric_ratings(dataset, scores_version):
    """The metric-battle ratings of the last build where the scores are unchanged: the costliest
    part (tens of thousands of battles per aspect, bootstrapped), which new judgements leave as is."""
    kept = Snapshot.objects.filter(dataset=dataset, scores_version=scores_version).exclude(setting="")
    return {
        (snapshot.setting, snapshot.margin): snapshot.data["metric_ratings"]
        for snapshot in kept.defer("plots")
        if snapshot.data["metric_ratings"] is not None
    }


def _current_score_tests(dataset, scores_version):
    """The intervals and paired tests of the last build where the scores are unchanged (as above)."""
    kept = Snapshot.objects.filter(dataset=dataset, scores_version=scores_version).exclude(setting="")
    tests = {snapshot.setting: snapshot.data.get("significance", {}).get("scores") for snapshot in kept.defer("plots")}
    # A snapshot built before the tests existed has none: they are computed afresh.
    return {setting: tested for setting, tested in tests.items() if tested is not None}


def changes(previous, snapshot):
    """What a new build changed since ``previous`` (None: never built): judgements, scores, both or none."""
    if previous is None:
        return ["judgements", "scores"]
    changed = []
    if previous.judgement_version != snapshot.judgement_version:
        changed.append("judgements")
    if previous.scores_version != snapshot.scores_version:
        changed.append("scores")
    return changed


def announce(dataset_id, changed, as_of):
    """Tell every open page of the dataset that a build landed, what it changed and as of when."""
    broadcast(group_name(dataset_id), {"type": "leaderboard.built", "changes": changed, "as_of": as_of.isoformat()})


def _digest(version):
    return hashlib.sha256(repr(version).encode("utf-8")).hexdigest()[:32]
