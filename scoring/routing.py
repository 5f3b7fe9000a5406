"""Websocket routes of the scoring app."""

from django.urls import path

from scoring.consumers import GenerationProgressConsumer, RunProgressConsumer, UploadProgressConsumer

websocket_urlpatterns = [
    path("ws/runs/<int:pk>/", RunProgressConsumer.as_asgi()),
    path("ws/uploads/<int:pk>/", UploadProgressConsumer.as_asgi()),
    path("ws/generations/<int:pk>/", GenerationProgressConsumer.as_asgi()),
]
