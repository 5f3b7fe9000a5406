"""The channel layer of the live pages: channels_redis' layer with a blocking pop shorter than a
Redis read may last.

channels_redis waits for a socket's next message with a blocking pop of 5 s; redis-py 8 gives up
a read after 5 s by default. The two race: when nothing arrives, the read can time out first, and
the consumer of an idle websocket dies ("Timeout reading from …") — a 500 at the handshake, a live
leaderboard that stops updating. A 2 s pop always answers inside the read's time, and a cancelled
consumer still leaves within one pop.
"""

from channels_redis.core import RedisChannelLayer


class ChannelLayer(RedisChannelLayer):
    brpop_timeout = 2  # seconds; below redis-py's 5 s read timeout
