"""Querysets compiled to SQL once per process, then run with each request's values.

An annotator's item page and save run a few querysets with subqueries (membership, withholding,
progress counts). Building such a queryset and compiling it to SQL costs several milliseconds
of Python on every request, more than the database takes to answer it, although the SQL is
the same every time but for a few values (the annotator, the item). ``CompiledQuery`` builds
the queryset once, from sample values, keeps its SQL and its compiler's column map, and runs
that SQL with the values of each call in place of the samples: the rows come back as the
queryset's own would (model instances with their ``select_related`` objects and annotations,
or ``values_list`` tuples), converted by the same field converters.

``CompiledUpdate`` does the same for an UPDATE (a queryset and the fields to set), returning the
number of rows it changed.

The queryset built must have the same shape whatever the values (no ``if`` on them), and the
samples must be values no query holds otherwise: each is looked up among the compiled
parameters, as given or in the form the database is sent (a UUID as the hexadecimal SQLite
stores, a date and time as the backend adapts it).
"""

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar, cast
from uuid import UUID

from django.core.exceptions import EmptyResultSet
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import QuerySet
from django.db.models.sql import Query, UpdateQuery
from django.db.models.sql.compiler import SQLCompiler

# A row of the query: a model instance, or a tuple of a values_list query.
Row = TypeVar("Row")

# Samples to compile with: ids and a UUID that no query holds as a constant. The ids stay within
# a 32-bit integer column's range: PostgreSQL's backend compiles a lookup of a value outside it
# to "no rows" (EmptyResultSet), with no parameter left to replace.
SAMPLE_IDS = (2_000_000_001, 2_000_000_002, 2_000_000_003)
SAMPLE_UUID = UUID("7e57c0de-0000-4000-8000-00000000a001")
SAMPLE_TIMES = (datetime(2001, 2, 3, 4, 5, 6, 7, tzinfo=UTC), datetime(2001, 2, 3, 4, 5, 6, 8, tzinfo=UTC))


def _forms(value: object, connection: BaseDatabaseWrapper) -> list[Callable[[Any], object]]:
    """How a value may appear among a compiled query's parameters, as functions of the value."""
    forms: list[Callable[[Any], object]] = [lambda given: given]
    if isinstance(value, UUID):
        forms.append(lambda given: given.hex)
    if isinstance(value, datetime):
        forms.append(connection.ops.adapt_datetimefield_value)
    return forms


def _typed_as(param: object, form: Callable[[Any], object]) -> Callable[[Any], object]:
    """``form``, its result given the parameter's own type where the backend gave it a subclass
    (psycopg's ``Int4`` for a PostgreSQL integer column)."""
    if isinstance(param, int) and type(param) not in (int, bool):
        kind: type[int] = type(param)
        return lambda given: kind(cast(int, form(given)))
    return form


class _Parameters:
    """A compiled statement's parameters and where each call's values replace the samples."""

    def __init__(self, params: Sequence[object], samples: Sequence[object], connection: BaseDatabaseWrapper) -> None:
        self.params = list(params)
        # (parameter position, value index, form)
        self.slots: list[tuple[int, int, Callable[[Any], object]]] = []
        for index, sample in enumerate(samples):
            found = [
                (position, index, _typed_as(param, form))
                for form in _forms(sample, connection)
                for position, param in enumerate(self.params)
                if isinstance(param, type(form(sample))) and param == form(sample)
            ]
            if not found:
                raise ValueError(f"sample {sample!r} is not among the compiled query's parameters")
            # A position once, where two forms of the sample are the same value (a date and time on PostgreSQL).
            self.slots += {position: (position, index, form) for position, index, form in reversed(found)}.values()

    def with_values(self, values: Sequence[object]) -> list[object]:
        params = list(self.params)
        for position, index, form in self.slots:
            params[position] = form(values[index])
        return params


