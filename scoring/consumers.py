"""The websockets of progress pages: a run's page and the upload page follow their object's
progress state, sent now and then after every change."""

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.contrib.auth.models import AnonymousUser, User

from core.permissions import VIEW_OUTPUTS, blind_dataset_ids
from scoring.import_jobs import upload_state
from scoring.models import Upload
from scoring.models.chunked import ChunkedRun
from scoring.models.generation import GenerationRun
from scoring.models.runs import ScoringRun
from scoring.progress import generation_group_name, group_name, upload_group_name


def readable_state(user: User | AnonymousUser, run_model: type[ChunkedRun], run_id: int) -> dict[str, Any] | None:
    """The run's progress state, or None when there is no such run or the user may not see it
    (the run page names systems, so its socket asks for the same permission as the page, and
    refuses an annotator judging its dataset's systems blind)."""
    if not (user.is_authenticated and user.has_perm(VIEW_OUTPUTS)):
        return None
    run = run_model.objects.filter(pk=run_id).first()
    readable = run is not None and run.dataset_id not in blind_dataset_ids(user)
    return run.progress_state() if readable else None  # type: ignore[union-attr]


@database_sync_to_async
def state_for(user: User | AnonymousUser, run_id: int) -> dict[str, Any] | None:
    return readable_state(user, ScoringRun, run_id)


@database_sync_to_async
def generation_state_for(user: User | AnonymousUser, run_id: int) -> dict[str, Any] | None:
    return readable_state(user, GenerationRun, run_id)


@database_sync_to_async
def upload_state_for(user: User | AnonymousUser, upload_id: int) -> dict[str, Any] | None:
    """The upload's progress state, or None when there is no such upload or the user is not staff (as the page)."""
    if not (user.is_authenticated and user.is_staff):
        return None
    upload = Upload.objects.filter(pk=upload_id).first()
    return upload_state(upload) if upload else None


class ProgressConsumer(AsyncJsonWebsocketConsumer):
    """Joins the group of the object named in the URL and forwards its progress messages.

    Subclasses name the object's group (``group_of``) and its state for a user (``state_of``).
    """

    async def connect(self) -> None:
        self.object_id = int(self.scope["url_route"]["kwargs"]["pk"])
        self.group = self.group_of(self.object_id)
        state = await self.state_of(self.scope["user"], self.object_id)
        if state is None:
            await self.close(code=4403)
            return
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json(state)

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def run_progress(self, event: dict[str, Any]) -> None:
        await self.send_json(event["state"])


class RunProgressConsumer(ProgressConsumer):
    group_of = staticmethod(group_name)
    state_of = staticmethod(state_for)


class UploadProgressConsumer(ProgressConsumer):
    group_of = staticmethod(upload_group_name)
    state_of = staticmethod(upload_state_for)


class GenerationProgressConsumer(ProgressConsumer):
    group_of = staticmethod(generation_group_name)
    state_of = staticmethod(generation_state_for)
