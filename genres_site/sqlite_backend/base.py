"""Django's SQLite backend, with write transactions queued on a file lock before they begin.

SQLite lets one writer in at a time; the others wait in its busy handler, which polls with
sleeps growing to 100 ms and is not fair. With 50 annotators saving at once on an overloaded
2-core machine (``python -m benchmarks.load --annotators 50 --duration 120``), a few saves kept
losing the lock to newer ones for the whole 25 s busy timeout and failed ("database is locked"),
the others' p99 reached 14 s. Here a transaction first takes an exclusive ``flock`` on a file
beside the database, then ``BEGIN IMMEDIATE``: a waiter blocks in the kernel and is woken the
moment the lock is released, instead of sleeping through it, and every process and thread of the
app (web, workers) waits on the same lock. Writes outside a transaction (autocommit) are not gated: they wait in SQLite's busy handler
as before. In-memory databases (the tests') have one connection and no file: no gate.

The gate rides on the connection's public transaction methods, those ``django.db.transaction``
calls: ``set_autocommit(False, force_begin_transaction_with_broken_autocommit=True)``, which
``atomic`` uses to begin a transaction, takes it; ``commit``, ``rollback`` and ``close`` leave it.
Neither the ``connection_created`` signal (once per connection, not per transaction) nor
``init_command`` or ``transaction_mode`` (SQL that SQLite runs, which cannot wait on a lock
outside it) sees a transaction begin and end.
"""

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager

from django.db.backends.sqlite3 import base

GATE_SUFFIX = ".write-gate"


class DatabaseWrapper(base.DatabaseWrapper):
    gate = None  # the gate file while this connection's transaction holds it

    def set_autocommit(self, autocommit: bool, force_begin_transaction_with_broken_autocommit: bool = False) -> None:
        # Forced: the BEGIN (IMMEDIATE) of an atomic block, the one transaction start the gate queues.
        begins = force_begin_transaction_with_broken_autocommit and not autocommit
        entered = begins and self._enter_gate()
        try:
            super().set_autocommit(autocommit, force_begin_transaction_with_broken_autocommit)
        except BaseException:
            if entered:
                self._leave_gate()
            raise

    def commit(self) -> None:
        with self._ending_transaction():
            super().commit()

    def rollback(self) -> None:
        with self._ending_transaction():
            super().rollback()

    def close(self) -> None:
        self.validate_thread_sharing()
        try:
            super().close()
        finally:
            self._leave_gate()

    @contextmanager
    def _ending_transaction(self) -> Iterator[None]:
        """Around a commit or a rollback: the gate is left once the transaction has ended, well or
        not. A call Django refuses before ending it (from another thread, inside an atomic block)
        is refused here first, and the transaction keeps the gate."""
        self.validate_thread_sharing()
        self.validate_no_atomic_block()
        try:
            yield
        finally:
            self._leave_gate()

    def _enter_gate(self) -> bool:
        """Wait for the gate and take it; False when there is none to take (held already, in memory)."""
        if self.gate is not None or self.is_in_memory_db():
            return False
        gate = open(f"{self.settings_dict['NAME']}{GATE_SUFFIX}", "a")  # held across calls
        try:
            fcntl.flock(gate, fcntl.LOCK_EX)
        except BaseException:
            gate.close()
            raise
        self.gate = gate
        return True

    def _leave_gate(self) -> None:
        if self.gate is not None:
            gate, self.gate = self.gate, None
            gate.close()  # closing the file releases the lock
