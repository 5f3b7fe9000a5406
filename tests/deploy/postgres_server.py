"""The PostgreSQL server of the suite's PostgreSQL pass (``make test-postgres``, DATABASE_URL
pointing at it), where tests make databases of their own and drop them.

Such a test is marked ``postgres_relevant``, so the SQLite pass (``make test``, every test)
collects it too: it skips there (``reason_to_skip``) and runs once, in the pass with the server.
"""

import os
import socket
from contextlib import contextmanager
from urllib.parse import quote

import psycopg
from django.conf import settings
from psycopg import sql

POSTGRES = ("127.0.0.1", 5432)


def answers(address):
    try:
        socket.create_connection(address, timeout=2).close()
        return True
    except OSError:
        return False


def reason_to_skip():
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        return "runs against PostgreSQL: part of `make test-postgres` (DATABASE_URL=postgres://…)"
    if not answers(POSTGRES):
        return "PostgreSQL is not answering on 127.0.0.1:5432"
    return None


def throwaway_url(purpose, user=None):
    """The URL of a database on the suite's server named for ``purpose`` and this process (xdist
    workers run side by side), as ``user`` or the suite's own user."""
    server = settings.DATABASES["default"]
    user = user or server["USER"]
    password = f":{quote(server['PASSWORD'])}" if server.get("PASSWORD") and user == server["USER"] else ""
    host, port = server["HOST"] or POSTGRES[0], server["PORT"] or POSTGRES[1]
    return f"postgres://{quote(user)}{password}@{host}:{port}/genres_{purpose}_{os.getpid()}"


def run_as_administrator(statement, *identifiers):
    """``statement`` on the server's maintenance database, as the suite's user, outside a transaction."""
    maintenance = throwaway_url("unused").rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(maintenance, autocommit=True) as connection:
        connection.execute(sql.SQL(statement).format(*map(sql.Identifier, identifiers)))


def drop_database(url):
    run_as_administrator("DROP DATABASE IF EXISTS {} WITH (FORCE)", url.rsplit("/", 1)[1])


@contextmanager
def throwaway_database(purpose):
    """The URL of a database that does not exist yet, and is dropped after the block."""
    url = throwaway_url(purpose)
    drop_database(url)
    try:
        yield url
    finally:
        drop_database(url)
