"""Database functions the ORM lacks, for queries that let the database count instead of Python,
and a bulk update faster than the ORM's."""

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import FloatField, Func, IntegerField, Model
from django.db.models.sql.compiler import SQLCompiler

# What as_sql returns: the SQL and its parameters.
Compiled = tuple[str, tuple[Any, ...]]


class JSONArrayLength(Func):
    """Number of items of a JSON array column, computed by the database."""

    function = "JSON_ARRAY_LENGTH"
    output_field = IntegerField()

    def as_postgresql(self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, **extra_context: Any) -> Compiled:
        # JSONField is jsonb on PostgreSQL.
        return super().as_sql(compiler, connection, function="JSONB_ARRAY_LENGTH", **extra_context)

    def as_mysql(self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, **extra_context: Any) -> Compiled:
        return super().as_sql(compiler, connection, function="JSON_LENGTH", **extra_context)


class JSONNumber(Func):
    """The number under ``key`` of a JSON object column, as a float; JSON null or no such key: NULL.

    Django's own key transform reads a JSON null as the text 'null' on SQLite, which a cast turns
    into 0; aggregates must see NULL there, which AVG leaves out.
    """

    output_field = FloatField()

    def __init__(self, column: str, key: str) -> None:
        super().__init__(column)
        self.key = key

    # Its own SQL: no function, template or joiner of Func's to take.
    def as_sql(  # type: ignore[override]
        self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, **extra_context: Any
    ) -> Compiled:
        column, params = compiler.compile(self.get_source_expressions()[0])
        return f"JSON_EXTRACT({column}, %s)", (*params, f'$."{self.key}"')

    def as_postgresql(self, compiler: SQLCompiler, connection: BaseDatabaseWrapper, **extra_context: Any) -> Compiled:
        column, params = compiler.compile(self.get_source_expressions()[0])
        return f"(({column} ->> %s))::double precision", (*params, self.key)


def update_in_place(model: type[Model], instances: Iterable[Model], field_names: Sequence[str]) -> None:
    """Save ``field_names`` of existing ``instances`` of ``model`` with one prepared UPDATE run for every row.

    ``bulk_update`` builds a CASE branch per row and field, which costs seconds for 10,000
    outputs; ``executemany`` of a single parameterised statement takes a fraction of that.
    """
    meta: Any = model._meta  # typed by the stubs for every kind of field; these are all concrete columns
    fields = [meta.get_field(name) for name in field_names]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    statement = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {quote(meta.pk.column)} = %s"
    rows = [
        [field.get_db_prep_save(getattr(instance, field.attname), connection) for field in fields] + [instance.pk]
        for instance in instances
    ]
    with connection.cursor() as cursor:
        cursor.executemany(statement, rows)


def insert_statement(model: type[Model]) -> tuple[str, list[Any]]:
    """One INSERT of every column of ``model`` but its primary key, and those columns' fields, for
    ``insert_params``: a bulk insert's Python work done before the transaction that runs it with
    ``executemany`` (on SQLite, the write lock is then held for the database's work only)."""
    meta: Any = model._meta
    fields = [field for field in meta.concrete_fields if not field.primary_key]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(field.column) for field in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    return f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({placeholders})", fields


def insert_params(fields: list[Any], instances: Iterable[Model]) -> list[list[Any]]:
    # pre_save as an insert would: auto_now fields take the time, the others their value.
    return [
        [field.get_db_prep_save(field.pre_save(instance, True), connection) for field in fields]
        for instance in instances
    ]
