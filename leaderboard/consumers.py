"""Live leaderboards: a websocket per dataset page, told when a new build of it lands.

The message says what the build changed (``"judgements"``, ``"scores"``, both, or nothing when
it only added a variant) and the time its data is as of; the page then fetches its sections,
or reloads when it was waiting for its first build (``leaderboard.jobs.announce`` sends it).
A page waiting for a variant (another margin) is also sent each step of its build.
"""

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser

from leaderboard import access
from leaderboard.jobs import group_name
from scoring.models import Dataset


@database_sync_to_async
def _visible_dataset_id(user: AbstractBaseUser | AnonymousUser, name: str) -> int | None:
    dataset = Dataset.objects.filter(name=name).first()
    if dataset is None or access.needs_sign_in(user):
        return None
    try:
        access.check_visible(user, dataset)
    except access.LeaderboardHidden:
        return None
    return dataset.pk


class LeaderboardConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        self.group = None
        dataset_id = await _visible_dataset_id(self.scope["user"], self.scope["url_route"]["kwargs"]["name"])
        if dataset_id is None:
            await self.close(code=4403)
            return
        self.group = group_name(dataset_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def leaderboard_built(self, event: dict[str, Any]) -> None:
        await self.send_json({"changes": event["changes"], "as_of": event["as_of"]})

    async def leaderboard_progress(self, event: dict[str, Any]) -> None:
        """A step of a variant's build (``leaderboard.jobs.build_variant``), for a page waiting for it."""
        fields = ("setting", "margin", "step", "done", "total")
        await self.send_json({"progress": {field: event[field] for field in fields}})
