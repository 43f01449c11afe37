"""The contract's deployment, written the same for DuckDB and for PostgreSQL.

One catalog, one settings document shape and one set of rows, served by each engine, with
limits small enough that every bound is a question away: at most 20 rows, 2 dimensions, 400
days, a deadline of :data:`DEADLINE_SECONDS`, and (DuckDB) 8 MB of memory. Besides the table
``sales`` (91 days × 2 regions, plus one ``phone`` row that sold nothing) and ``visits``, each
engine holds a few views whose only purpose is to make the engine itself refuse on demand:

- ``endless`` never finishes (DuckDB: 10¹¹ generated rows; PostgreSQL: ``pg_sleep``);
- ``heavy`` needs more memory than the engine may use (DuckDB: ``memory_limit``; PostgreSQL:
  ``temp_file_limit = 0`` on the scratch database, as docs/sources.md's role recipe sets it,
  and a ``memory_budget`` of 64MB: ``work_mem`` 16MB in each of ``main``'s two sessions);
- ``refusing`` casts a region name to an integer, which the engine refuses at run time;
- ``blobs`` carries the region as bytes, which have no canonical text;
- ``dying`` (PostgreSQL) terminates the very backend that reads it.

Three sources: ``main``; ``spare``, read only by ``unreachable_units`` (PostgreSQL: the same
database, whose ``dying`` view kills its connection; DuckDB: a file of its own, closed after
startup by the seam in :mod:`tests.contract.seams`); ``broken``, read only by ``broken_units``,
whose fetch the seam makes raise an error no driver's table knows. ``tools.run_sql`` is on,
reading ``main``, and ``compile_question`` is listed to agents (``tools.compile_question``).
"""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final, NamedTuple

import duckdb
import psycopg
from psycopg import sql

from tests.postgres import copy_from_duckdb, scratch_database
from tests.transports.http.deployments import TOKEN

SEAMS_VAR: Final = "CONTRACT_SEAMS"
"""Set in a deployment's environment: the in-process seams apply to it (and to nothing else)."""
PASSWORD_VAR: Final = "SUTURA_CONTRACT_PASSWORD"
DEADLINE_SECONDS: Final = 1.0
MAX_ROWS: Final = 20

REGIONS: Final = ("east", "west")
CHANNELS: Final = ("store", "web")


class Deployment(NamedTuple):
    """A config dir and the environment its surfaces read (the one a user would export)."""

    engine: str
    config: Path
    environ: dict[str, str]
    """``SUTURA_CONFIG_DIR``, the PostgreSQL reader's password, and the seams' switch."""

    def with_settings(self, **settings: str) -> dict[str, str]:
        """The environment with ``SUTURA__A__B`` overrides, e.g. ``TOOLS__RUN_SQL__ENABLED``."""
        return {**self.environ, **{f"SUTURA__{k}": v for k, v in settings.items()}}


def _model(name: str, table: str, columns: str, source: str = "main") -> str:
    return (
        f"---\nkind: model\nname: {name}\nsource: {source}\ntable: {table}\n"
        f"columns: {columns}\n---\n"
    )


def _metric(name: str, model: str, measure: str, grains: str, dimensions: str = " []") -> str:
    return (
        f"---\nkind: metric\nname: {name}\nmodel: {model}\nmeasure:\n{measure}\n"
        f"time_column: day\ngrains: {grains}\ndimensions:{dimensions}\naudience: open\n---\n"
    )


def _sum(column: str) -> str:
    return f"  simple:\n    aggregate: sum\n    column: {column}"


_UNITS_DIMENSIONS = """
  - name: region
    column: region
    values: [east, west]
  - name: channel
    column: channel
    values: [phone, store, web]
  - name: segment
    column: segment"""

_RATIO = """  ratio:
    numerator:
      aggregate: sum
      column: returned
    denominator:
      aggregate: sum
      column: units
    zero_denominator: fails"""

_CHANNEL = """
  - name: channel
    column: channel
    values: [phone, store, web]"""

