"""What a source holds: its tables, their columns and types, primary and foreign keys.

Read through the source's own ``fetch`` and ``describe`` (the same connection, deadline and
session settings as every question), so a column and type reported here is what the model
check will find. Each engine is asked in its own catalog:

- DuckDB: ``information_schema.tables`` and ``duckdb_constraints()`` of the current schema
  (a directory of CSV/Parquet files is one table per file, with no keys);
- PostgreSQL: ``pg_class`` and ``pg_constraint`` of one schema (``public`` unless named);
- Spark: ``SHOW TABLES`` of the current database, or ``SHOW TABLES IN`` the one named (such as
  ``global_temp``, whose views may hold any name), with no keys.

Every name a source reports is one identifier, dots and all: a table of a named schema is the
path ``(schema, table)``, never a text split at its dots.
"""

from collections.abc import Sequence
from typing import Final, NamedTuple, assert_never

from sqlglot import exp

from sutura.boundary.sources.skeleton import Source
from sutura.core.catalog.draft import FoundForeignKey, FoundTable
from sutura.core.definitions.model import Model, TablePath
from sutura.core.nouns.dialect import Dialect
from sutura.core.outcome.fault import Fault
from sutura.core.sql.probe import schema_probe

MAX_TABLES: Final = 10_000

_DUCKDB_TABLES: Final = (
    "SELECT table_name FROM information_schema.tables"
    " WHERE table_schema = current_schema() AND table_catalog = current_database()"
    " ORDER BY table_name"
)
_DUCKDB_KEYS: Final = (
    "SELECT constraint_type, table_name, constraint_column_names,"
    " referenced_table, referenced_column_names, constraint_name"
    " FROM duckdb_constraints()"
    " WHERE schema_name = current_schema() AND database_name = current_database()"
    " AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')"
    " ORDER BY table_name, constraint_name"
)
_POSTGRES_TABLES: Final = (
    "SELECT c.relname FROM pg_catalog.pg_class c"
    " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
    " WHERE n.nspname = %s AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition"
    " ORDER BY c.relname"
)
_POSTGRES_KEYS: Final = (
    "SELECT CASE k.contype WHEN 'p' THEN 'PRIMARY KEY' ELSE 'FOREIGN KEY' END, o.relname,"
    " ARRAY(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY AS u(n, i)"
    "   JOIN pg_catalog.pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n"
    "   ORDER BY u.i),"
    " t.relname,"
    " ARRAY(SELECT a.attname FROM unnest(k.confkey) WITH ORDINALITY AS u(n, i)"
    "   JOIN pg_catalog.pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n"
    "   ORDER BY u.i),"
    " k.conname"
    " FROM pg_catalog.pg_constraint k"
    " JOIN pg_catalog.pg_class o ON o.oid = k.conrelid"
    " JOIN pg_catalog.pg_namespace n ON n.oid = o.relnamespace"
    " LEFT JOIN pg_catalog.pg_class t ON t.oid = k.confrelid"
    " LEFT JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace"
    " WHERE n.nspname = %s AND k.contype IN ('p', 'f') AND (t.oid IS NULL OR tn.nspname = %s)"
    " ORDER BY o.relname, k.conname"
)


class Found(NamedTuple):
    """The tables asked for (sorted by name) and the foreign keys between them."""

    tables: list[FoundTable]
    foreign_keys: list[FoundForeignKey]
    missing: list[str]
    unreadable: list[TablePath]
    """Tables the source lists but would not describe (a missing grant): left out, each named."""


