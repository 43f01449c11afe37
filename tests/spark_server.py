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
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Final

import duckdb
import pytest

if TYPE_CHECKING:
    from pyspark.sql.connect.session import SparkSession

SPARK_VAR: Final = "SUTURA_TEST_SPARK"
SCRIPT: Final = Path(__file__).parents[1] / "scripts" / "spark-connect"
_PROBE_SECONDS: Final = 60
_START_SECONDS: Final = 240
# DuckDB column types of the example data and the Spark types that hold the same values.
_TYPES: Final = {"INTEGER": "INT", "BIGINT": "BIGINT", "VARCHAR": "STRING", "DATE": "DATE"}
_TYPES_MORE: Final = {"BOOLEAN": "BOOLEAN", "DOUBLE": "DOUBLE"}


def require_server() -> str:
    """The address of a Spark Connect server that answers; otherwise skip, or fail in CI."""
    found = _server()
    if isinstance(found, _Missing):
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI requires Spark: {found.reason}", pytrace=False)
        pytest.skip(found.reason)
    return found


class _Missing(str):
    """Why no server can be used."""

    @property
    def reason(self) -> str:
        return str(self)


@functools.cache
def _server() -> "str | _Missing":
    if importlib.util.find_spec("pyspark") is None:
        return _Missing("the Spark Connect client is not installed: pip install 'sutura[spark]'")
    remote = os.environ.get(SPARK_VAR, "")
    if remote == "off":
        return _Missing(f"{SPARK_VAR}=off")
    if not remote:
        if os.environ.get("CI") == "true":
            return _Missing(f"{SPARK_VAR} is not set; start one with {SCRIPT.name} start")
        started = _start_local_server()
        if isinstance(started, _Missing):
            return started
        remote = started
    problem = _probe(remote)
    return remote if problem is None else _Missing(f"no Spark Connect server at {remote}: {problem}")


def _probe(remote: str) -> str | None:
    """None when ``remote`` answers ``SELECT 1``, or the first line of why not."""
    from pyspark.errors import PySparkException

    try:
        rows = session(remote).sql("SELECT 1").collect()
    except PySparkException as err:
        lines = str(err).strip().splitlines()
        return lines[0] if lines else type(err).__name__
    return None if rows and rows[0][0] == 1 else "an unexpected answer to SELECT 1"


def _start_local_server() -> "str | _Missing":
    """Start one server for this run with ``scripts/spark-connect``; stopped at exit."""
    if shutil.which("java") is None:
        return _Missing("Java is not installed (Spark needs Java 17 or later)")
    directory = Path(tempfile.mkdtemp(prefix="sutura-spark-"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHON": os.environ.get("PYTHON", _python())}
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


def _python() -> str:
    import sys

    return sys.executable


def _stop_local_server(directory: Path) -> None:
    for opened in list(_SESSIONS.values()):
        opened.stop()
    _SESSIONS.clear()
    subprocess.run([str(SCRIPT), "stop", str(directory)], capture_output=True, check=False)
    shutil.rmtree(directory, ignore_errors=True)


_SESSIONS: "dict[str, SparkSession]" = {}


def session(remote: str) -> "SparkSession":
    """The run's one test session on ``remote`` (for loading tables and inspecting them)."""
    if remote not in _SESSIONS:
        from pyspark.sql.connect.session import SparkSession

        from sutura.boundary.sources.spark_session import SESSION_CONF, quiet_driver_logs

        quiet_driver_logs()
        created = SparkSession.builder.remote(remote).create()
        for key, value in SESSION_CONF.items():
            created.conf.set(key, value)
        _SESSIONS[remote] = created
    return _SESSIONS[remote]


def spark_type(duckdb_type: str) -> str:
    """The Spark type that holds a DuckDB column type's values exactly."""
    if duckdb_type.startswith("DECIMAL"):
        return duckdb_type.replace(" ", "")
    return {**_TYPES, **_TYPES_MORE}[duckdb_type]


def load_tables(database: Path, remote: str) -> None:
    """Copy every table of a DuckDB file into the server's warehouse, unless already there."""
    spark = session(remote)
    with duckdb.connect(str(database), read_only=True) as source:
        tables = [str(row[0]) for row in source.execute("SHOW TABLES").fetchall()]
        for table in tables:
            columns = [
                (str(name), spark_type(str(kind)))
                for name, kind, *_ in source.execute(f'DESCRIBE "{table}"').fetchall()
            ]
            fingerprint = _fingerprint(source, table)
            if _same_rows(spark, table, fingerprint):
                continue
            schema = ", ".join(f"`{name}` {kind}" for name, kind in columns)
            frame = spark.createDataFrame(source.table(table).to_arrow_table(), schema=schema)
            frame.write.mode("overwrite").saveAsTable(table)
            spark.sql(
                f"ALTER TABLE `{table}` SET TBLPROPERTIES ('sutura.fingerprint' = '{fingerprint}')"
            ).collect()
            loaded = [(f.name, f.dataType.simpleString()) for f in spark.table(table).schema]
            assert loaded == [(n, k.lower()) for n, k in columns], f"{table}: types changed"


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
