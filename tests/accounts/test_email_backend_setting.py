"""GENRES_EMAIL_BACKEND: mail to files under the var directory unless told otherwise; the short
names and a dotted path. Read in a fresh interpreter, as in tests/test_safe_defaults.py."""

import pytest

from tests.test_safe_defaults import settings_read

pytestmark = pytest.mark.subprocess

NAMES = ["EMAIL_BACKEND", "EMAIL_FILE_PATH"]


def test_mail_stays_in_files_by_default_and_the_variable_picks_another(tmp_path):
    assert settings_read(tmp_path, NAMES) == {
        "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
        "EMAIL_FILE_PATH": str(tmp_path / "mail"),
    }
    for value, backend in [
        ("console", "django.core.mail.backends.console.EmailBackend"),
        ("myproject.mail.Backend", "myproject.mail.Backend"),
    ]:
        assert settings_read(tmp_path, ["EMAIL_BACKEND"], GENRES_EMAIL_BACKEND=value) == {"EMAIL_BACKEND": backend}
