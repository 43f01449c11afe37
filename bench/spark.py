"""The bench question on Spark beside DuckDB: the same certified answer on a distributed engine.

One local Spark Connect server (``scripts/spark-connect``, ``local[2]``) is started for the
section, unless ``SUTURA_BENCH_SPARK`` names one (``sc://host:port``), and the 1M-row example
is copied into it. Both engines answer through sutura end to end, warm; the section fails if
their answers differ in anything but the ``read from`` and ``computed at`` lines. Expect Spark
to be slower on one machine: a cluster pays for planning and scheduling that one process does
not, and the point is that the same answer scales out. The second figure is sutura's own cost
on Spark: the same compiled statement sent raw with ``spark.sql``, under the row bound sutura
sends with it, in turns with sutura's answer, call by call.

A section of ``python -m bench``; it needs Java 17+ and ``pip install 'sutura[spark]'``.
"""

import importlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Final

import anyio

from bench.answer import bench_question, example_dir
from bench.serving import ask, environ, interleaved_medians, serving
from bench.table import Figure, NotMeasuredError
from sutura.boundary.example import CATALOG, DATABASE
from sutura.boundary.loading import load
from sutura.core.text.render import COMPUTED_PREFIX, SOURCE_PREFIX
from sutura.core.tool.caller import Caller
from sutura.core.tool.reply import Answered, Declined

if TYPE_CHECKING:
    from pyspark.sql.connect.session import SparkSession

REMOTE_VAR: Final = "SUTURA_BENCH_SPARK"
SCRIPT: Final = Path(__file__).parents[1] / "scripts" / "spark-connect"
REPEAT: Final = 10
_DIFFERING: Final = (SOURCE_PREFIX, COMPUTED_PREFIX)


def measure() -> list[Figure]:
    """sutura on Spark beside sutura on DuckDB, and beside raw ``spark.sql`` of the same SQL.

    Without the Spark Connect client (``pip install 'sutura[spark]'``) or, for a local server,
    without Java, the section is :class:`NotMeasuredError` before anything is built.
    """
    _require_client()
    from tests.spark_server import close_sessions, load_tables, session

    duckdb_config = example_dir()
    with _server() as remote, tempfile.TemporaryDirectory() as spark_config:
        load_tables(duckdb_config / DATABASE, remote)
        _write_settings(Path(spark_config), duckdb_config / CATALOG, remote)
        duckdb_ms, duckdb_text = anyio.run(_answer_times, duckdb_config)
        spark_ms, raw_ms, spark_text = anyio.run(_beside_raw, Path(spark_config), session(remote))
        close_sessions()
    if spark_text != duckdb_text:
        raise AssertionError("Spark and DuckDB gave different answers to the bench question")
    return [
        Figure(
            "spark",
            "bench question, 1M rows, warm (median)",
            spark_ms,
            duckdb_ms,
            "ms",
            "same text",
            "sutura on DuckDB, same question",
        ),
        Figure(
            "spark",
            "bench question on Spark, sutura vs raw",
            spark_ms,
            raw_ms,
            "ms",
            "≤ 1.10×",
            "raw spark.sql, same SQL",
        ),
    ]


async def _answer_times(config: Path) -> tuple[float, list[str]]:
    """The median warm answer time in ms, and the answer's :func:`comparable` text half."""
    question = bench_question()
    async with serving(config) as service:
        reply = await ask(service, question)
        times: list[float] = []
        for _ in range(REPEAT):
            began = anyio.current_time()
            await ask(service, question)
            times.append(anyio.current_time() - began)
    assert isinstance(reply, Answered | Declined), reply
    return 1e3 * sorted(times)[len(times) // 2], comparable(reply.halves.text)


async def _beside_raw(config: Path, spark: "SparkSession") -> tuple[float, float, list[str]]:
    """The median warm answer time in ms, beside the same compiled statement sent raw with
    ``spark.sql`` under the same row bound (in turns, call by call), and the answer's
    :func:`comparable` text half."""
    question = bench_question()
    async with serving(config) as service:
        reply = await ask(service, question)
        caller = Caller.local(request_id="bench", surface="bench")
        compiled = service.plan(question, caller).unwrap()[1]
        limits = load(environ(config)).unwrap().loaded.settings.limits
        bound = limits.max_rows + 1  # what sutura asks of the engine too
        raw, ours = await interleaved_medians(
            lambda: spark.sql(compiled.sql, args=list(compiled.params)).limit(bound).toArrow(),
            lambda: ask(service, question),
            REPEAT,
        )
    assert isinstance(reply, Answered | Declined), reply
    return 1e3 * ours, 1e3 * raw, comparable(reply.halves.text)


def comparable(text: str) -> list[str]:
    """A text half's lines but those naming its source and the moment it was computed, which
    differ by design between two engines' answers to one question."""
    return [line for line in text.split("\n") if not line.startswith(_DIFFERING)]


def _require_client() -> None:
    """The Spark Connect client imports, or the section is not measured here."""
    try:
        importlib.import_module("pyspark.sql.connect.session")
    except ImportError as err:
        raise NotMeasuredError(
            f"the Spark Connect client is not installed (pip install 'sutura[spark]'): {err}"
        ) from err


def _write_settings(directory: Path, catalog: Path, remote: str) -> None:
    """``base.yaml`` (JSON is YAML): the example's catalog, read from Spark."""
    document = {
        "catalog": {"dir": str(catalog), "version": "example-1"},
        "sources": {"main": {"kind": "spark", "remote": remote}},
        "security": {"identity": "single-user", "single_user_because": "one user runs the bench"},
    }
    (directory / "base.yaml").write_text(json.dumps(document), encoding="utf-8")


@contextmanager
def _server() -> Iterator[str]:
    """``SUTURA_BENCH_SPARK``, or a local server started for the section and stopped after."""
    named = os.environ.get(REMOTE_VAR)
    if named:
        yield named
        return
    if shutil.which("java") is None:
        raise NotMeasuredError(
            f"Java is not installed (Spark needs Java 17 or later; or set {REMOTE_VAR})"
        )
    directory = Path(tempfile.mkdtemp(prefix="sutura-bench-spark-"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHON": sys.executable, "SPARK_CONNECT_PARENT": str(os.getpid())}
    try:
        started = subprocess.run(
            [str(SCRIPT), "start", str(directory), str(port)],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
        if started.returncode != 0:
            raise RuntimeError(f"{SCRIPT.name} could not start Spark: {started.stderr[-300:]}")
        yield started.stdout.strip()
    finally:
        subprocess.run([str(SCRIPT), "stop", str(directory)], capture_output=True, check=False)
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    from bench.table import render

    print(render(measure()))