class _Compiled:
    """One database's SQL of the query, its compiler (column map, converters) and where each value goes."""

    def __init__(self, queryset: QuerySet[Any], samples: Sequence[object]) -> None:
        self.queryset = queryset
        self.compiler = queryset.query.get_compiler(using=queryset.db)
        try:
            self.sql, params = self.compiler.as_sql()
        except EmptyResultSet:
            raise ValueError("the samples make the query empty before it runs: choose others") from None
        self.parameters = _Parameters(params, samples, self.compiler.connection)

    def run(self, values: Sequence[object]) -> list[Any]:
        params = self.parameters.with_values(values)
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


class _CompiledUpdate:
    """One database's SQL of an UPDATE and where each value goes."""

    def __init__(self, update: tuple[QuerySet[Any], Mapping[str, Any]], samples: Sequence[object]) -> None:
        queryset, fields = update
        query = cast(UpdateQuery, queryset.query.chain(UpdateQuery))
        query.add_update_values(dict(fields))
        compiler = query.get_compiler(using=queryset.db)
        self.sql, params = compiler.as_sql()
        self.parameters = _Parameters(params, samples, compiler.connection)
        self.using = queryset.db

    def run(self, values: Sequence[object]) -> int:
        with connections[self.using].cursor() as cursor:
            cursor.execute(self.sql, self.parameters.with_values(values))  # type: ignore[arg-type]  # values of any field
            return cursor.rowcount


class _PerVendor(ABC, Generic[Row]):
    """What ``build(*samples)`` compiles to, once per database vendor (the SQL differs between
    SQLite and PostgreSQL), run with each call's values."""

    def __init__(self, build: Callable[..., Any], samples: Sequence[object], using: str) -> None:
        if len(set(samples)) != len(samples):
            raise ValueError("the samples must differ from each other, or their places could not be told apart")
        self.build = build
        self.samples = tuple(samples)
        self.using = using
        self._compiled: dict[str, Any] = {}
        self._lock = threading.Lock()

    @abstractmethod
    def _compile(self, built: Any) -> Any:
        """The compiled form of ``built``, with a ``run(values)``."""

    def _run(self, values: Sequence[object]) -> Any:
        if len(values) != len(self.samples):
            raise TypeError(f"expected {len(self.samples)} values, got {len(values)}")
        vendor = connections[self.using].vendor
        compiled = self._compiled.get(vendor)
        if compiled is None:
            with self._lock:
                compiled = self._compiled.get(vendor) or self._compile(self.build(*self.samples))
                self._compiled[vendor] = compiled
        return compiled.run(values)


class CompiledQuery(_PerVendor[Row]):
    """``build(*values)``, a queryset, compiled once per process and database, and run with each call's values.

    ``samples`` are the values it is compiled with: distinctive, of the types the calls pass.
    """

    def __init__(
        self, build: Callable[..., QuerySet[Any, Row]], samples: Sequence[object], using: str = DEFAULT_DB_ALIAS
    ):
        super().__init__(build, samples, using)

    def _compile(self, built: QuerySet[Any, Row]) -> _Compiled:
        return _Compiled(built.using(self.using), self.samples)

    def __call__(self, *values: object) -> list[Row]:
        """The rows of ``build(*values)``: model instances, or tuples for a ``values_list`` query."""
        return cast(list[Row], self._run(values))


class CompiledUpdate(_PerVendor[int]):
    """``build(*values)``, a queryset and the fields to set on its rows (as ``QuerySet.update``
    takes them), compiled once per process and database, and run with each call's values.

    ``samples`` are the values it is compiled with: distinctive, of the types the calls pass.
    """

    def __init__(
        self,
        build: Callable[..., tuple[QuerySet[Any], Mapping[str, Any]]],
        samples: Sequence[object],
        using: str = DEFAULT_DB_ALIAS,
    ):
        super().__init__(build, samples, using)

    def _compile(self, built: tuple[QuerySet[Any], Mapping[str, Any]]) -> _CompiledUpdate:
        queryset, fields = built
        return _CompiledUpdate((queryset.using(self.using), fields), self.samples)

    def __call__(self, *values: object) -> int:
        """How many rows the update changed."""
        return cast(int, self._run(values))
