"""Querysets compiled to SQL once per process, then run with each request's values.

An annotator's item page and save run a few querysets with subqueries (membership, withholding,
progress counts). Building such a queryset and compiling it to SQL costs several milliseconds
of Python on every request, more than the database takes to answer it, although the SQL is
the same every time but for a few values (the annotator, the item). ``CompiledQuery`` builds
the queryset once, from sample values, keeps its SQL and its compiler's column map, and runs
that SQL with the values of each call in place of the samples: the rows come back as the
queryset's own would (model instances with their ``select_related`` objects and annotations,
or ``values_list`` tuples), converted by the same field converters.

The queryset built must have the same shape whatever the values (no ``if`` on them), and the
samples must be values no query holds otherwise: each is looked up among the compiled
parameters, as given or, for a UUID, as the hexadecimal form SQLite stores.
"""

import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar, cast
from uuid import UUID

from django.core.exceptions import EmptyResultSet
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import QuerySet
from django.db.models.sql import Query
from django.db.models.sql.compiler import SQLCompiler

# A row of the query: a model instance, or a tuple of a values_list query.
Row = TypeVar("Row")

# Samples to compile with: ids and a UUID that no query holds as a constant. The ids stay within
# a 32-bit integer column's range: PostgreSQL's backend compiles a lookup of a value outside it
# to "no rows" (EmptyResultSet), with no parameter left to replace.
SAMPLE_IDS = (2_000_000_001, 2_000_000_002, 2_000_000_003)
SAMPLE_UUID = UUID("7e57c0de-0000-4000-8000-00000000a001")


def _forms(value: object) -> list[Callable[[Any], object]]:
    """How a value may appear among a compiled query's parameters, as functions of the value."""
    forms: list[Callable[[Any], object]] = [lambda given: given]
    if isinstance(value, UUID):
        forms.append(lambda given: given.hex)
    return forms


class _Compiled:
    """One database's SQL of the query, its compiler (column map, converters) and where each value goes."""

    def __init__(self, queryset: QuerySet[Any], samples: Sequence[object]) -> None:
        self.queryset = queryset
        self.compiler = queryset.query.get_compiler(using=queryset.db)
        try:
            self.sql, params = self.compiler.as_sql()
        except EmptyResultSet:
            raise ValueError("the samples make the query empty before it runs: choose others") from None
        self.params = list(params)
        # (parameter position, value index, form): where each call's values replace the samples.
        self.slots: list[tuple[int, int, Callable[[Any], object]]] = []
        for index, sample in enumerate(samples):
            found = [
                (position, index, form)
                for form in _forms(sample)
                for position, param in enumerate(self.params)
                if type(param) is type(form(sample)) and param == form(sample)
            ]
            if not found:
                raise ValueError(f"sample {sample!r} is not among the compiled query's parameters")
            self.slots += found

    def run(self, values: Sequence[object]) -> list[Any]:
        params = list(self.params)
        for position, index, form in self.slots:
            params[position] = form(values[index])
        template = self.queryset
        prepared = cast(Query, _PreparedQuery(self, params))  # stands for one, as far as iteration goes
        runner: QuerySet[Any, Any] = QuerySet(model=template.model, query=prepared, using=template.db)
        runner._iterable_class = template._iterable_class
        runner._fields = template._fields  # type: ignore[attr-defined]  # Django's, not in the stubs
        return list(runner)


class _PreparedQuery:
    """Stands for the queryset's query where iteration asks for a compiler: one that answers with
    the kept SQL and the call's parameters. Everything else is read from the query compiled."""

    def __init__(self, compiled: _Compiled, params: list[object]) -> None:
        self._compiled = compiled
        self._params = params

    def get_compiler(self, using: str | None = None, connection: Any = None, elide_empty: bool = True) -> SQLCompiler:
        kept = self._compiled.compiler
        compiler = SQLCompiler.__new__(type(kept))
        compiler.__dict__.update(kept.__dict__)
        # The connection is the calling thread's own (Django keeps one per thread).
        compiler.connection = connections[kept.using]
        sql, params = self._compiled.sql, tuple(self._params)
        compiler.as_sql = lambda *args, **kwargs: (sql, params)
        return compiler

    def __getattr__(self, name: str) -> Any:
        return getattr(self._compiled.queryset.query, name)


class CompiledQuery(Generic[Row]):
    """``build(*values)`` compiled once per process and database, and run with each call's values.

    ``samples`` are the values it is compiled with: distinctive, of the types the calls pass.
    """

    def __init__(
        self, build: Callable[..., QuerySet[Any, Row]], samples: Sequence[object], using: str = DEFAULT_DB_ALIAS
    ):
        if len(set(samples)) != len(samples):
            raise ValueError("the samples must differ from each other, or their places could not be told apart")
        self.build = build
        self.samples = tuple(samples)
        self.using = using
        # By database vendor: the SQL differs between SQLite and PostgreSQL.
        self._compiled: dict[str, _Compiled] = {}
        self._lock = threading.Lock()

    def __call__(self, *values: object) -> list[Row]:
        """The rows of ``build(*values)``: model instances, or tuples for a ``values_list`` query."""
        if len(values) != len(self.samples):
            raise TypeError(f"expected {len(self.samples)} values, got {len(values)}")
        vendor = connections[self.using].vendor
        compiled = self._compiled.get(vendor)
        if compiled is None:
            with self._lock:
                compiled = self._compiled.get(vendor) or _Compiled(
                    self.build(*self.samples).using(self.using), self.samples
                )
                self._compiled[vendor] = compiled
        return compiled.run(values)
