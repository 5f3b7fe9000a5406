"""``manage.py copy_database --to postgres://…``: every row of this installation's database
(``DATABASE_URL``, SQLite by default) into another, PostgreSQL in practice, with ids unchanged.

``dumpdata``/``loaddata`` can move a study too (docs/deployment.md gives the commands); what
they miss, and this does: it creates and migrates the target; it refuses a target that holds
rows (``loaddata`` overwrites rows of the same id without a word); it inserts in batches where
``loaddata`` tries an UPDATE then an INSERT per row and fires each judgement's ``post_save``
(a leaderboard rebuild scheduled per row), all from a JSON file held whole in memory; and
before committing it checks that every table holds as many rows as the source's. Everything is
one transaction on the target, so a failure leaves it as it was. Sequences are reset after,
so that new rows get new ids.
"""

import sys
from argparse import ArgumentParser
from collections.abc import Iterator
from contextlib import contextmanager
from graphlib import CycleError, TopologicalSorter
from typing import Any

import dj_database_url
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.core.management.color import no_style
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.migrations.executor import MigrationExecutor
from django.db.models import Model

from core.databases import DatabaseUnavailable, create_database_if_missing, is_postgres_url

TARGET_ALIAS = "copy_target"
BATCH_ROWS = 1000
# Rows that migrate writes into any new database (post_migrate): replaced by the source's, whose
# ids the other tables point at.
MADE_BY_MIGRATE = {"contenttypes.contenttype", "auth.permission"}


@contextmanager
def database_at(url: str, alias: str = TARGET_ALIAS) -> Iterator[BaseDatabaseWrapper]:
    """The database at ``url`` as ``connections[alias]`` inside the block."""
    # configure_settings fills in Django's defaults; it insists on a dictionary with a "default".
    configured = connections.configure_settings({DEFAULT_DB_ALIAS: dj_database_url.parse(url)})
    connections.settings[alias] = configured[DEFAULT_DB_ALIAS]
    try:
        yield connections[alias]
    finally:
        connections[alias].close()
        del connections[alias]
        del connections.settings[alias]


def copied_models() -> list[type[Model]]:
    """Every table's model (many-to-many tables included) in an order where each comes after
    those it points at, so that no backend needs its foreign keys checked at commit."""
    models = [
        model for model in apps.get_models(include_auto_created=True) if model._meta.managed and not model._meta.proxy
    ]
    pointed_at = {model: {target for target in pointed_at_by(model) if target is not model} for model in models}
    try:
        return list(TopologicalSorter(pointed_at).static_order())
    except CycleError as error:
        raise CommandError(f"the tables' foreign keys form a cycle: {error.args[1]}") from None


def pointed_at_by(model: type[Model]) -> set[type[Model]]:
    """The tables ``model``'s foreign keys point at."""
    return {
        field.related_model._meta.concrete_model
        for field in model._meta.concrete_fields
        if field.is_relation and isinstance(field.related_model, type) and field.related_model._meta.concrete_model
    }


def row_count(model: type[Model], alias: str) -> int:
    return model._base_manager.using(alias).count()


def same_database(one: BaseDatabaseWrapper, other: BaseDatabaseWrapper) -> bool:
    """By vendor, not engine: this site's SQLite engine is its own (genres_site.sqlite_backend)."""
    where = ("NAME", "HOST", "PORT")
    return one.vendor == other.vendor and all(
        one.settings_dict.get(key) == other.settings_dict.get(key) for key in where
    )


def unapplied_migrations(alias: str) -> list[Any]:
    executor = MigrationExecutor(connections[alias])
    return executor.migration_plan(executor.loader.graph.leaf_nodes())


