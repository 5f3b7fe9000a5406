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
"""

import fcntl

from django.db.backends.sqlite3 import base

GATE_SUFFIX = ".write-gate"


class DatabaseWrapper(base.DatabaseWrapper):
    gate = None  # the gate file while this connection's transaction holds it

    def _start_transaction_under_autocommit(self) -> None:
        self._enter_gate()
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._leave_gate()
            raise

    def _commit(self) -> None:
        try:
            return super()._commit()
        finally:
            self._leave_gate()

    def _rollback(self) -> None:
        try:
            return super()._rollback()
        finally:
            self._leave_gate()

    def _close(self) -> None:
        try:
            return super()._close()
        finally:
            self._leave_gate()

    def _enter_gate(self) -> None:
        if self.gate is not None or self.is_in_memory_db():
            return
        gate = open(f"{self.settings_dict['NAME']}{GATE_SUFFIX}", "a")  # held across calls
        try:
            fcntl.flock(gate, fcntl.LOCK_EX)
        except BaseException:
            gate.close()
            raise
        self.gate = gate

    def _leave_gate(self) -> None:
        if self.gate is not None:
            gate, self.gate = self.gate, None
            gate.close()  # closing the file releases the lock
