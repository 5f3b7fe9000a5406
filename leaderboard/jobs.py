"""Leaderboards are built by RQ jobs on the ``leaderboard`` queue, never in a request.

    a change (judgement saved, run finished, import)  ->  schedule_rebuild(dataset id)
        ->  at most one build_leaderboards job queued per dataset  ->  Snapshot rows  ->  websocket

Debounce: scheduling sets a per-dataset Redis key and enqueues a job only when the key was not
already set; the job deletes the key before it reads anything. So a burst of changes while a
job waits makes no more jobs, and a change committed during a build (the key is free again)
makes exactly one more, which runs after it: builds of one dataset hold a lock, in case
several workers serve the queue.

Pacing: while changes keep coming, a build waits before it starts until the dataset's last build
has been over for as long as that build used the CPU, at least ``MIN_PAUSE`` and at most
``MAX_PAUSE``, so the worker takes at most half a core from the web processes however fast
annotators save (less where builds are cheap: the floor), and the changes of the pause land in
one build. CPU time, not wall time: on a machine busy with other work a build
takes longer without costing the web processes more, and should not wait longer. A change still
shows within the build under way, the pause and its own build; after a quiet spell a change is
built at once.

A build makes every variant a page may ask for: the newest scoring setting at the default
margin, and each other setting or margin some page asked for within ``VARIANTS_KEPT_FOR``
(a Redis sorted set per dataset). It replaces all of the dataset's snapshots in one
transaction, then tells the open pages what changed. A variant a page asks for that was never
built (another margin) does not wait for that: ``build_variant`` makes it alone, ahead of the
queue and without the pause, telling the waiting page each step.
"""

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import cache
from typing import Any, cast

import django_rq
from django.db import transaction
from django.utils import timezone
from redis import ConnectionError as RedisConnectionError
from redis import Redis
from rq import Queue

from core.live import broadcast
from leaderboard import contents, exports, human, metrics
from leaderboard.metric_battles import DEFAULT_MARGIN
from leaderboard.models import Snapshot
from scoring.models import Dataset

logger = logging.getLogger(__name__)

QUEUE = "leaderboard"
# The demo's largest dataset builds in seconds; this bounds a build stuck on a dead database.
BUILD_TIMEOUT = 15 * 60
# A queued job lost with its worker frees the dataset for new builds after this long.
PENDING_FOR = BUILD_TIMEOUT
VARIANTS_KEPT_FOR = 24 * 3600
# Pacing (above): the pause after a build is its CPU time times PAUSE_PER_BUILD, within
# [MIN_PAUSE, MAX_PAUSE]. The floor keeps builds of a fraction of a second from following each
# other all the time under a stream of saves; the ceiling, that a change shows within seconds.
PAUSE_PER_BUILD = 1.0
MIN_PAUSE = 1.0
MAX_PAUSE = 2.0
# The steps a variant's build tells the page waiting for it: the leaderboard's, then storing it.
VARIANT_STEPS = contents.STEPS + 1
# A leaderboard variant: (setting key, "" for the newest; margin).
Variant = tuple[str, float]
# Set once this process has said that Redis is unreachable (``_warn_unreachable``).
_unreachable_warned = False


@cache
def queue() -> Queue:
    # One client per process: django_rq makes a new one, and so a new connection, on every call
    # (a save would pay for it). redis-py's pool reconnects after a fork or a Redis restart.
    return django_rq.get_queue(QUEUE)


def _pending_key(dataset_id: int) -> str:
    return f"leaderboard:pending:{dataset_id}"


def _lock_key(dataset_id: int) -> str:
    return f"leaderboard:building:{dataset_id}"


def _last_build_key(dataset_id: int) -> str:
    return f"leaderboard:last-build:{dataset_id}"


def _variants_key(dataset_id: int) -> str:
    return f"leaderboard:variants:{dataset_id}"


def group_name(dataset_id: int) -> str:
    """The websocket group of the dataset's open leaderboard pages."""
    return f"leaderboard.{dataset_id}"


def schedule_rebuild(dataset_id: int) -> None:
    """Have the dataset's leaderboards rebuilt once the current transaction commits (debounced)."""
    # robust: a Redis that is down must not fail the change that already committed.
    transaction.on_commit(lambda: _enqueue(dataset_id), robust=True)


