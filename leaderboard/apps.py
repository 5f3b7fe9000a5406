from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Leaderboards"

    def ready(self) -> None:
        from leaderboard import signals  # noqa: F401  (connects the receivers)