async def introspect(
    source: Source, schema: str | None, only: Sequence[str], deadline_at: float
) -> Found:
    """The tables of ``source`` (only those named in ``only``, when any), their columns and keys.

    Raises the driver's own error, as ``fetch`` and ``describe`` do — except a table the source
    refuses to describe (the statement's own fault: a missing grant), which is left out.
    """
    names = await _table_names(source, schema, deadline_at)
    chosen = [n for n in names if not only or n in only]
    missing = [n for n in only if n not in names]
    primary, foreign = await _keys(source, schema, deadline_at)
    default = schema is None or (source.dialect is Dialect.POSTGRES and schema == "public")
    tables: list[FoundTable] = []
    unreadable: list[TablePath] = []
    for name in chosen:
        table = (name,) if default else (schema or "", name)
        columns = await _described(source, table, deadline_at)
        if columns is None:
            unreadable.append(table)
            continue
        tables.append(FoundTable(table=table, columns=columns, primary_key=primary.get(name, ())))
    qualified = {(t.table[-1],): t.table for t in tables}
    keys = [
        FoundForeignKey(
            name=fk.name,
            origin_table=qualified[fk.origin_table],
            origin_columns=fk.origin_columns,
            target_table=qualified[fk.target_table],
            target_columns=fk.target_columns,
        )
        for fk in foreign
        if fk.origin_table in qualified and fk.target_table in qualified
    ]
    return Found(tables=tables, foreign_keys=keys, missing=missing, unreadable=unreadable)


async def _described(
    source: Source, table: TablePath, deadline_at: float
) -> tuple[tuple[str, str], ...] | None:
    """The table's columns, or None when the source refuses the statement that reads them."""
    probe = schema_probe(
        Model(name="m", source=source.alias, table=table, columns=()), source.dialect
    )
    try:
        columns = await source.describe(probe, deadline_at)
    except Exception as error:
        classified = source.classify(error)
        if classified is None or classified.fault is not Fault.STATEMENT:
            raise
        return None
    return tuple((str(c), str(t)) for c, t in columns.columns)


async def _table_names(source: Source, schema: str | None, deadline_at: float) -> list[str]:
    match source.dialect:
        case Dialect.DUCKDB:
            fetched = await source.fetch(_DUCKDB_TABLES, [], MAX_TABLES, deadline_at)
            return [str(row[0]) for row in fetched.rows]
        case Dialect.POSTGRES:
            params = [schema or "public"]
            fetched = await source.fetch(_POSTGRES_TABLES, params, MAX_TABLES, deadline_at)
            return [str(row[0]) for row in fetched.rows]
        case Dialect.SPARK:
            if schema is None:
                fetched = await source.fetch("SHOW TABLES", [], MAX_TABLES, deadline_at)
                return sorted(str(row[1]) for row in fetched.rows)
            named = exp.to_identifier(schema, quoted=True).sql(dialect="spark")
            fetched = await source.fetch(f"SHOW TABLES IN {named}", [], MAX_TABLES, deadline_at)
            # The session's own temporary views are listed in every database: not this one's.
            return sorted(str(row[1]) for row in fetched.rows if str(row[0]) == schema)
        case _:
            assert_never(source.dialect)


async def _keys(
    source: Source, schema: str | None, deadline_at: float
) -> tuple[dict[str, tuple[str, ...]], list[FoundForeignKey]]:
    match source.dialect:
        case Dialect.DUCKDB:
            fetched = await source.fetch(_DUCKDB_KEYS, [], MAX_TABLES, deadline_at)
        case Dialect.POSTGRES:
            params = [schema or "public"] * 2
            fetched = await source.fetch(_POSTGRES_KEYS, params, MAX_TABLES, deadline_at)
        case Dialect.SPARK:
            return {}, []
        case _:
            assert_never(source.dialect)
    primary: dict[str, tuple[str, ...]] = {}
    foreign: list[FoundForeignKey] = []
    for kind, table, columns, target, target_columns, name in fetched.rows:
        origin = tuple(str(c) for c in _listed(columns))
        if kind == "PRIMARY KEY":
            primary[str(table)] = origin
        elif target is not None:
            foreign.append(
                FoundForeignKey(
                    name=str(name),
                    origin_table=(str(table),),
                    origin_columns=origin,
                    target_table=(str(target),),
                    target_columns=tuple(str(c) for c in _listed(target_columns)),
                )
            )
    return primary, foreign


def _listed(value: object) -> list[object]:
    """A driver's array value as a list (DuckDB and psycopg both give lists)."""
    return list(value) if isinstance(value, list | tuple) else []