_REGION = """
  - name: region
    column: region"""

_LABEL = """
  - name: label
    column: label"""

CATALOG: Final = {
    "sales.md": _model("sales", "sales", "[day, region, channel, segment, units, returned]"),
    "visits.md": _model("visits", "visits", "[day, visits]"),
    "endless.md": _model("endless", "endless", "[day, units]"),
    "heavy.md": _model("heavy", "heavy", "[day, units]"),
    "refusing.md": _model("refusing", "refusing", "[day, units]"),
    "blobs.md": _model("blobs", "blobs", "[day, region, units]"),
    "unreachable.md": _model("unreachable", "dying", "[day, units]", source="spare"),
    "broken.md": _model("broken_sales", "sales", "[day, units]", source="broken"),
    "m_units.md": _metric("units", "sales", _sum("units"), "[day, month, year]", _UNITS_DIMENSIONS),
    "m_visits.md": _metric("visits", "visits", _sum("visits"), "[month, year]"),
    "m_return_rate.md": _metric("return_rate", "sales", _RATIO, "[month, year]", _CHANNEL),
    "m_slow.md": _metric("slow_units", "endless", _sum("units"), "[year]"),
    "m_heavy.md": _metric(
        "heavy_units",
        "heavy",
        "  simple:\n    aggregate: count_distinct\n    column: units",
        "[year]",
    ),
    "m_refused.md": _metric("refused_units", "refusing", _sum("units"), "[year]"),
    "m_blob.md": _metric("blob_units", "blobs", _sum("units"), "[year]", _REGION),
    "m_unreachable.md": _metric("unreachable_units", "unreachable", _sum("units"), "[year]"),
    "m_broken.md": _metric("broken_units", "broken_sales", _sum("units"), "[year]"),
    "long_values.md": _model("long_values", "long_values", "[day, label, units]"),
    "m_long.md": _metric("long_units", "long_values", _sum("units"), "[year]", _LABEL),
}

_SALES = """
CREATE TABLE sales AS
SELECT DATE '2024-01-01' + (d % 91)::INTEGER AS day,
       CASE WHEN d < 91 THEN 'east' ELSE 'west' END AS region,
       CASE WHEN d % 2 = 0 THEN 'store' ELSE 'web' END AS channel,
       CASE WHEN d % 3 = 0 THEN 'a' ELSE 'b' END AS segment,
       (1 + d % 5)::INTEGER AS units,
       (d % 2)::INTEGER AS returned
FROM range(182) AS t(d)
UNION ALL SELECT DATE '2024-01-15', 'east', 'phone', 'a', 0, 0
"""
_VISITS = """
CREATE TABLE visits AS
SELECT DATE '2024-01-01' + d::INTEGER AS day, (10 + d)::INTEGER AS visits FROM range(91) AS t(d)
"""

_LONG_VALUES: Final = (  # one value longer than a page of values may carry (64 KiB)
    "CREATE VIEW long_values AS SELECT DATE '2024-01-01' AS day, repeat('x', 70000) AS label,"
    " 1 AS units"
)

_DUCKDB_VIEWS: Final = (
    "CREATE VIEW endless AS SELECT DATE '2024-01-01' AS day, 1 AS units"
    " FROM range(100000000000) AS t(r)",
    "CREATE VIEW heavy AS SELECT DATE '2024-01-01' AS day,"
    " i::VARCHAR || '-padding-padding' AS units FROM range(100000000) AS t(i)",
    "CREATE VIEW refusing AS SELECT day, CAST(region AS INTEGER) AS units FROM sales",
    "CREATE VIEW blobs AS SELECT day, CAST(region AS BLOB) AS region, units FROM sales",
    _LONG_VALUES,
)

