"""Live updates of scoring and generation runs and queued imports, one websocket group each (``core.live``).

Jobs call ``publish_progress`` after every change they make (a chunk done, a failure, a
cancellation); the message carries the run's whole progress state, so a page that missed one
update is right again with the next. Import jobs do the same with ``publish_upload_progress``.
"""

from typing import Any

from core.live import broadcast
from scoring.models.chunked import ChunkedRun
from scoring.models.generation import GenerationRun

MESSAGE_TYPE = "run.progress"  # handled by RunProgressConsumer.run_progress


def group_name(run_id: int) -> str:
    return f"scoring-run-{run_id}"


def generation_group_name(run_id: int) -> str:
    return f"generation-run-{run_id}"


def publish_progress(run: ChunkedRun) -> None:
    """Send a scoring or generation run's progress state to its page."""
    group = generation_group_name(run.pk) if isinstance(run, GenerationRun) else group_name(run.pk)
    broadcast(group, {"type": MESSAGE_TYPE, "state": run.progress_state()})  # type: ignore[attr-defined]


def upload_group_name(upload_id: int) -> str:
    return f"scoring-upload-{upload_id}"


def publish_upload_progress(upload_id: int, state: dict[str, Any]) -> None:
    broadcast(upload_group_name(upload_id), {"type": MESSAGE_TYPE, "state": state})
