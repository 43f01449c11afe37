"""Where a workload was loaded, how sutura reaches it, and one statement run there as text cells.

A :data:`Loaded` names one engine's copy of a workload: a DuckDB file, a scratch PostgreSQL
database with its reader role, or a Spark Connect server, and the schema (Spark: database)
holding the tables. :func:`source_settings` is the source document sutura's settings take for
it, so one catalog (``table: [tpch, lineitem]``) serves every engine.

:func:`fetch_cells` runs one statement with the engine's own driver and writes every cell with
sutura's canonical cell text (:func:`~sutura.core.sql.cells.cell_text`): exact decimals, ISO
dates, NULL as ``None``. Every session is in UTC, as sutura pins its own; PostgreSQL statements
stop at :data:`STATEMENT_SECONDS`, a Spark statement is interrupted there.
"""

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Final, NamedTuple, TypeVar, assert_never

import duckdb
import psycopg
import pytest
from psycopg.rows import TupleRow

from sutura.core.nouns.dialect import Dialect
from sutura.core.sql.cells import cell_text
from tests.postgres import Scratch

PASSWORD_VAR: Final = "SUTURA_WORKLOAD_PASSWORD"
"""The variable a PostgreSQL source's settings name for the reader's password."""
STATEMENT_SECONDS: Final = 100
T = TypeVar("T")


class OnDuckDB(NamedTuple):
    """A DuckDB file holding the workload under ``schema``."""

    path: Path
    schema: str


class OnPostgres(NamedTuple):
    """A scratch PostgreSQL database holding the workload under ``schema``."""

    scratch: Scratch
    schema: str


class OnSpark(NamedTuple):
    """A Spark Connect server holding the workload in the database ``schema``."""

    remote: str
    schema: str


Loaded = OnDuckDB | OnPostgres | OnSpark


class Cells(NamedTuple):
    """A statement's column labels and its rows as canonical text (``None`` is NULL)."""

    columns: tuple[str, ...]
    rows: list[list[str | None]]


def dialect_of(on: Loaded) -> Dialect:
    """The dialect of the engine ``on`` names."""
    match on:
        case OnDuckDB():
            return Dialect.DUCKDB
        case OnPostgres():
            return Dialect.POSTGRES
        case OnSpark():
            return Dialect.SPARK
        case _:
            assert_never(on)


def source_settings(on: Loaded) -> dict[str, object]:
    """The ``sources.<alias>`` document of sutura's settings that reads ``on`` (PostgreSQL as
    the reader role, whose password is in :data:`PASSWORD_VAR`: see :func:`secrets`)."""
    match on:
        case OnDuckDB(path=path):
            return {"kind": "duckdb", "path": str(path)}
        case OnPostgres(scratch=scratch):
            return scratch.source_settings(PASSWORD_VAR, pool_size=2)
        case OnSpark(remote=remote):
            return {"kind": "spark", "remote": remote}
        case _:
            assert_never(on)


def secrets(on: Loaded) -> dict[str, str]:
    """The environment the settings of :func:`source_settings` read besides themselves."""
    match on:
        case OnPostgres(scratch=scratch):
            return {PASSWORD_VAR: scratch.reader_password}
        case OnDuckDB() | OnSpark():
            return {}
        case _:
            assert_never(on)


def deployment(
    directory: Path,
    catalog: Path,
    on: Loaded,
    *,
    time_zone: str = "UTC",
    limits: dict[str, int] | None = None,
) -> dict[str, str]:
    """Write a settings directory (``base.yaml``) whose one source ``main`` reads ``on`` and
    whose catalog is ``catalog`` (under ``limits``, if any); the environment that starts
    sutura on it."""
    directory.mkdir(parents=True, exist_ok=True)
    document: dict[str, object] = {
        "catalog": {"dir": str(catalog), "version": "workload-1", "time_zone": time_zone},
        "sources": {"main": source_settings(on)},
        "security": {"identity": "single-user", "single_user_because": "one user runs the tests"},
    }
    if limits:
        document["limits"] = limits
    (directory / "base.yaml").write_text(json.dumps(document, indent=2), encoding="utf-8")
    return {"SUTURA_CONFIG_DIR": str(directory), **secrets(on)}


def fetch_cells(on: Loaded, statement: str) -> Cells:
    """Run ``statement`` where ``on`` names, as the administrator; every cell as canonical
    text."""
    match on:
        case OnDuckDB(path=path):
            with duckdb.connect(str(path), read_only=True) as local:
                local.execute("SET TimeZone = 'UTC'")
                fetched = local.execute(statement)
                labels = tuple(str(d[0]) for d in fetched.description or ())
                return _cells(labels, fetched.fetchall())
        case OnPostgres(scratch=scratch):
            with postgres_admin(scratch) as connection, connection.cursor() as cursor:
                cursor.execute(statement.encode())
                labels = tuple(d.name for d in cursor.description or ())
                return _cells(labels, cursor.fetchall())
        case OnSpark(remote=remote):
            return within(STATEMENT_SECONDS, lambda: _spark_cells(remote, statement), remote)
        case _:
            assert_never(on)


def postgres_admin(scratch: Scratch) -> psycopg.Connection[TupleRow]:
    """An administrator's connection to the scratch database: UTC, statements bounded."""
    options = f"-c TimeZone=UTC -c statement_timeout={STATEMENT_SECONDS * 1000}"
    return psycopg.connect(scratch.admin_dsn, autocommit=True, options=options, connect_timeout=10)


def _cells(labels: tuple[str, ...], rows: list[tuple[object, ...]]) -> Cells:
    return Cells(labels, [[cell_text(value) for value in row] for row in rows])


def _spark_cells(remote: str, statement: str) -> Cells:
    """Fetched as Arrow, as sutura's Spark source does: a decimal stays a ``Decimal``."""
    from tests.spark_server import session

    table = session(remote).sql(statement).toArrow()
    columns = [column.to_pylist() for column in table.columns]
    rows = [list(row) for row in zip(*columns, strict=True)]
    return Cells(tuple(table.column_names), [[cell_text(v) for v in row] for row in rows])


def within(seconds: float, job: Callable[[], T], remote: str) -> T:
    """``job()`` (Spark work on ``remote``) in a thread; past ``seconds`` the session's
    operations are interrupted and the test fails, saying so."""
    from tests.spark_server import session

    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(job())
        except BaseException as error:  # handed to the waiting thread, raised there
            failure.append(error)

    worker = threading.Thread(target=run, name="workload-spark", daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        session(remote).interruptAll()
        pytest.fail(f"Spark did not finish within {seconds:.0f} s", pytrace=False)
    if failure:
        raise failure[0]
    return outcome[0]
