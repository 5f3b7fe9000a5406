"""The websockets' channel layer on Redis: a wait for a message never outlives its own socket."""

from channels.layers import get_channel_layer
from channels_redis.core import RedisChannelLayer


def test_a_read_outlasts_the_blocking_pop_of_an_idle_consumer():
    layer = get_channel_layer()
    assert isinstance(layer, RedisChannelLayer)
    (host,) = layer.hosts
    assert host["socket_timeout"] > layer.brpop_timeout
