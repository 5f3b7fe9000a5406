import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models, transaction
from django.utils import timezone

from scoring.models.catalogue import api_key_hash

INVITE_DAYS = 14


class InviteQuerySet(models.QuerySet):
    def pending(self) -> "InviteQuerySet":
        return self.filter(used_at__isnull=True, expires_at__gt=timezone.now())


class Invite(models.Model):
    """A single-use, expiring link with which the person invited chooses the password of the
    account staff made for them. Only the SHA-256 of the link's key is stored: the link is shown
    once, to the staff member who made it. Revoking an invite deletes it."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invites")
    key_sha256 = models.CharField(max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+", editable=False
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    objects = InviteQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"invite of {self.user}"

    @property
    def is_pending(self) -> bool:
        return self.used_at is None and self.expires_at > timezone.now()

    @classmethod
    def issue(cls, user: User, created_by: User | None) -> tuple["Invite", str]:
        """A new invite for ``user``, replacing any unused one; returns it with its key, which is not stored."""
        key = secrets.token_urlsafe(32)
        with transaction.atomic():
            cls.objects.filter(user=user, used_at__isnull=True).delete()
            invite = cls.objects.create(
                user=user,
                key_sha256=api_key_hash(key),
                created_by=created_by,
                expires_at=timezone.now() + timedelta(days=INVITE_DAYS),
            )
        return invite, key

    @classmethod
    def pending_for_key(cls, key: str) -> "Invite | None":
        return cls.objects.pending().select_related("user").filter(key_sha256=api_key_hash(key)).first()

    def accept(self, password: str) -> bool:
        """Set the account's password and use the invite up; False when it was used meanwhile
        (two submissions of one link: only the first sets a password)."""
        with transaction.atomic():
            now = timezone.now()
            if not Invite.objects.filter(pk=self.pk, used_at__isnull=True).update(used_at=now):
                return False
            self.used_at = now
            self.user.set_password(password)
            self.user.save(update_fields=["password"])
            PasswordChangeDue.clear(self.user)
        return True


class PasswordChangeDue(models.Model):
    """The user signs in with a password staff gave them and must choose their own before anything else."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="password_change_due"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "password change due"
        verbose_name_plural = "password changes due"

    def __str__(self) -> str:
        return f"password change due for {self.user}"

    @classmethod
    def clear(cls, user: User) -> None:
        """The user chose a password of their own (changed, reset, or set from an invite)."""
        cls.objects.filter(user=user).delete()
