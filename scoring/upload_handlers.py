"""Refuse oversized uploads while they stream in, before anything is read whole."""

from typing import IO, Any, NoReturn

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, StopUpload

# Room for the other form fields and multipart headers in a request that carries one file.
FORM_FIELDS_ALLOWANCE = 64 * 1024


def size_limit_message(size: int | None = None) -> str:
    limit_mb = settings.GENRES_MAX_UPLOAD_BYTES / (1024 * 1024)
    actual = f" ({size / (1024 * 1024):.1f} MB)" if size else ""
    return f"The file is larger than the upload limit of {limit_mb:g} MB{actual}; nothing was imported."


class SizeLimitedUploadHandler(FileUploadHandler):
    """First in the handler chain: counts bytes and stops the upload past GENRES_MAX_UPLOAD_BYTES.

    The view reads ``request.upload_refused`` to tell the user why the file is missing.
    """

    def handle_raw_input(
        self,
        input_data: IO[bytes],
        META: dict[str, str],
        content_length: int,
        boundary: str,
        encoding: str | None = None,
    ) -> None:
        # Django calls this before its parser can handle StopUpload, so only note the size here
        # and refuse in new_file: the form fields before the file (CSRF token included) still arrive.
        self.declared_length = content_length

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        if self.declared_length and self.declared_length > settings.GENRES_MAX_UPLOAD_BYTES + FORM_FIELDS_ALLOWANCE:
            self.refuse(self.declared_length)

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        if start + len(raw_data) > settings.GENRES_MAX_UPLOAD_BYTES:
            self.refuse()
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None

    def refuse(self, size: int | None = None) -> NoReturn:
        # A note on the request for the view, which reads it with getattr.
        self.request.upload_refused = size_limit_message(size)  # type: ignore[union-attr]
        raise StopUpload(connection_reset=False)
