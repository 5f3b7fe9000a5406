"""Websocket routes of all apps, gathered in one place for the ASGI router."""

from leaderboard import routing as leaderboard_routing
from scoring import routing as scoring_routing

websocket_urlpatterns = [*leaderboard_routing.websocket_urlpatterns, *scoring_routing.websocket_urlpatterns]
