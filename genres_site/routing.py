"""Websocket routes of all apps, gathered in one place for the ASGI router.

The last route takes every path no app serves and refuses its handshake (403), where channels'
router would raise and the server answer 500.
"""

from django.urls import re_path

from genres_site.consumers import NoSuchSocketConsumer
from leaderboard import routing as leaderboard_routing
from scoring import routing as scoring_routing

websocket_urlpatterns = [
    *leaderboard_routing.websocket_urlpatterns,
    *scoring_routing.websocket_urlpatterns,
    re_path(r"", NoSuchSocketConsumer.as_asgi()),
]