def _enqueue(dataset_id: int) -> None:
    try:
        if queue().connection.set(_pending_key(dataset_id), 1, nx=True, ex=PENDING_FOR):
            queue().enqueue(build_leaderboards, dataset_id, job_timeout=BUILD_TIMEOUT)
    except RedisConnectionError as error:
        _warn_unreachable(error)


def _warn_unreachable(error: RedisConnectionError) -> None:
    """One line per process, not one per change: a command run without the server (an import from
    a shell) schedules a rebuild per file it imports."""
    global _unreachable_warned
    if _unreachable_warned:
        return
    _unreachable_warned = True
    logger.warning(
        "Redis is unreachable (%s): leaderboards are not rebuilt now. A worker rebuilds a dataset's "
        "leaderboard at its next change made while Redis is up (one never built: when its page is opened).",
        error,
    )


def ask_for_variant(dataset_id: int, setting_key: str, margin: float, built: bool = True) -> None:
    """Note that a page asked for this setting (empty: the newest) and margin, which later builds then
    make too. One not ``built`` yet is built at once: alone (``build_variant``), or with the dataset's
    first build when it is the default."""
    if not setting_key and margin == DEFAULT_MARGIN:
        if not built:
            schedule_rebuild(dataset_id)
        return
    member = json.dumps([setting_key or "", margin])
    connection = queue().connection
    connection.zadd(_variants_key(dataset_id), {member: time.time()})
    if not built and connection.set(
        _variant_build_key(dataset_id, setting_key, margin), json.dumps(_waiting()), nx=True, ex=PENDING_FOR
    ):
        # Ahead of the queued builds: a person is waiting for this one.
        queue().enqueue(build_variant, dataset_id, setting_key, margin, job_timeout=BUILD_TIMEOUT, at_front=True)


def _variant_build_key(dataset_id: int, setting_key: str, margin: float) -> str:
    return f"leaderboard:variant-build:{dataset_id}:{setting_key}:{margin}"


def _waiting() -> dict[str, Any]:
    return {"step": "waiting for a worker", "done": 0, "total": VARIANT_STEPS}


def variant_progress(dataset_id: int, setting_key: str, margin: float) -> dict[str, Any] | None:
    """Where the build of a variant a page waits for stands: its step, steps done and in all; None
    when no such build is under way (the dataset's first build makes the page wait instead)."""
    state = queue().connection.get(_variant_build_key(dataset_id, setting_key, margin))
    return json.loads(state) if state else None


def build_variant(dataset_id: int, setting_key: str, margin: float) -> None:
    """The RQ job of a page that asked for a variant never built: that variant alone, without the
    pause between builds, each step told to the waiting page (stored for its polls and sent to
    its websocket); then the page is told that it landed, and reloads."""
    connection = queue().connection
    progress_key = _variant_build_key(dataset_id, setting_key, margin)
    done = 0

    def report(step: str) -> None:
        nonlocal done
        state = {"step": step, "done": done, "total": VARIANT_STEPS}
        done += 1
        connection.set(progress_key, json.dumps(state), ex=PENDING_FOR)
        broadcast(
            group_name(dataset_id), {"type": "leaderboard.progress", "setting": setting_key, "margin": margin, **state}
        )

    try:
        # A build of the dataset under way holds the lock: this one follows it.
        with connection.lock(_lock_key(dataset_id), timeout=BUILD_TIMEOUT):
            snapshot = _store_variant(dataset_id, setting_key, margin, report)
    finally:
        connection.delete(progress_key)
    if snapshot is not None:
        announce(dataset_id, [], snapshot.built_at)


def _store_variant(dataset_id: int, setting_key: str, margin: float, report: Callable[[str], None]) -> Snapshot | None:
    """Build and store one variant, replacing its snapshot; None when the dataset or setting is gone."""
    dataset = Dataset.objects.filter(pk=dataset_id).first()
    if dataset is None:
        return None
    scores_version = _digest(metrics.scores_version(dataset))
    metric_ratings, score_tests = _current_score_parts(dataset, scores_version)
    builder = contents.Builder(dataset, metric_ratings, score_tests, scores_version, progress=report)
    newest = builder.settings[0]["key"] if builder.settings else ""
    if setting_key and setting_key not in {setting["key"] for setting in builder.settings}:
        return None
    key = setting_key or newest
    snapshot = _snapshot_of(
        builder, key, margin, key == newest, timezone.now(), _digest(human.judgement_version(dataset)), scores_version
    )
    report("storing")
    with transaction.atomic():
        Dataset.objects.select_for_update().get(pk=dataset.pk)
        Snapshot.objects.filter(dataset=dataset, setting=key, margin=margin).delete()
        snapshot.save()
    return snapshot


