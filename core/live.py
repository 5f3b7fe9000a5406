"""Live updates: best-effort messages to the websocket groups that open pages join.

Scoring runs and uploads (``scoring.progress``) and leaderboards (``leaderboard.jobs``) send
theirs through ``broadcast``. Live updates only wake up open pages, which catch up on their next
message or reload, so a channel layer that is down must never fail the work that sends them: it
costs one log line.
"""

import logging
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from redis import RedisError

logger = logging.getLogger(__name__)


def broadcast(group: str, message: dict[str, Any]) -> None:
    """Send ``message`` to every socket in ``group``, or log why it could not be sent."""
    try:
        async_to_sync(get_channel_layer().group_send)(group, message)
    except (OSError, RedisError) as error:
        logger.warning("Live update to %s not sent (is Redis running?): %s", group, error)
