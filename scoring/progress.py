"""Live updates: best-effort messages to the websocket groups that open pages join.

Scoring runs and queued imports have one group each. Jobs call ``publish_progress`` after every
change they make (a chunk done, a failure, a cancellation); the message carries the run's whole
progress state, so a page that missed one update is right again with the next. Import jobs do
the same with ``publish_upload_progress``. ``broadcast`` is shared with the leaderboard, whose
build jobs announce new snapshots the same way.

Live updates only wake up open pages, which catch up on their next message or reload, so a
channel layer that is down must never fail the work that sends them: it costs one log line.
"""

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from redis import RedisError

logger = logging.getLogger(__name__)

MESSAGE_TYPE = "run.progress"  # handled by RunProgressConsumer.run_progress


def broadcast(group, message):
    """Send ``message`` to every socket in ``group``, or log why it could not be sent."""
    try:
        async_to_sync(get_channel_layer().group_send)(group, message)
    except (OSError, RedisError) as error:
        logger.warning("Live update to %s not sent (is Redis running?): %s", group, error)


def group_name(run_id):
    return f"scoring-run-{run_id}"


def publish_progress(run):
    broadcast(group_name(run.pk), {"type": MESSAGE_TYPE, "state": run.progress_state()})


def upload_group_name(upload_id):
    return f"scoring-upload-{upload_id}"


def publish_upload_progress(upload_id, state):
    broadcast(upload_group_name(upload_id), {"type": MESSAGE_TYPE, "state": state})
