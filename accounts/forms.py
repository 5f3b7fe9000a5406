from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from accounts import bulk
from accounts.roles import Role

MAX_LIST_BYTES = 1024 * 1024


class BulkAccountsForm(forms.Form):
    rows = forms.CharField(
        label="Accounts",
        required=False,
        widget=forms.Textarea(
            attrs={"rows": 8, "placeholder": "username,email,role\nalice,alice@example.org,annotator"}
        ),
        help_text="One account a line: username, email (may be empty), role (staff, researcher or annotator; "
        "annotator when empty). A first line username,email,role is skipped.",
    )
    file = forms.FileField(label="Or a CSV file", required=False, help_text="The same columns, UTF-8.")
    method = forms.ChoiceField(label="Sign-in", choices=bulk.Method.choices, initial=bulk.Method.INVITE)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        text, upload = cleaned.get("rows", ""), cleaned.get("file")
        if upload is not None:
            if text.strip():
                raise ValidationError("Paste a list or choose a file, not both.")
            if upload.size > MAX_LIST_BYTES:
                raise ValidationError(f"{upload.name} is larger than 1 MB; is it a list of accounts?")
            try:
                text = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                raise ValidationError(f"{upload.name} is not UTF-8 text.") from None
        cleaned["accounts"] = bulk.parse_rows(text)
        return cleaned


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices)


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100, required=False, help_text="What the token is for, e.g. the notebook or machine using it."
    )
