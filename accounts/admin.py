from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

from accounts.models import PasswordChangeDue

User = get_user_model()


class AccountAdmin(UserAdmin):
    """Django's user admin; a user added here signs in with the password staff typed, so must change it first."""

    def save_model(self, request: Any, obj: Any, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if not change and obj.has_usable_password():
            PasswordChangeDue.objects.get_or_create(user=obj)


admin.site.unregister(User)
admin.site.register(User, AccountAdmin)
