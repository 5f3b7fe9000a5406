"""A socket's consumer outlives a quiet spell longer than a Redis read may last (redis-py 8 gives a
read 5 s): its wait for the next message answers in time instead of dying with a read timeout."""

import asyncio

import redis
from channels.layers import get_channel_layer

QUIET_SECONDS = 5.5  # longer than redis-py's default read timeout


def test_a_message_after_a_quiet_spell_still_arrives():
    assert redis.asyncio.Redis().get_connection_kwargs()["socket_timeout"] < QUIET_SECONDS

    async def quiet_then_send():
        layer = get_channel_layer()
        channel = await layer.new_channel()
        waiting = asyncio.ensure_future(layer.receive(channel))
        await asyncio.sleep(QUIET_SECONDS)
        await layer.send(channel, {"type": "test.message", "value": 7})
        return await asyncio.wait_for(waiting, 5)

    assert asyncio.run(quiet_then_send()) == {"type": "test.message", "value": 7}
