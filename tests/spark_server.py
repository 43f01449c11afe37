"""The Spark test gate, one Spark Connect server per run, and the example's tables loaded into it.

Tests marked ``spark`` need the server named by ``SUTURA_TEST_SPARK`` (``sc://host:port``). CI
starts one with ``scripts/spark-connect start`` and exports it; under ``CI=true`` a missing
variable or an unreachable server fails those tests. Elsewhere, without the variable, one
local server is started for the run when Java and ``pip install 'sutura[spark]'`` are present
(and stopped at exit); without them, or with ``SUTURA_TEST_SPARK=off``, the tests skip, saying why.

The example's DuckDB tables are copied into the server's warehouse with an explicit schema
(exact DECIMAL types survive), once per run: a table already holding the same rows is kept.
"""

import atexit
import functools
import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import anyio
import duckdb
import msgspec
import pytest

from sutura.boundary.sources.skeleton import Fetched
from sutura.core.nouns.dialect import Dialect
from sutura.core.settings import SparkSourceSettings
from sutura.core.sql.compiled import CompiledQuery, Passthrough
from tests.boundary.sources.opening import context

if TYPE_CHECKING:
    from pyarrow import Table
    from pyspark.sql.connect.session import SparkSession

    from sutura.boundary.sources.spark import SparkSource

SPARK_VAR: Final = "SUTURA_TEST_SPARK"
SCRIPT: Final = Path(__file__).parents[1] / "scripts" / "spark-connect"
_PROBE_SECONDS: Final = 60
_START_SECONDS: Final = 240
# DuckDB column types of the example data and the Spark types that hold the same values.
_TYPES: Final = {
    **{"INTEGER": "INT", "BIGINT": "BIGINT", "VARCHAR": "STRING", "DATE": "DATE"},
    **{"BOOLEAN": "BOOLEAN", "DOUBLE": "DOUBLE"},
    **{"TIMESTAMP WITH TIME ZONE": "TIMESTAMP", "TIMESTAMP": "TIMESTAMP_NTZ"},
}
_SESSIONS: "dict[str, SparkSession]" = {}


def require_client() -> None:
    """Return when the Spark Connect client is installed; otherwise skip, or fail in CI."""
    if importlib.util.find_spec("pyspark") is None:
        reason = "the Spark Connect client is not installed: pip install 'sutura[spark]'"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI requires Spark: {reason}", pytrace=False)
        pytest.skip(reason)


def require_server() -> str:
    """The address of a Spark Connect server that answers; otherwise skip, or fail in CI."""
    found = _server()
    if isinstance(found, _Missing):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI requires Spark: {found.reason}", pytrace=False)
        pytest.skip(found.reason)
    return found


@dataclass(frozen=True)
class _Missing:
    """Why no server can be used."""

    reason: str


@functools.cache
def _server() -> str | _Missing:
    if importlib.util.find_spec("pyspark") is None:
        return _Missing("the Spark Connect client is not installed: pip install 'sutura[spark]'")
    remote = os.environ.get(SPARK_VAR, "")
    if remote == "off":
        return _Missing(f"{SPARK_VAR}=off")
    if not remote:
        if os.environ.get("CI") == "true":
            return _Missing(f"{SPARK_VAR} is not set; start a server with scripts/spark-connect")
        started = _start_local_server()
        if isinstance(started, _Missing):
            return started
        remote = started
    problem = _probe(remote)
    return (
        remote if problem is None else _Missing(f"no Spark Connect server at {remote}: {problem}")
    )


def _probe(remote: str) -> str | None:
    """None when ``remote`` answers ``SELECT 1`` within a bound, or the first line of why not."""
    found: list[str | None] = []
    worker = threading.Thread(target=lambda: found.append(_select_one(remote)), daemon=True)
    worker.start()
    worker.join(_PROBE_SECONDS)
    return found[0] if found else f"no answer within {_PROBE_SECONDS} s"


def _select_one(remote: str) -> str | None:
    from pyspark.errors import PySparkException

    try:
        rows = session(remote).sql("SELECT 1").collect()
    except PySparkException as err:
        details = re.search(r'details = "([^"\n]*)"', str(err))
        lines = str(err).strip().splitlines() or [type(err).__name__]
        return details.group(1) if details else lines[0]
    return None if rows and rows[0][0] == 1 else "an unexpected answer to SELECT 1"


