from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.models import ApiToken


class Command(BaseCommand):
    help = "Issue a JSON API token for a staff user and print its key; the key is not stored and cannot be shown again."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="", help="What the token is for, e.g. the machine that will use it.")

    def handle(self, *args: Any, username: str, name: str, **options: Any) -> None:
        user_model = get_user_model()
        try:
            user = user_model.objects.get(**{user_model.USERNAME_FIELD: username})
        except user_model.DoesNotExist:
            raise CommandError(f"No user named {username!r}.") from None
        if not user.is_active or not user.is_staff:
            raise CommandError(f"{username!r} is not an active staff user; the API refuses everyone else.")
        token, key = ApiToken.issue(user, name=name)
        self.stderr.write(f"Token {token.prefix}… for {username}. Keep the key now: it is not stored.")
        self.stdout.write(key)
