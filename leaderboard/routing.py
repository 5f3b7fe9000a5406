from django.urls import path

from leaderboard.consumers import LeaderboardConsumer

websocket_urlpatterns = [path("ws/leaderboard/<str:name>/", LeaderboardConsumer.as_asgi())]
