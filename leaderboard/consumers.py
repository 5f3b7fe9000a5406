"""Live leaderboards: a websocket per dataset page, told when its judgements or scores change.

The message only names what changed (``"judgements"`` or ``"scores"``); the page then waits a
moment for more (a burst of saves makes one refresh) and fetches the affected sections.
"""

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from genres_site.broadcast import broadcast
from leaderboard import access
from scoring.models import Dataset

CHANGES = ("judgements", "scores")


def group_name(dataset_id):
    return f"leaderboard.{dataset_id}"


def announce(dataset_id, change):
    """Tell every open page of the dataset's leaderboard that ``change`` happened."""
    if change not in CHANGES:
        raise ValueError(f"unknown change {change!r}, expected one of {CHANGES}")
    broadcast(group_name(dataset_id), {"type": "leaderboard.changed", "change": change})


@database_sync_to_async
def _visible_dataset_id(user, name):
    dataset = Dataset.objects.filter(name=name).first()
    if dataset is None or access.needs_sign_in(user):
        return None
    try:
        access.check_visible(user, dataset)
    except access.LeaderboardHidden:
        return None
    return dataset.pk


class LeaderboardConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        self.group = None
        dataset_id = await _visible_dataset_id(self.scope["user"], self.scope["url_route"]["kwargs"]["name"])
        if dataset_id is None:
            await self.close(code=4403)
            return
        self.group = group_name(dataset_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code):
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def leaderboard_changed(self, event):
        await self.send_json({"change": event["change"]})