class Command(BaseCommand):
    help = (
        "Copy every row of this database (DATABASE_URL) into the database at --to, creating and migrating "
        "it first; the target must be empty unless --replace is given."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--to", required=True, help="URL of the target, e.g. postgres://genres@db:5432/genres.")
        parser.add_argument("--replace", action="store_true", help="Delete every row the target holds before copying.")
        parser.add_argument("--batch", type=int, default=BATCH_ROWS, help=f"Rows per insert (default {BATCH_ROWS}).")

    def handle(self, *args: Any, to: str, replace: bool, batch: int, **options: Any) -> None:
        if batch < 1:
            raise CommandError("--batch must be at least 1")
        if unapplied_migrations(DEFAULT_DB_ALIAS):
            raise CommandError("this database has unapplied migrations: run manage.py migrate first")
        if is_postgres_url(to):
            try:
                if create_database_if_missing(to):
                    self.stderr.write(f"Created the database of {to}")
            except DatabaseUnavailable as error:
                raise CommandError(str(error)) from None
        with database_at(to) as target:
            if same_database(connections[DEFAULT_DB_ALIAS], target):
                # --replace would empty the source before reading it.
                raise CommandError("--to names this very database: give another one")
            self.stderr.write("Migrating the target")
            call_command("migrate", database=TARGET_ALIAS, interactive=False, verbosity=0)
            models = copied_models()
            self.refuse_rows(models, replace)
            counts = self.copy(models, target, batch)
        rows = sum(counts.values())
        self.stdout.write(f"Copied {rows} rows in {len(counts)} tables; every table's count matches the source's.")

    def refuse_rows(self, models: list[type[Model]], replace: bool) -> None:
        holding = [
            model._meta.db_table
            for model in models
            if model._meta.label_lower not in MADE_BY_MIGRATE and row_count(model, TARGET_ALIAS)
        ]
        if holding and not replace:
            raise CommandError(
                f"the target already holds rows ({', '.join(holding)}): give --replace to delete them, "
                "or copy into an empty database"
            )

    def copy(self, models: list[type[Model]], target: BaseDatabaseWrapper, batch: int) -> dict[str, int]:
        """Empty the target, insert the source's rows table by table, reset the sequences and
        compare the counts, all in one transaction on the target; the counts copied per table."""
        from tqdm import tqdm

        # The source is read in one transaction too: one consistent state, whatever else runs.
        with transaction.atomic(using=DEFAULT_DB_ALIAS), transaction.atomic(using=TARGET_ALIAS):
            counts = {model: row_count(model, DEFAULT_DB_ALIAS) for model in models}
            tables = [model._meta.db_table for model in models]
            with target.cursor() as cursor:
                for statement in target.ops.sql_flush(no_style(), tables, allow_cascade=True):
                    cursor.execute(statement)
            with tqdm(total=sum(counts.values()), unit="row", desc="copy", file=sys.stderr) as bar:
                for model in models:
                    for inserted in insert_batches(model, target, batch):
                        bar.update(inserted)
            with target.cursor() as cursor:
                for statement in target.ops.sequence_reset_sql(no_style(), models):
                    cursor.execute(statement)
            copied = {model: row_count(model, TARGET_ALIAS) for model in models}
            differing = [
                f"{model._meta.db_table}: {count} in the source, {copied[model]} copied"
                for model, count in counts.items()
                if copied[model] != count
            ]
            if differing:
                raise CommandError("nothing copied, the counts differ: " + "; ".join(differing))
        return {model._meta.db_table: count for model, count in counts.items()}


def insert_batches(model: type[Model], target: BaseDatabaseWrapper, batch: int) -> Iterator[int]:
    """Insert the source's rows of ``model`` into ``target``, ``batch`` at a time, each value
    converted for the target as Django saves it; yields the rows inserted by each batch.

    Plain SQL rather than ``bulk_create``, which would stamp ``auto_now`` fields with the time of
    the copy."""
    fields = model._meta.concrete_fields
    quote = target.ops.quote_name
    columns = ", ".join(quote(str(field.column)) for field in fields)  # a concrete field always has one
    insert = f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({', '.join(['%s'] * len(fields))})"
    rows = (
        model._base_manager.using(DEFAULT_DB_ALIAS)
        .order_by("pk")
        .values_list(*(field.attname for field in fields))
        .iterator(chunk_size=batch)
    )
    pending: list[list[Any]] = []
    with target.cursor() as cursor:
        for row in rows:
            pending.append([field.get_db_prep_save(value, target) for field, value in zip(fields, row, strict=True)])
            if len(pending) == batch:
                cursor.executemany(insert, pending)
                yield len(pending)
                pending = []
        if pending:
            cursor.executemany(insert, pending)
            yield len(pending)
