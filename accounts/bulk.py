"""Accounts made by staff from a list: one ``username,email,role`` line each.

The whole list is checked first; a list with one bad row creates nothing and the error names
the row and the reason. Each new account gets either an invite link (the person chooses their
password) or a one-time password (to be changed at the first sign-in). Keys and passwords are
returned once, to be shown or downloaded, and stored only hashed.
"""

import csv
import io
import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import models, transaction

from accounts.models import Invite, PasswordChangeDue
from accounts.roles import Role, set_role

MAX_ROWS = 100  # a one-time password costs a password hash (about 0.3 s) in the request
PASSWORD_BYTES = 12  # 16 URL-safe characters
HEADER = ["username", "email", "role"]


class Method(models.TextChoices):
    INVITE = "invite", "Invite links: each person chooses their password"
    PASSWORD = "password", "One-time passwords, to be changed at the first sign-in"


@dataclass(frozen=True)
class NewAccount:
    row: int
    username: str
    email: str
    role: str


@dataclass(frozen=True)
class Made:
    username: str
    email: str
    role: str
    invite_key: str = ""
    password: str = ""


def parse_rows(text: str) -> list[NewAccount]:
    """The accounts of a pasted or uploaded list, checked; raises ValidationError naming every bad row."""
    accounts: list[NewAccount] = []
    errors: list[str] = []
    seen: set[str] = set()
    rows = [(number, row) for number, row in enumerate(csv.reader(io.StringIO(text)), start=1) if any(row)]
    if rows and [cell.strip().lower() for cell in rows[0][1]] == HEADER:
        rows = rows[1:]
    if not rows:
        raise ValidationError("The list is empty: write one username,email,role line per account.")
    if len(rows) > MAX_ROWS:
        raise ValidationError(f"The list has {len(rows)} accounts; make at most {MAX_ROWS} at a time.")
    for number, row in rows:
        username, email, role = ([cell.strip() for cell in row] + ["", ""])[:3]
        role = role.lower() or Role.ANNOTATOR
        problems = row_problems(row, username, email, role, seen)
        if problems:
            errors.append(f"Row {number}" + (f" ({username})" if username else "") + ": " + "; ".join(problems))
            continue
        seen.add(username.lower())
        accounts.append(NewAccount(number, username, email, role))
    if errors:
        raise ValidationError(errors)
    return accounts


def row_problems(row: list[str], username: str, email: str, role: str, seen: set[str]) -> list[str]:
    """Every reason the row cannot be made into an account; ``seen``: the usernames of rows above it."""
    if len(row) > 3:
        return [f"{len(row)} columns; write username,email,role"]
    problems: list[str] = []
    try:
        if not username:
            raise ValidationError("no username")
        get_user_model().username_validator(username)
        if len(username) > 150:
            raise ValidationError("the username is longer than 150 characters")
        if username.lower() in seen:
            raise ValidationError("the username is in the list twice")
        if get_user_model().objects.filter(username__iexact=username).exists():
            raise ValidationError("an account of that username exists already")
    except ValidationError as error:
        problems.extend(message.rstrip(".") for message in error.messages)
    if email:
        try:
            validate_email(email)
        except ValidationError:
            problems.append(f"the email address {email!r} is not valid")
    if role not in Role.values:
        problems.append(f"the role {role!r} is not one of {', '.join(Role.values)}")
    return problems


def make_accounts(accounts: list[NewAccount], method: str, created_by: User) -> list[Made]:
    """Create the accounts, all or none; returns what to hand to each person, once."""
    user_model = get_user_model()
    made = []
    with transaction.atomic():
        for account in accounts:
            user = user_model(username=account.username, email=account.email)
            password = secrets.token_urlsafe(PASSWORD_BYTES) if method == Method.PASSWORD else None
            user.set_password(password)  # None: an unusable password, until the invite is accepted
            user.save()
            set_role(user, account.role)
            if password:
                PasswordChangeDue.objects.create(user=user)
                made.append(Made(account.username, account.email, account.role, password=password))
            else:
                _, key = Invite.issue(user, created_by)
                made.append(Made(account.username, account.email, account.role, invite_key=key))
    return made