_POSTGRES_VIEWS: Final = (
    "CREATE VIEW endless AS SELECT s.day, s.units FROM sales AS s CROSS JOIN pg_sleep(30) AS z",
    "CREATE VIEW heavy AS SELECT DATE '2024-01-01' AS day, g::text || '-padding-padding' AS units"
    " FROM generate_series(1, 1000000) AS g",
    "CREATE VIEW refusing AS SELECT day, region::integer AS units FROM sales",
    "CREATE VIEW blobs AS SELECT day, convert_to(region, 'UTF8') AS region, units FROM sales",
    "CREATE VIEW dying AS SELECT day, units FROM sales"
    " WHERE pg_terminate_backend(pg_backend_pid())",
    _LONG_VALUES,
)
_POSTGRES_VIEW_NAMES: Final = ("endless", "heavy", "refusing", "blobs", "dying", "long_values")

_LIMITS: Final = {
    "max_rows": MAX_ROWS,
    "max_dimensions": 2,
    "max_range_days": 400,
    "deadline_seconds": DEADLINE_SECONDS,
    "memory_limit": "8MB",
}


def _write_catalog(root: Path) -> None:
    catalog = root / "catalog"
    catalog.mkdir(parents=True)
    for name, document in CATALOG.items():
        (catalog / name).write_text(document, encoding="utf-8")


def _write_tables(path: Path, *tables: str) -> None:
    with duckdb.connect(str(path)) as connection:
        for table in tables:
            connection.execute(table)


def _write_settings(root: Path, sources: dict[str, object]) -> None:
    document = {
        "catalog": {"dir": "catalog", "version": "contract-1"},
        "sources": sources,
        "security": {
            "access_token": TOKEN,
            "identity": "single-user",
            "single_user_because": "one user runs the tests",
        },
        "tools": {
            "run_sql": {"enabled": True, "source": "main"},
            "compile_question": {"enabled": True},
        },
        "limits": _LIMITS,
    }
    (root / "base.yaml").write_text(json.dumps(document, indent=2), encoding="utf-8")


def duckdb_deployment(root: Path) -> Deployment:
    """The contract deployment on DuckDB files under ``root``."""
    _write_catalog(root)
    _write_tables(root / "contract.duckdb", _SALES, _VISITS, *_DUCKDB_VIEWS)
    _write_tables(root / "spare.duckdb", _SALES.replace("TABLE sales", "TABLE dying"))
    _write_tables(root / "broken.duckdb", _SALES)
    files = {"main": "contract.duckdb", "spare": "spare.duckdb", "broken": "broken.duckdb"}
    _write_settings(
        root, {alias: {"kind": "duckdb", "path": path} for alias, path in files.items()}
    )
    environ = {"SUTURA_CONFIG_DIR": str(root), SEAMS_VAR: "on"}
    return Deployment(engine="duckdb", config=root, environ=environ)


@contextmanager
def postgres_deployment(root: Path, dsn: str) -> Iterator[Deployment]:
    """The contract deployment on a scratch PostgreSQL database (dropped on exit)."""
    _write_catalog(root)
    tables = root / "tables.duckdb"
    _write_tables(tables, _SALES, _VISITS)
    with scratch_database(dsn) as scratch:
        copy_from_duckdb(tables, scratch, root)
        with psycopg.connect(scratch.admin_dsn, autocommit=True) as admin:
            for view in _POSTGRES_VIEWS:
                admin.execute(view.encode())
            for name in _POSTGRES_VIEW_NAMES:
                admin.execute(
                    sql.SQL("GRANT SELECT ON {} TO {}").format(
                        sql.Identifier(name), sql.Identifier(scratch.reader)
                    )
                )
            database = sql.Identifier(scratch.database)
            admin.execute(sql.SQL("ALTER DATABASE {} SET temp_file_limit = 0").format(database))
        source = scratch.source_settings(PASSWORD_VAR, memory_budget="64MB")
        _write_settings(
            root,
            {
                "main": {**source, "pool_size": 2},
                "spare": {**source, "pool_size": 1},
                "broken": {**source, "pool_size": 1},
            },
        )
        environ = {
            "SUTURA_CONFIG_DIR": str(root),
            PASSWORD_VAR: scratch.reader_password,
            SEAMS_VAR: "on",
        }
        yield Deployment(engine="postgres", config=root, environ=environ)
