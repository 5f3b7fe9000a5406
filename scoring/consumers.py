"""The websocket of a run's page: the run's progress state now, then after every change."""

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from scoring.progress import group_name
from scoring.runs import ScoringRun

# The run page names systems, so its socket asks for the same permission as the page.
VIEW_OUTPUTS = "scoring.view_output"


@database_sync_to_async
def state_for(user, run_id):
    """The run's progress state, or None when there is no such run or the user may not see it."""
    if not (user.is_authenticated and user.has_perm(VIEW_OUTPUTS)):
        return None
    run = ScoringRun.objects.filter(pk=run_id).first()
    return run.progress_state() if run else None


class RunProgressConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        self.run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        self.group = group_name(self.run_id)
        state = await state_for(self.scope["user"], self.run_id)
        if state is None:
            await self.close(code=4403)
            return
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json(state)

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def run_progress(self, event):
        await self.send_json(event["state"])
