"""SQLite write transactions queue on a file lock beside the database (genres_site.sqlite_backend)."""

import fcntl
import threading

import pytest

from genres_site.sqlite_backend.base import GATE_SUFFIX, DatabaseWrapper


@pytest.fixture
def database(tmp_path, django_db_blocker):
    """A connection of the app's backend to a database file of its own."""
    path = tmp_path / "gate.sqlite3"
    with django_db_blocker.unblock():
        yield from _connected(path)


def _connected(path):
    connection = DatabaseWrapper(
        {
            "ENGINE": "genres_site.sqlite_backend", "NAME": str(path), "OPTIONS": {"transaction_mode": "IMMEDIATE"},
            "ATOMIC_REQUESTS": False, "AUTOCOMMIT": True, "CONN_MAX_AGE": 0, "CONN_HEALTH_CHECKS": False,
            "TIME_ZONE": None, "USER": "", "PASSWORD": "", "HOST": "", "PORT": "", "TEST": {},
        },
        alias="gate-test",
    )  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE t (n integer)")
    yield connection, f"{path}{GATE_SUFFIX}"
    connection.close()


def gate_is_free(gate_path):
    with open(gate_path, "a") as gate:
        try:
            fcntl.flock(gate, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


def test_a_transaction_holds_the_gate_until_it_commits(database):
    connection, gate_path = database
    with _atomic(connection):
        connection.cursor().execute("INSERT INTO t VALUES (1)")
        assert not gate_is_free(gate_path)
    assert gate_is_free(gate_path)


def test_a_rolled_back_transaction_frees_the_gate(database):
    connection, gate_path = database
    with pytest.raises(ZeroDivisionError), _atomic(connection):
        connection.cursor().execute("INSERT INTO t VALUES (1)")
        raise ZeroDivisionError
    assert gate_is_free(gate_path)
    assert connection.cursor().execute("SELECT count(*) FROM t").fetchone() == (0,)


def test_a_second_writer_waits_for_the_first(database):
    connection, _gate_path = database
    order = []
    with _atomic(connection):
        waiting = threading.Thread(target=_write_from_another_connection, args=(connection, order))
        waiting.start()
        waiting.join(0.3)
        assert waiting.is_alive()  # blocked on the gate, not failing
        order.append("first")
    waiting.join(5)
    assert order == ["first", "second"]


def _write_from_another_connection(connection, order):
    other = DatabaseWrapper(connection.settings_dict, alias="gate-test-2")
    try:
        with _atomic(other):
            other.cursor().execute("INSERT INTO t VALUES (2)")
            order.append("second")
    finally:
        other.close()


class _atomic:
    """``transaction.atomic`` on a connection that is not in ``django.db.connections``."""

    def __init__(self, connection):
        self.connection = connection

    def __enter__(self):
        self.connection.set_autocommit(False, force_begin_transaction_with_broken_autocommit=True)

    def __exit__(self, kind, error, traceback):
        if kind is None:
            self.connection.commit()
        else:
            self.connection.rollback()
        self.connection.set_autocommit(True)