def _start_local_server() -> str | _Missing:
    """Start one server for this run with ``scripts/spark-connect``; stopped at exit."""
    if shutil.which("java") is None:
        return _Missing("Java is not installed (Spark needs Java 17 or later)")
    directory = Path(tempfile.mkdtemp(prefix="sutura-spark-"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHON": os.environ.get("PYTHON", sys.executable)}
    env["SPARK_CONNECT_PARENT"] = str(os.getpid())  # stopped even if this run is killed
    done = subprocess.run(
        [str(SCRIPT), "start", str(directory), str(port)],
        capture_output=True,
        text=True,
        env=env,
        timeout=_START_SECONDS,
        check=False,
    )
    atexit.register(_stop_local_server, directory)
    if done.returncode != 0:
        return _Missing(f"{SCRIPT.name} could not start a server: {done.stderr.strip()[-500:]}")
    return done.stdout.strip()


def close_sessions() -> None:
    """Stop every test session (before their server stops)."""
    for opened in list(_SESSIONS.values()):
        opened.stop()
    _SESSIONS.clear()


def _stop_local_server(directory: Path) -> None:
    close_sessions()
    subprocess.run([str(SCRIPT), "stop", str(directory)], capture_output=True, check=False)
    shutil.rmtree(directory, ignore_errors=True)


def session(remote: str) -> "SparkSession":
    """The run's one test session on ``remote``, pinned as sutura pins its own sessions."""
    if remote not in _SESSIONS:
        from sutura.boundary.sources.spark_session import connector, quiet_driver_logs

        quiet_driver_logs()
        _SESSIONS[remote] = connector(SparkSourceSettings(remote=remote), {}, "UTC").unwrap()()
    return _SESSIONS[remote]


def spark_type(duckdb_type: str) -> str:
    """The Spark type that holds a DuckDB column type's values exactly."""
    if duckdb_type.startswith("DECIMAL"):
        return duckdb_type.replace(" ", "")
    return _TYPES[duckdb_type]


FIXED_LENGTH: Final = {
    "customers": {"sales_region": "CHAR(8)", "customer_segment": "CHAR(12)"},
    "fixed_shops": {
        "region": "CHAR(8)",
        "declared_region": "CHAR(8)",
        "bare_region": "CHAR(8)",
    },
}
"""Columns the Spark test server holds as ``CHAR(n)``, as a warehouse loaded from TPC-H's DDL
does: Spark returns their values blank-padded, and sutura answers them without the padding."""


def load_tables(database: Path, remote: str) -> None:
    """Copy every table of a DuckDB file into the server's warehouse, unless already there (the
    columns of :data:`FIXED_LENGTH` as ``CHAR(n)``)."""
    spark = session(remote)
    with duckdb.connect(str(database), read_only=True) as source:
        tables = [str(row[0]) for row in source.execute("SHOW TABLES").fetchall()]
        for table in tables:
            fixed = FIXED_LENGTH.get(table, {})
            columns = [
                (str(name), fixed.get(str(name), spark_type(str(kind))))
                for name, kind, *_ in source.execute(f'DESCRIBE "{table}"').fetchall()
            ]
            fingerprint = "-".join([_fingerprint(source, table), *sorted(fixed)])
            if _same_rows(spark, table, fingerprint):
                continue
            _load(spark, table, source.table(table).to_arrow_table(), columns, fixed)
            spark.sql(
                f"ALTER TABLE `{table}` SET TBLPROPERTIES ('sutura.fingerprint' = '{fingerprint}')"
            ).collect()
            loaded = [
                (
                    f.name,
                    str(f.metadata.get("__CHAR_VARCHAR_TYPE_STRING", f.dataType.simpleString())),
                )
                for f in spark.table(table).schema
            ]
            assert loaded == [(n, k.lower()) for n, k in columns], f"{table}: types changed"


def _load(
    spark: "SparkSession",
    table: str,
    rows: "Table",
    columns: list[tuple[str, str]],
    fixed: dict[str, str],
) -> None:
    """Write ``rows`` as ``table``; with fixed-length columns, through the table's own DDL (a
    DataFrame's schema cannot say ``CHAR(n)``), so Spark pads their values as it writes them."""
    plain = ", ".join(f"`{n}` {spark_type('VARCHAR') if n in fixed else k}" for n, k in columns)
    frame = spark.createDataFrame(rows, schema=plain)
    if not fixed:
        frame.write.mode("overwrite").saveAsTable(table)
        return
    frame.createOrReplaceTempView(f"{table}_loading")
    declared = ", ".join(f"`{name}` {kind}" for name, kind in columns)
    spark.sql(f"DROP TABLE IF EXISTS `{table}`").collect()
    spark.sql(f"CREATE TABLE `{table}` ({declared}) USING parquet").collect()
    spark.sql(f"INSERT INTO `{table}` SELECT * FROM `{table}_loading`").collect()


def _fingerprint(source: duckdb.DuckDBPyConnection, table: str) -> str:
    """A cheap identity of a table's rows: their count and an order-independent hash."""
    [(count, digest)] = source.execute(
        f'SELECT count(*), sum(hash(t)) FROM "{table}" AS t'
    ).fetchall()
    return f"{count}-{digest}"


def _same_rows(spark: "SparkSession", table: str, fingerprint: str) -> bool:
    """Whether ``table`` exists in Spark and was loaded from rows with ``fingerprint``."""
    from pyspark.errors import PySparkException

    try:
        rows = spark.sql(f"SHOW TBLPROPERTIES `{table}` ('sutura.fingerprint')").collect()
    except PySparkException:
        return False
    return bool(rows) and rows[0][-1] == fingerprint


def statement(text: str, *params: object) -> CompiledQuery:
    """A hand-written statement, as if compiled for Spark (a source reads its SQL and params)."""
    return CompiledQuery(
        sql=text,
        params=params,
        columns=("value",),
        plan=(),
        outputs=(Passthrough(index=0),),
        selected_width=1,
        source="main",
        dialect=Dialect.SPARK,
    )


@asynccontextmanager
async def opened(remote: str, alias: str = "main") -> AsyncIterator["SparkSource"]:
    """The Spark source ``alias`` on ``remote``, closed on exit."""
    from sutura.boundary.sources.spark import open_spark

    with anyio.fail_after(60):
        settings = SparkSourceSettings(remote=remote)
        source = (await open_spark(alias, settings, context(Path(".")))).unwrap()
    try:
        yield source
    finally:
        with anyio.fail_after(20):
            await source.close()


def spy_on_fetches(monkeypatch: pytest.MonkeyPatch) -> tuple[list[object], threading.Event]:
    """What each statement's worker returned, and an event set when one has returned."""
    from sutura.boundary.sources import spark

    returned: list[object] = []
    done = threading.Event()
    fetch = spark._Tagged._fetch

    def spied(tagged: spark._Tagged, sql: str, params: Sequence[object], max_rows: int) -> Fetched:
        try:
            result = fetch(tagged, sql, params, max_rows)
            returned.append(result)
            return result
        except Exception as error:
            returned.append(error)
            raise
        finally:
            done.set()

    monkeypatch.setattr(spark._Tagged, "_fetch", spied)
    return returned, done


def cancelled_on_the_server(returned: list[object]) -> bool:
    """Whether the first statement ended with the server's OPERATION_CANCELED."""
    from pyspark.errors import PySparkException

    return isinstance(err := returned[0], PySparkException) and (
        err.getCondition() == "OPERATION_CANCELED"
    )


def ghost_config(root: Path, remote: str, table: str, *, create: bool = True) -> dict[str, str]:
    """A deployment on Spark whose one metric sums ``label``, a text column of ``table`` (made
    here, unless ``create`` is false): every question about it is refused by the data system,
    whose message names the column. The environment to start it."""
    if create:
        spark = session(remote)
        spark.sql(f"DROP TABLE IF EXISTS `{table}`").collect()
        spark.sql(
            f"CREATE TABLE `{table}` AS SELECT DATE'2024-01-15' AS ordered_on, '{table}' AS label"
        ).collect()
    catalog = root / "catalog"
    catalog.mkdir(parents=True)
    (catalog / "ghost_orders.md").write_text(_GHOST_MODEL.format(table=table), encoding="utf-8")
    (catalog / "ghost_revenue.md").write_text(_GHOST_METRIC, encoding="utf-8")
    settings = {
        "catalog": {"dir": "catalog"},
        "sources": {"main": {"kind": "spark", "remote": remote}},
        "security": {"identity": "single-user", "single_user_because": "one user runs the tests"},
    }
    (root / "base.yaml").write_text(msgspec.json.encode(settings).decode(), encoding="utf-8")
    return {**os.environ, "SUTURA_CONFIG_DIR": str(root)}


_GHOST_MODEL = """---
kind: model
name: ghost_orders
source: main
table: {table}
columns: [ordered_on, label]
---
"""
_GHOST_METRIC = """---
kind: metric
name: ghost_revenue
model: ghost_orders
measure:
  simple:
    aggregate: sum
    column: label
time_column: ordered_on
grains: [month]
dimensions: []
audience: open
---
"""
