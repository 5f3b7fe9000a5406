"""The secret key of an installation without SECRET_KEY set: made once, kept in a file only its
owner can read, and read by every process of the installation after that."""

import os
import secrets
from pathlib import Path


def load_or_create_secret_key(path: str | os.PathLike[str]) -> str:
    """The key stored at ``path``, written first (mode 0600) when there is none.

    Several processes may start at once (web workers, RQ workers): each writes a complete
    candidate to a file of its own and links it into place, which only the first one does;
    every process then reads that one, never a half-written file.
    """
    path = Path(path)
    if not path.exists():
        candidate = path.with_name(f".{path.name}.{os.getpid()}")
        descriptor = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(secrets.token_urlsafe(50))
        try:
            os.link(candidate, path)
        except FileExistsError:
            pass  # another process was first: its key is the one to use
        finally:
            candidate.unlink()
    return path.read_text().strip()
