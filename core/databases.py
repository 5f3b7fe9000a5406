"""A PostgreSQL database made on first use, so that ``DATABASE_URL=postgres://…/genres`` is all a
lab sets: ``serve`` and ``copy_database`` create the database when the server has none of that
name and the user may create it, and otherwise say why not, in words a first-time user can act on.
"""

from urllib.parse import unquote, urlsplit

# The database every PostgreSQL server has, where a client connects to create another.
MAINTENANCE_DATABASE = "postgres"


class DatabaseUnavailable(Exception):
    """The database cannot be reached or created; the message says why and what to do."""


def is_postgres_url(url: str) -> bool:
    return urlsplit(url).scheme in {"postgres", "postgresql", "pgsql"}


def database_name(url: str) -> str:
    return unquote(urlsplit(url).path.lstrip("/"))


def server_description(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname or 'the local socket'}:{parts.port or 5432} as {parts.username or 'the current user'}"


def create_database_if_missing(url: str) -> bool:
    """Create the database of the PostgreSQL ``url`` unless it exists; True when it was created.

    Raises DatabaseUnavailable when the server does not answer, refuses the user, or does not
    let the user create the database.
    """
    import psycopg
    from psycopg import sql

    name = database_name(url)
    if not name:
        raise DatabaseUnavailable(f"{url!r} names no database: add one, as in postgres://user@host:5432/genres")
    maintenance = urlsplit(url)._replace(path=f"/{MAINTENANCE_DATABASE}").geturl()
    where = server_description(url)
    try:
        # autocommit: CREATE DATABASE cannot run inside a transaction.
        with psycopg.connect(maintenance, autocommit=True, connect_timeout=10) as connection:
            if connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
                return False
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            return True
    except psycopg.errors.InsufficientPrivilege:
        raise DatabaseUnavailable(
            f"PostgreSQL on {where} has no database {name!r} and this user may not create one: "
            f"ask its administrator to run CREATE DATABASE {name}, or grant CREATEDB to the user"
        ) from None
    except psycopg.OperationalError as error:
        reason = str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
        raise DatabaseUnavailable(f"cannot connect to PostgreSQL on {where}: {reason}") from None
