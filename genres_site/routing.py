"""Websocket routes of all apps, gathered in one place for the ASGI router."""

websocket_urlpatterns = []
