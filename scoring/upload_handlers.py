"""Refuse oversized uploads while they stream in, before anything is read whole."""

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, StopUpload


def size_limit_message(size=None):
    limit_mb = settings.GENRES_MAX_UPLOAD_BYTES / (1024 * 1024)
    actual = f" ({size / (1024 * 1024):.1f} MB)" if size else ""
    return f"The file is larger than the upload limit of {limit_mb:g} MB{actual}; nothing was imported."


class SizeLimitedUploadHandler(FileUploadHandler):
    """First in the handler chain: counts bytes and stops the upload past GENRES_MAX_UPLOAD_BYTES.

    The view reads ``request.upload_refused`` to tell the user why the file is missing.
    """

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        self.received = 0
        if content_length and content_length > settings.GENRES_MAX_UPLOAD_BYTES + 64 * 1024:
            self.refuse(content_length)

    def receive_data_chunk(self, raw_data, start):
        self.received = start + len(raw_data)
        if self.received > settings.GENRES_MAX_UPLOAD_BYTES:
            self.refuse()
        return raw_data

    def file_complete(self, file_size):
        return None

    def refuse(self, size=None):
        self.request.upload_refused = size_limit_message(size)
        raise StopUpload(connection_reset=False)