def _asked_variants(connection: Redis, dataset_id: int) -> list[Variant]:
    key = _variants_key(dataset_id)
    connection.zremrangebyscore(key, 0, time.time() - VARIANTS_KEPT_FOR)
    members = cast(list[bytes], connection.zrange(key, 0, -1))  # a sync client's reply
    return [tuple(json.loads(member)) for member in members]


def pause_before_build(last_build: tuple[float, float] | None, now: float) -> float:
    """Seconds to wait before the next build, given the last one's ``(finished at, CPU seconds)`` (or None)."""
    if last_build is None:
        return 0.0
    finished_at, cpu_seconds = last_build
    pause = min(MAX_PAUSE, max(MIN_PAUSE, PAUSE_PER_BUILD * cpu_seconds))
    return max(0.0, finished_at + pause - now)


def _wait_for_turn(connection: Redis, dataset_id: int) -> None:
    last_build = connection.get(_last_build_key(dataset_id))
    pause = pause_before_build(json.loads(last_build) if last_build else None, time.time())
    if pause:
        time.sleep(pause)


def build_leaderboards(dataset_id: int) -> None:
    """The RQ job: rebuild every variant of the dataset's leaderboard, then tell the open pages."""
    connection = queue().connection
    # Changes committed during the pause still find the pending mark set: this build takes them.
    _wait_for_turn(connection, dataset_id)
    # Before reading anything: a change committed from now on schedules one more build.
    connection.delete(_pending_key(dataset_id))
    with connection.lock(_lock_key(dataset_id), timeout=BUILD_TIMEOUT):
        dataset = Dataset.objects.filter(pk=dataset_id).first()
        if dataset is None:
            return
        previous = (
            Snapshot.objects.without_content().filter(dataset=dataset, newest=True, margin=DEFAULT_MARGIN).first()
        )
        asked = _asked_variants(connection, dataset_id)
        started, cpu_started = time.monotonic(), time.process_time()
        snapshots, unknown = build_snapshots(dataset, asked)
        if unknown:
            connection.zrem(_variants_key(dataset_id), *(json.dumps(list(variant)) for variant in unknown))
        seconds, cpu_seconds = time.monotonic() - started, time.process_time() - cpu_started
        connection.set(_last_build_key(dataset_id), json.dumps([time.time(), cpu_seconds]), ex=PENDING_FOR)
    logger.info(
        "Built %d leaderboards of %s in %.1f s (CPU %.2f s)", len(snapshots), dataset.name, seconds, cpu_seconds
    )
    announce(dataset_id, changes(previous, snapshots[0]), snapshots[0].built_at)


def warm_up() -> None:
    """What a build imports and sets up on first use, done once in the worker that forks the
    builds' work horses (``scoring.workers.HealingWorker.warm_up_for``): without it each build
    paid 2 s of CPU for it, ten times the build itself after a new judgement."""
    import pandas  # noqa: F401  (imported for its side effect: loaded once, inherited by the forks)
    import scipy.stats  # noqa: F401
    from plotly.subplots import make_subplots

    from leaderboard.plots.style import figure

    make_subplots(rows=1, cols=2)
    shared = {"hovertemplate": "%{x}", "text": ["a"], "customdata": [[1]], "marker": {"color": "#000000"}}
    figure(
        [
            {"type": "bar", "x": [1], "y": [1], "error_x": {"array": [1]}, **shared},
            {"type": "scatter", "x": [1], "y": [1], "mode": "markers+text", **shared},
            {"type": "heatmap", "z": [[1]], "colorscale": "Blues", "texttemplate": "%{text}", "text": [["a"]]},
        ],
        height=100,
        margin={"l": 10},
        updatemenus=[{"buttons": [{"label": "a", "method": "update", "args": [{"visible": [True]}]}]}],
        annotations=[{"text": "a", "x": 0, "y": 0}],
        shapes=[{"type": "line", "x0": 0, "x1": 1, "y0": 0, "y1": 1}],
    )


