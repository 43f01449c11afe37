"""The PostgreSQL test gate, and scratch databases for the tests that need one.

Tests marked ``postgres`` need the server named by ``SUTURA_TEST_POSTGRES`` (a libpq URL or
``key=value`` string). Without the variable, ``postgresql://postgres@127.0.0.1:5432/test`` is
tried once, quickly. When the server cannot be reached those tests skip with the reason, except
under ``CI=true``, where they fail: CI must never pass by skipping them. The benches ask the same
question (:func:`reachable_server`) and say the reason as "not measured".

A scratch database is created per use and dropped after, with a reader role that may only
connect and ``SELECT`` the tables copied into it — the role ``docs/sources.md`` asks operators
to grant.
"""

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import duckdb
import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.rows import TupleRow
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

DSN_VAR = "SUTURA_TEST_POSTGRES"
DEFAULT_DSN = "postgresql://postgres@127.0.0.1:5432/test"
_PROBE_SECONDS = 2  # libpq's smallest connect_timeout

# DuckDB column types of the example data, and the PostgreSQL types that read back the same.
_TYPES = {"INTEGER": "integer", "BIGINT": "bigint", "VARCHAR": "text", "DATE": "date"}
_TYPES |= {"BOOLEAN": "boolean", "DOUBLE": "double precision"}
_TYPES |= {"TIMESTAMP WITH TIME ZONE": "timestamptz", "TIMESTAMP": "timestamp"}


def server_dsn() -> str:
    """The test server's DSN: ``SUTURA_TEST_POSTGRES``, or the local default."""
    return os.environ.get(DSN_VAR) or DEFAULT_DSN


def describe(dsn: str) -> str:
    """``host:port/database`` of a DSN, without any password it holds."""
    info = conninfo_to_dict(dsn)
    return f"{info.get('host', 'localhost')}:{info.get('port', 5432)}/{info.get('dbname', '')}"


def reachable_server() -> Result[str, str]:
    """The DSN of the test server when it answers, or why it does not (a sentence to show)."""
    dsn = server_dsn()
    try:
        with psycopg.connect(dsn, connect_timeout=_PROBE_SECONDS, autocommit=True) as connection:
            connection.execute("SELECT 1")
    except psycopg.Error as err:
        cause = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        return Failure(f"no PostgreSQL server at {describe(dsn)} ({cause}); set {DSN_VAR} to one")
    return Success(dsn)


def require_server() -> str:
    """The DSN of a reachable server; otherwise skip, or fail under ``CI=true``."""
    reached = reachable_server()
    if is_successful(reached):
        return reached.unwrap()
    reason = reached.failure()
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI requires PostgreSQL: {reason}", pytrace=False)
    pytest.skip(reason)


class Scratch(NamedTuple):
    """A scratch database and its reader role."""

    admin_dsn: str
    """The scratch database, as the administrator of the test server."""
    database: str
    reader: str
    reader_password: str
    host: str
    port: int

    def source_settings(self, password_env: str, **more: object) -> dict[str, object]:
        """The ``sources.<alias>`` settings that read this database as the reader role, whose
        password sutura finds in ``password_env``; ``more`` adds or replaces keys
        (``pool_size=2``)."""
        return {
            "kind": "postgres",
            "host": self.host,
            "port": self.port,
            "database": self.database,
            "user": self.reader,
            "password_env": password_env,
            "sslmode": "disable",
            **more,
        }


@contextmanager
def scratch_database(
    dsn: str, *, icu_locale: str | None = None, libc_locale: str | None = None
) -> Iterator[Scratch]:
    """A fresh database with a read-only role, both dropped on exit; with ``icu_locale`` its
    text is collated by that ICU locale (``en-US``: ``'a'`` before ``'B'``), with
    ``libc_locale`` by that libc locale (``C.UTF-8``), instead of the server's default."""
    name = f"sutura_test_{secrets.token_hex(5)}"
    password = secrets.token_hex(12)
    info = conninfo_to_dict(dsn)
    with psycopg.connect(dsn, autocommit=True) as admin:
        created = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if icu_locale is not None:
            created = sql.SQL("{} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE {}").format(
                created, sql.Literal(icu_locale)
            )
        elif libc_locale is not None:
            created = sql.SQL("{} TEMPLATE template0 LOCALE_PROVIDER libc LOCALE {}").format(
                created, sql.Literal(libc_locale)
            )
        admin.execute(created)
        admin.execute(
            sql.SQL(
                "CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION"
                " NOBYPASSRLS PASSWORD {}"
            ).format(sql.Identifier(name + "_reader"), sql.Literal(password))
        )
        admin.execute(
            sql.SQL(
                "REVOKE ALL ON DATABASE {0} FROM PUBLIC; GRANT CONNECT ON DATABASE {0} TO {1}"
            ).format(sql.Identifier(name), sql.Identifier(name + "_reader"))
        )
    scratch = Scratch(
        admin_dsn=make_conninfo(dsn, dbname=name),
        database=name,
        reader=name + "_reader",
        reader_password=password,
        host=str(info.get("host") or "127.0.0.1"),
        port=int(info.get("port") or 5432),
    )
    try:
        yield scratch
    finally:
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
            admin.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(scratch.reader)))


def copy_from_duckdb(database: Path, scratch: Scratch, work_dir: Path) -> None:
    """Copy every table of a DuckDB file into the scratch database; the reader may SELECT them."""
    with (
        duckdb.connect(str(database), read_only=True) as source,
        psycopg.connect(scratch.admin_dsn, autocommit=True) as target,
    ):
        tables = [row[0] for row in source.execute("SHOW TABLES").fetchall()]
        for table in tables:
            _copy_table(source, target, table, work_dir / f"{table}.csv")
            target.execute(
                sql.SQL("GRANT SELECT ON {} TO {}; ANALYZE {}").format(
                    sql.Identifier(table), sql.Identifier(scratch.reader), sql.Identifier(table)
                )
            )


def _copy_table(
    source: duckdb.DuckDBPyConnection, target: psycopg.Connection[TupleRow], table: str, csv: Path
) -> None:
    """Create ``table`` with matching types and stream its rows in as CSV."""
    columns = source.execute(f'DESCRIBE "{table}"').fetchall()
    definitions = [
        sql.SQL("{} {}").format(sql.Identifier(str(name)), sql.SQL(_pg_type(str(kind))))
        for name, kind, *_ in columns
    ]
    target.execute(
        sql.SQL("CREATE TABLE {} ({})").format(
            sql.Identifier(table), sql.SQL(", ").join(definitions)
        )
    )
    # An unquoted empty field is NULL in both engines' CSV; DuckDB quotes an empty string.
    source.execute(f"COPY \"{table}\" TO '{csv}' (FORMAT csv, HEADER false)")
    copy = sql.SQL("COPY {} FROM STDIN (FORMAT csv)").format(sql.Identifier(table))
    with target.cursor().copy(copy) as stream, csv.open("rb") as data:
        while chunk := data.read(1 << 20):
            stream.write(chunk)
    csv.unlink()


def _pg_type(duckdb_type: str) -> str:
    """The PostgreSQL type that holds a DuckDB column type's values exactly."""
    if duckdb_type.startswith("DECIMAL"):
        return duckdb_type.replace("DECIMAL", "numeric")
    return _TYPES[duckdb_type]
