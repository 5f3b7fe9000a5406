"""The consumer of websocket paths that no app serves."""

from channels.generic.websocket import AsyncWebsocketConsumer


class NoSuchSocketConsumer(AsyncWebsocketConsumer):
    """Refuses the handshake: closing before accepting answers 403, a client error, not a 500."""

    async def connect(self) -> None:
        await self.close()
