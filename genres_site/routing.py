"""Websocket routes of all apps, gathered in one place for the ASGI router."""

from scoring import routing as scoring_routing

websocket_urlpatterns = [*scoring_routing.websocket_urlpatterns]
