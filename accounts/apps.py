from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts, invites and API tokens"

    def ready(self) -> None:
        from accounts import signals  # noqa: F401  (connects the sign-in receiver)
