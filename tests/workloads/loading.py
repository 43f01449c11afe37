"""A workload's tables into DuckDB (the first copy), and from there into PostgreSQL and Spark.

DuckDB is filled from the workload's files by one ``SELECT`` per table; each other engine gets
the same tables with its own spelling of the same types (:mod:`tests.workloads.tables`) and
the same rows, copied from the DuckDB file:

- PostgreSQL: each table as CSV through ``COPY`` (an unquoted empty field is NULL in both
  engines' CSV, a quoted one the empty string), then ``ANALYZE``; the scratch database's reader
  role may use the schema and ``SELECT`` its tables, nothing else.
- Spark: each table as Arrow into a table created with the workload's DDL (``INSERT`` pads a
  ``CHAR(n)`` value and checks a ``VARCHAR(n)`` one as the DDL says). A table already holding
  the same rows under the same DDL (a fingerprint in its properties) is kept: a developer's
  long-lived server is loaded once.
"""

import hashlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Final

import duckdb
from psycopg import sql

from sutura.core.nouns.dialect import Dialect
from tests.postgres import Scratch, scratch_database
from tests.workloads.engines import OnDuckDB, OnPostgres, OnSpark, postgres_admin
from tests.workloads.engines import within as spark_within
from tests.workloads.tables import Table, create_table, qualified, spelled

if TYPE_CHECKING:
    from pyspark.sql.connect.session import SparkSession

LOAD_SECONDS: Final = 110
"""A whole load into Spark (a fresh server takes about 30 s for TPC-H, its JIT still cold)."""


def build_duckdb(
    database: Path, schema: str, tables: tuple[Table, ...], selects: Mapping[str, str]
) -> OnDuckDB:
    """Create ``database`` with ``tables`` in ``schema``, each filled by its ``SELECT``.

    A ``SELECT`` gives the table's columns in order; DuckDB casts each value to the column's
    type exactly (text to ``DECIMAL`` included), and fails on a value that does not fit.
    The file's name must not be the schema's (DuckDB names its catalog after the file, and
    ``tpch.lineitem`` would be ambiguous).
    """
    assert database.stem != schema, f"name the DuckDB file other than {schema}"
    with duckdb.connect(str(database)) as connection:
        connection.execute("SET TimeZone = 'UTC'")
        connection.execute("SET enable_progress_bar = false")
        connection.execute(f"CREATE SCHEMA {qualified_schema(schema)}")
        for table in tables:
            connection.execute(create_table(table, schema, Dialect.DUCKDB))
            target = qualified(schema, table.name, Dialect.DUCKDB)
            connection.execute(f"INSERT INTO {target} {selects[table.name]}")
        connection.execute("CHECKPOINT")
    return OnDuckDB(database, schema)


def qualified_schema(schema: str) -> str:
    """A schema name quoted for DuckDB and PostgreSQL."""
    return f'"{schema}"'


def copy_to_postgres(
    source: OnDuckDB, tables: tuple[Table, ...], scratch: Scratch, work_dir: Path
) -> OnPostgres:
    """Copy ``tables`` of ``source`` into the scratch database, under the same schema."""
    schema = source.schema
    with (
        duckdb.connect(str(source.path), read_only=True) as reader,
        postgres_admin(scratch) as target,
    ):
        reader.execute("SET TimeZone = 'UTC'")
        names = {"schema": sql.Identifier(schema), "reader": sql.Identifier(scratch.reader)}
        target.execute(sql.SQL("CREATE SCHEMA {schema}").format(**names))
        target.execute(sql.SQL("GRANT USAGE ON SCHEMA {schema} TO {reader}").format(**names))
        for table in tables:
            # As bytes: psycopg takes a str statement only as a literal, and this one is built.
            target.execute(create_table(table, schema, Dialect.POSTGRES).encode())
            csv = work_dir / f"{schema}.{table.name}.csv"
            reader.execute(
                f"COPY {qualified(schema, table.name, Dialect.DUCKDB)} TO '{csv}'"
                " (FORMAT csv, HEADER false)"
            )
            copy = sql.SQL("COPY {}.{} FROM STDIN (FORMAT csv)").format(
                sql.Identifier(schema), sql.Identifier(table.name)
            )
            with target.cursor().copy(copy) as stream, csv.open("rb") as data:
                while chunk := data.read(1 << 20):
                    stream.write(chunk)
            csv.unlink()
            target.execute(
                sql.SQL("ANALYZE {}.{}").format(sql.Identifier(schema), sql.Identifier(table.name))
            )
        target.execute(
            sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {reader}").format(**names)
        )
    return OnPostgres(scratch, schema)


