"""``serve`` on PostgreSQL: its first step creates the database of DATABASE_URL when missing, and
says in words why it cannot when the server refuses. The steps after it (migrate, load_demo) are
Django's and the demo's, run on PostgreSQL by the rest of the PostgreSQL pass and by
test_copy_database."""

import pytest

from genres_site.serve import ChildFailed, create_postgres_database
from tests.deploy.postgres_server import reason_to_skip, run_as_administrator, throwaway_database, throwaway_url

pytestmark = [pytest.mark.postgres_relevant, pytest.mark.skipif(bool(reason_to_skip()), reason=reason_to_skip() or "")]

LIMITED_USER = "genres_without_createdb"


@pytest.fixture
def database_url():
    with throwaway_database("serve_start") as url:
        yield url


def test_a_missing_database_is_created_then_found(database_url, capsys):
    create_postgres_database(database_url)
    create_postgres_database(database_url)

    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(": created"), lines
    assert lines[1].endswith(": exists"), lines


@pytest.fixture
def limited_user():
    run_as_administrator("DROP ROLE IF EXISTS {}", LIMITED_USER)
    run_as_administrator("CREATE ROLE {} LOGIN NOCREATEDB", LIMITED_USER)
    yield LIMITED_USER
    run_as_administrator("DROP ROLE IF EXISTS {}", LIMITED_USER)


def test_a_user_who_may_not_create_it_is_told_what_to_ask_for(limited_user):
    url = throwaway_url("serve_refused", user=limited_user)

    with pytest.raises(ChildFailed, match=r"may not create one: ask its administrator to run CREATE DATABASE"):
        create_postgres_database(url)


def test_a_server_that_does_not_answer_is_named():
    url = throwaway_url("serve_unreachable").replace(":5432/", ":1/")

    with pytest.raises(ChildFailed, match=r"cannot connect to PostgreSQL on 127\.0\.0\.1:1 as "):
        create_postgres_database(url)