def build_snapshots(dataset: Dataset, asked: Iterable[Variant] = ()) -> tuple[list[Snapshot], list[Variant]]:
    """Build and store the default leaderboard and the ``asked`` (setting key, margin) variants.

    Returns the snapshots, the default first, and the asked variants whose setting is unknown.
    """
    built_at = timezone.now()
    judgement_version = _digest(human.judgement_version(dataset))
    scores_version = _digest(metrics.scores_version(dataset))
    metric_ratings, score_tests = _current_score_parts(dataset, scores_version)
    builder = contents.Builder(dataset, metric_ratings, score_tests, scores_version)
    known = {setting["key"] for setting in builder.settings}
    newest = builder.settings[0]["key"] if builder.settings else ""
    unknown = [(key, margin) for key, margin in asked if key and key not in known]
    # A dict for its order: the default first.
    variants = dict.fromkeys([(newest, DEFAULT_MARGIN), *((key or newest, margin) for key, margin in asked)])
    for variant in unknown:
        variants.pop(variant, None)
    snapshots = [
        _snapshot_of(builder, setting_key, margin, setting_key == newest, built_at, judgement_version, scores_version)
        for setting_key, margin in variants
    ]
    # Everything is computed and serialised before the transaction: on SQLite it holds the one
    # write lock, and annotators' saves wait for it.
    writing = time.monotonic()
    with transaction.atomic():
        # Builds of one dataset may meet (a job and load_demo's own build): the dataset's row lock
        # makes one replace the snapshots after the other, never both insert beside each other.
        Dataset.objects.select_for_update().get(pk=dataset.pk)
        Snapshot.objects.filter(dataset=dataset).delete()
        Snapshot.objects.bulk_create(snapshots)
    logger.info(
        "Stored %d leaderboards of %s (%.0f kB) in %.0f ms",
        len(snapshots), dataset.name, sum(len(s.tables) + len(s.plots) for s in snapshots) / 1000,
        1000 * (time.monotonic() - writing),
    )  # fmt: skip
    return snapshots, unknown


def _snapshot_of(
    builder: contents.Builder,
    setting_key: str,
    margin: float,
    is_newest: bool,
    built_at: datetime,
    judgement_version: str,
    scores_version: str,
) -> Snapshot:
    """The (unsaved) snapshot of one variant: its leaderboard's tables and figures, serialised."""
    data = builder.leaderboard(setting_key or None, margin)
    tables = {**exports.leaderboard_json(data), "as_of": built_at.isoformat()}
    return Snapshot(
        dataset=builder.dataset,
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


def _current_score_parts(dataset: Dataset, scores_version: str) -> tuple[dict[Variant, Any], dict[str, Any]]:
    """The metric-battle ratings and the score tests of the last build where the scores are unchanged.

    ``({(setting key, margin): ratings}, {setting key: intervals and tests})``: the costliest parts
    (tens of thousands of battles per aspect, bootstrapped), which new judgements leave as they are.
    """
    kept = Snapshot.objects.filter(dataset=dataset, scores_version=scores_version).exclude(setting="").defer("plots")
    metric_ratings: dict[Variant, Any] = {}
    score_tests: dict[str, Any] = {}
    for snapshot in kept:
        if snapshot.data["metric_ratings"] is not None:
            metric_ratings[snapshot.setting, snapshot.margin] = snapshot.data["metric_ratings"]
        # A snapshot built before the tests existed has none: they are computed afresh.
        tested = snapshot.data.get("significance", {}).get("scores")
        if tested is not None:
            score_tests[snapshot.setting] = tested
    return metric_ratings, score_tests


def changes(previous: Snapshot | None, snapshot: Snapshot) -> list[str]:
    """What a new build changed since ``previous`` (None: never built): judgements, scores, both or none."""
    if previous is None:
        return ["judgements", "scores"]
    changed: list[str] = []
    if previous.judgement_version != snapshot.judgement_version:
        changed.append("judgements")
    if previous.scores_version != snapshot.scores_version:
        changed.append("scores")
    return changed


def announce(dataset_id: int, changed: list[str], as_of: datetime) -> None:
    """Tell every open page of the dataset that a build landed, what it changed and as of when."""
    broadcast(group_name(dataset_id), {"type": "leaderboard.built", "changes": changed, "as_of": as_of.isoformat()})


def _digest(version: object) -> str:
    return hashlib.sha256(repr(version).encode("utf-8")).hexdigest()[:32]