@contextmanager
def in_postgres(
    source: OnDuckDB, tables: tuple[Table, ...], dsn: str, work_dir: Path
) -> Iterator[OnPostgres]:
    """``tables`` of ``source`` in a new scratch database of the server ``dsn``, dropped (with
    its reader role) on exit."""
    with scratch_database(dsn) as scratch:
        yield copy_to_postgres(source, tables, scratch, work_dir)


def copy_to_spark(source: OnDuckDB, tables: tuple[Table, ...], remote: str) -> OnSpark:
    """Copy ``tables`` of ``source`` into the Spark database of the same name, unless there."""

    def load() -> None:
        from tests.spark_server import session

        spark = session(remote)
        spark.sql(f"CREATE DATABASE IF NOT EXISTS `{source.schema}`").collect()
        with duckdb.connect(str(source.path), read_only=True) as reader:
            for table in tables:
                _spark_table(spark, reader, source.schema, table)

    spark_within(LOAD_SECONDS, load, remote)
    return OnSpark(remote, source.schema)


def _spark_table(
    spark: "SparkSession", reader: duckdb.DuckDBPyConnection, schema: str, table: Table
) -> None:
    ddl = create_table(table, schema, Dialect.SPARK)
    target = qualified(schema, table.name, Dialect.SPARK)
    fingerprint = _fingerprint(reader, qualified(schema, table.name, Dialect.DUCKDB), ddl)
    if _holds(spark, target, fingerprint):
        return
    spark.sql(f"DROP TABLE IF EXISTS {target}").collect()
    spark.sql(ddl).collect()
    rows = reader.table(f"{schema}.{table.name}").to_arrow_table()
    spark.createDataFrame(rows).write.insertInto(f"{schema}.{table.name}", overwrite=True)
    spark.sql(
        f"ALTER TABLE {target} SET TBLPROPERTIES ('sutura.fingerprint' = '{fingerprint}')"
    ).collect()
    loaded = [(f.name, f.dataType.simpleString()) for f in spark.table(target).schema]
    expected = [(c.name, _read_type(spelled(c.type, Dialect.SPARK))) for c in table.columns]
    assert loaded == expected, f"{target}: Spark holds {loaded}"


def _read_type(spelling: str) -> str:
    """How Spark reports a column of a type it was created with (``CHAR(n)``, ``VARCHAR(n)``
    and ``STRING`` all read as ``string``)."""
    lowered = spelling.lower()
    return "string" if lowered.startswith(("char", "varchar")) else lowered


def _fingerprint(reader: duckdb.DuckDBPyConnection, table: str, ddl: str) -> str:
    """The table's row count, an order-independent hash of its rows, and a hash of its DDL."""
    query = f"SELECT count(*), sum(hash(t)) FROM {table} AS t"
    [(count, digest)] = reader.execute(query).fetchall()
    return f"{count}-{digest}-{hashlib.sha256(ddl.encode()).hexdigest()[:16]}"


def _holds(spark: "SparkSession", target: str, fingerprint: str) -> bool:
    """Whether ``target`` exists and was loaded from rows with ``fingerprint``."""
    from pyspark.errors import PySparkException

    try:
        rows = spark.sql(f"SHOW TBLPROPERTIES {target} ('sutura.fingerprint')").collect()
    except PySparkException:
        return False
    return bool(rows) and rows[0][-1] == fingerprint
