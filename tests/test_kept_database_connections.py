"""A request does not open a database connection of its own: SQLite's are kept per thread
(``CONN_MAX_AGE`` None), PostgreSQL's come from the web process's pool."""

from django.conf import settings
from django.db import connection


def test_the_request_threads_keep_their_database_connections():
    database = settings.DATABASES["default"]
    if connection.vendor == "sqlite":
        assert database["CONN_MAX_AGE"] is None
    else:
        assert database["OPTIONS"]["pool"]["max_size"] >= 8  # asgi.REQUEST_THREADS
