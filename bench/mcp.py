"""MCP over stdio: cold start and warm ``ask_metric``, each beside its reference, in one run.

- Cold start: spawn to the ``tools/list`` response (initialize, initialized and tools/list are
  written at once, as a host does), median of 5 rounds of spawns of ``sutura mcp`` on the
  1M-row example, each beside a spawn of a minimal one-tool server on the same SDK (the floor:
  what any server pays to import ``mcp``), interleaved so both see the same machine.
- Cold start to a first answer: spawn to the ``ask_metric`` response (sent with the
  handshake), and each server's resident memory (``VmRSS``) once it has answered, beside the
  minimal one-tool server that connects to DuckDB before its handshake and holds the
  connection, whose first ``tools/call`` runs the bench question's compiled SQL (what a warm
  server is: the reference of the goals, which hold in every one of the 5 rounds, so the
  worst round is shown, beside that round's reference).
- The first ``ask_metric`` after ``tools/list``, as a host calls: the handshake answered, then
  the call, timed from its writing to its answer; beside the same for the holding floor, and
  beside a warm call (a first answer should cost what a warm one does).
- Warm ``ask_metric`` as an agent host sees it: the SDK's own ``Client`` (auto mode) on a
  spawned ``sutura mcp``, 200 calls (median and p95), each beside the same compiled SQL run
  raw on DuckDB in the client's process (``execute`` + ``fetchall`` on a read-only
  connection), interleaved call by call. Beside it, as breakdown, the same client calling the
  SDK's minimal one-tool server returning the same rows (:data:`bench.floors.MCP_FLOOR`), and
  the server's own time: one request line written, its response line read, no client library.

Shown too, as breakdown: the minimal server that connects only when asked and closes the
connection after answering (DuckDB's cached blocks go with it, so its RSS holds none of the
data read); the floor that answers without data; DuckDB's own share (a bare script that only
imports, connects and queries, beside a bare interpreter); and the imports alone, ours before
a first answer (the MCP server, the compiler and its DuckDB dialect) beside the floor's (the SDK
and DuckDB), and sqlglot's share of their memory (the floor's imports with sqlglot and its
DuckDB dialect: what the compiler's library alone costs any process that compiles a question,
about 10 MiB of the 1.1 × budget's 13). Our figure minus the reference is
sutura's own work: its imports, the catalog, checking models and reproducing anchors before the
first answer (a certification step, never skipped).

Run: ``python -m bench.mcp`` (or ``make bench``, which includes it). Goals: cold start to
tools/list within 150 ms of the floor, to a first answer within 100 ms of the holding floor
and RSS ≤ 1.1 × its, in every round; warm call with the SDK's client ≤ 1.25 × raw.
"""

import datetime
import functools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import anyio
import duckdb
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from bench.answer import BENCH_QUESTION, example_dir
from bench.bytecode import compiled_package
from bench.floors import MCP_FLOOR, params_argument, script, stdio_floor_command
from bench.serving import plan
from bench.table import Figure, render
from sutura.core.nouns.question import decode_question_json
from sutura.core.sql.compiled import CompiledQuery

SPAWNS = 5
"""Rounds of spawns: each goal of a cold start holds in every round."""
REFERENCE = "one-tool server running the query on DuckDB"
HELD = "the same, connected at start and holding it"
CALLS = 200
WARM_UP = 20
SUTURA = Path(sys.executable).with_name("sutura")

_QUERY_ARGUMENTS = """
import datetime, json, sys
import duckdb

DATABASE, SQL = sys.argv[1], sys.argv[2]
PARAMS = [datetime.date.fromisoformat(p[5:]) if p.startswith("date:") else p
          for p in json.loads(sys.argv[3])]
"""
"""What a script running the bench query reads: the database, the SQL, its parameters."""

_ONE_TOOL = """
import anyio, mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="ping", input_schema={"type": "object"})])

async def call_tool(ctx, params):
    return types.CallToolResult(content=[types.TextContent(text=ANSWER())])

server = Server("floor", on_list_tools=list_tools, on_call_tool=call_tool)

async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
"""
"""A minimal one-tool server on the SDK; its tool answers ``ANSWER()``, defined before it."""

FLOOR_SERVER = 'ANSWER = lambda: "pong"\n' + _ONE_TOOL

FLOOR_DUCKDB_SERVER = (
    _QUERY_ARGUMENTS
    + """
def ANSWER():
    connection = duckdb.connect(DATABASE, read_only=True)
    return str(connection.execute(SQL, PARAMS).fetchall())
"""
    + _ONE_TOOL
)

FLOOR_DUCKDB_HELD_SERVER = (
    _QUERY_ARGUMENTS
    + """
CONNECTION = duckdb.connect(DATABASE, read_only=True)

def ANSWER():
    return str(CONNECTION.execute(SQL, PARAMS).fetchall())
"""
    + _ONE_TOOL
)
"""The same minimal server, holding its connection for the next call (as a warm server does:
the reference above closes it after each answer, and with it DuckDB's cached blocks)."""

BARE_DUCKDB = (
    _QUERY_ARGUMENTS
    + """
duckdb.connect(DATABASE, read_only=True).execute(SQL, PARAMS).fetchall()
sys.stdout.write("done\\n")
sys.stdout.flush()
sys.stdin.read()
"""
)

IMPORTS = """
import gc, sys
if len(sys.argv) > 2:  # ours: sutura mcp imports with the collector off (boundary/composing.py)
    gc.disable()
for name in sys.argv[1].split(","):
    __import__(name)
if len(sys.argv) > 2:  # the compiler's first statement loads its SQL dialect
    from sqlglot import exp
    exp.select("1").sql(dialect=sys.argv[2])
sys.stdout.write("done\\n")
sys.stdout.flush()
sys.stdin.read()
"""
OUR_IMPORTS = (
    "sutura.transports.cli.main,sutura.transports.mcp.server,sutura.transports.mcp.stdio,"
    "sutura.core.sql.compile,sutura.boundary.sources.duckdb"
)
FLOOR_IMPORTS = "mcp.server,mcp.server.stdio,duckdb"
COMPILER_IMPORTS = FLOOR_IMPORTS + ",sqlglot"
"""The floor's imports and the compiler's library with its DuckDB dialect (loaded by the
script's first statement): what sqlglot alone adds to the memory of a process that compiles."""

BARE_PYTHON = """
import sys
sys.stdout.write("done\\n")
sys.stdout.flush()
sys.stdin.read()
"""


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode("utf-8") + b"\n"


HANDSHAKE = b"".join(
    _line(m)
    for m in (
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    )
)


def _ask(request_id: int) -> bytes:
    question = json.loads(BENCH_QUESTION)
    params = {"name": "ask_metric", "arguments": question}
    return _line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


def _until(stdout: IO[bytes], request_id: int) -> dict[str, Any]:
    """Read response lines until the one answering ``request_id``."""
    while True:
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"the server closed stdout before answering request {request_id}")
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == request_id and "method" not in message:
            return message


@contextmanager
def _spawned(
    command: list[str], config: Path, bufsize: int = -1
) -> Iterator[subprocess.Popen[bytes]]:
    environ = {**os.environ, "SUTURA_CONFIG_DIR": str(config)}
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=environ,
        bufsize=bufsize,
    )
    try:
        yield process
    finally:
        if process.stdin is not None:
            process.stdin.close()
        process.wait(timeout=30)


def _resident_kb(pid: int) -> float:
    """The process's resident set (``VmRSS``) in KiB; NaN where ``/proc`` is not there."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except OSError:
        return float("nan")
    found = re.search(r"^VmRSS:\s+([0-9]+) kB", status, re.MULTILINE)
    return float(found.group(1)) if found else float("nan")


def _cold_start(
    command: list[str], config: Path, first: bytes, request_id: int
) -> tuple[float, float]:
    """Seconds from spawn to the response to ``request_id`` (sent right after the handshake),
    and the server's resident memory (KiB) once it has answered."""
    started = time.perf_counter()
    with _spawned(command, config) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(HANDSHAKE + first)
        process.stdin.flush()
        _until(process.stdout, request_id)
        return time.perf_counter() - started, _resident_kb(process.pid)


def _after_list(
    command: list[str], config: Path, first: bytes, request_id: int
) -> tuple[float, float]:
    """As a host calls: the handshake written, ``tools/list`` answered, then ``first`` written;
    seconds from then to its response, and the server's resident memory (KiB) then."""
    with _spawned(command, config) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(HANDSHAKE)
        process.stdin.flush()
        _until(process.stdout, 1)
        started = time.perf_counter()
        process.stdin.write(first)
        process.stdin.flush()
        _until(process.stdout, request_id)
        return time.perf_counter() - started, _resident_kb(process.pid)


def _script_start(command: list[str], config: Path) -> tuple[float, float]:
    """Seconds from spawn to a script's ``done`` line, and its resident memory (KiB) then."""
    started = time.perf_counter()
    with _spawned(command, config) as process:
        assert process.stdout is not None
        if process.stdout.readline() != b"done\n":
            raise RuntimeError(f"{command[-4:]} did not finish")
        return time.perf_counter() - started, _resident_kb(process.pid)


def _query_arguments(config: Path) -> list[str]:
    """The database, the bench question's compiled SQL and its parameters, for a script."""
    compiled = _compiled(config)
    params = [
        f"date:{p.isoformat()}" if isinstance(p, datetime.date) else str(p) for p in compiled.params
    ]
    return [str(config / "data" / "example.duckdb"), compiled.sql, json.dumps(params)]


def _ping(request_id: int) -> bytes:
    params = {"name": "ping", "arguments": {}}
    return _line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


def _cold_starts(config: Path, scripts: Path) -> dict[str, list[float]]:
    """Interleaved spawns: the floor to tools/list and to its first answer (``ping``), ours to
    tools/list and to a first answer (``ask_metric``), the floor whose answer runs the query on
    DuckDB; with each server's RSS at its answer. Then the bare scripts (DuckDB's share)."""
    ours = [str(SUTURA), "mcp"]
    query = _query_arguments(config)
    floor = [sys.executable, str(scripts / "floor_server.py")]
    floor_duckdb = [sys.executable, str(scripts / "floor_duckdb_server.py"), *query]
    floor_held = [sys.executable, str(scripts / "floor_duckdb_held_server.py"), *query]
    bare_duckdb = [sys.executable, str(scripts / "bare_duckdb.py"), *query]
    bare_python = [sys.executable, str(scripts / "bare_python.py")]
    imports = [sys.executable, str(scripts / "imports.py")]
    seen: dict[str, list[float]] = {}

    def record(name: str, seconds: float, resident: float) -> None:
        seen.setdefault(name, []).append(seconds)
        seen.setdefault(name + " rss", []).append(resident)

    for _ in range(SPAWNS):
        for name, command, first, request_id in (
            ("floor listed", floor, b"", 1),
            ("floor answered", floor, _ping(2), 2),
            ("floor+duckdb answered", floor_duckdb, _ping(2), 2),
            ("floor+duckdb held answered", floor_held, _ping(2), 2),
            ("listed", ours, b"", 1),
            ("answered", ours, _ask(2), 2),
        ):
            record(name, *_cold_start(command, config, first, request_id))
        for name, command, first, request_id in (
            ("floor held after list", floor_held, _ping(2), 2),
            ("after list", ours, _ask(2), 2),
        ):
            record(name, *_after_list(command, config, first, request_id))
        record("bare duckdb", *_script_start(bare_duckdb, config))
        record("bare python", *_script_start(bare_python, config))
        record("our imports", *_script_start([*imports, OUR_IMPORTS, "duckdb"], config))
        record("floor imports", *_script_start([*imports, FLOOR_IMPORTS], config))
        record("compiler imports", *_script_start([*imports, COMPILER_IMPORTS, "duckdb"], config))
    return seen


def _compiled(config: Path) -> CompiledQuery:
    return plan(config, decode_question_json(BENCH_QUESTION).unwrap())[1]


def _timed(call: Callable[[], object], times: list[float]) -> None:
    started = time.perf_counter()
    call()
    times.append(time.perf_counter() - started)


def _warm_calls(config: Path) -> tuple[list[float], list[float]]:
    """``ask_metric`` over stdio and the same SQL on raw DuckDB, interleaved call by call."""
    compiled = _compiled(config)
    raw = duckdb.connect(str(config / "data" / "example.duckdb"), read_only=True)

    def query() -> object:
        return raw.execute(compiled.sql, compiled.params).fetchall()

    ours: list[float] = []
    direct: list[float] = []
    with _spawned([str(SUTURA), "mcp"], config) as process:
        stdin, stdout = process.stdin, process.stdout
        assert stdin is not None and stdout is not None
        stdin.write(HANDSHAKE)
        stdin.flush()
        _until(stdout, 1)

        def call(request_id: int) -> None:
            stdin.write(_ask(request_id))
            stdin.flush()
            assert "result" in _until(stdout, request_id)

        for request_id in range(2, 2 + WARM_UP):
            call(request_id)
            query()
        for request_id in range(1000, 1000 + CALLS):
            _timed(query, direct)
            _timed(functools.partial(call, request_id), ours)
    raw.close()
    return ours, direct


def _warm_sdk_calls(config: Path) -> tuple[list[float], list[float], list[float]]:
    """``ask_metric`` with the SDK's own ``Client`` (auto mode, as a host connects) on a spawned
    ``sutura mcp``, the same client calling the SDK's minimal one-tool server that runs the same
    compiled SQL on the same file and returns the same rows (:data:`bench.floors.MCP_FLOOR`:
    what any server on this SDK pays), and the same SQL on raw DuckDB in this process,
    interleaved call by call."""
    compiled = _compiled(config)
    question = json.loads(BENCH_QUESTION)
    database = config / "data" / "example.duckdb"
    environ = {**os.environ, "SUTURA_CONFIG_DIR": str(config)}
    server = StdioServerParameters(command=str(SUTURA), args=["mcp"], env=environ)
    floor_arguments = params_argument(compiled.params)

    async def calls(floor_path: Path) -> tuple[list[float], list[float], list[float]]:
        ours: list[float] = []
        floor: list[float] = []
        direct: list[float] = []
        command = stdio_floor_command(floor_path, database, compiled.sql)
        floor_server = StdioServerParameters(command=command[0], args=command[1:])
        with (
            open(os.devnull, "w") as quiet,
            duckdb.connect(str(database), read_only=True) as raw,
        ):
            async with (
                Client(stdio_client(server, errlog=quiet)) as client,
                Client(stdio_client(floor_server, errlog=quiet)) as floor_client,
            ):
                await client.list_tools()
                await floor_client.list_tools()
                for _ in range(WARM_UP):
                    await client.call_tool("ask_metric", question)
                    await floor_client.call_tool("rows", floor_arguments)
                    raw.execute(compiled.sql, compiled.params).fetchall()
                for _ in range(CALLS):
                    _timed(lambda: raw.execute(compiled.sql, compiled.params).fetchall(), direct)
                    started = time.perf_counter()
                    result = await client.call_tool("ask_metric", question)
                    ours.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    floor_result = await floor_client.call_tool("rows", floor_arguments)
                    floor.append(time.perf_counter() - started)
                    if result.is_error or floor_result.is_error:
                        raise RuntimeError("a warm call failed over the SDK's client")
        return ours, floor, direct

    with script(MCP_FLOOR) as floor_path:
        return anyio.run(calls, floor_path)


def _spread(values: list[float]) -> float:
    return max(values) - min(values)


def _p95(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, int(0.95 * len(values)))]


def measure() -> list[Figure]:
    """Every MCP figure, each measured beside its reference in this run."""
    config = example_dir()
    compiled_package()
    with tempfile.TemporaryDirectory() as temporary:
        scripts = Path(temporary)
        for name, text in (
            ("floor_server.py", FLOOR_SERVER),
            ("floor_duckdb_server.py", FLOOR_DUCKDB_SERVER),
            ("floor_duckdb_held_server.py", FLOOR_DUCKDB_HELD_SERVER),
            ("bare_duckdb.py", BARE_DUCKDB),
            ("bare_python.py", BARE_PYTHON),
            ("imports.py", IMPORTS),
        ):
            (scripts / name).write_text(text, encoding="utf-8")
        cold = _cold_starts(config, scripts)
    sdk, sdk_floor, sdk_raw = _warm_sdk_calls(config)
    ours, raw = _warm_calls(config)
    median = {name: statistics.median(values) for name, values in cold.items()}
    worst = max(
        range(SPAWNS), key=lambda i: cold["answered"][i] - cold["floor+duckdb held answered"][i]
    )
    heaviest = max(
        range(SPAWNS),
        key=lambda i: cold["answered rss"][i] / cold["floor+duckdb held answered rss"][i],
    )
    ms, mib = 1e3, 1 / 1024
    return [
        Figure("mcp", f"cold start to tools/list (median of {SPAWNS})", median["listed"] * ms,
               median["floor listed"] * ms, "ms", "≤ ref+150", "one-tool server, same SDK"),
        Figure("mcp", f"cold start to a first answer (worst of {SPAWNS} rounds)",
               cold["answered"][worst] * ms, cold["floor+duckdb held answered"][worst] * ms,
               "ms", "≤ ref+100", f"{HELD}; that round"),
        Figure("mcp", f"RSS after a first answer (worst of {SPAWNS} rounds)",
               cold["answered rss"][heaviest] * mib,
               cold["floor+duckdb held answered rss"][heaviest] * mib, "MiB", "≤ 1.1×",
               f"{HELD}; that round"),
        Figure("mcp", f"cold start to a first answer (median of {SPAWNS})",
               median["answered"] * ms, median["floor+duckdb held answered"] * ms, "ms",
               "breakdown", HELD),
        Figure("mcp", f"cold start to a first answer: spread over {SPAWNS} rounds (max − min)",
               _spread(cold["answered"]) * ms, _spread(cold["floor+duckdb held answered"]) * ms,
               "ms", "breakdown", f"{HELD}: the machine's own spread"),
        Figure("mcp", f"first ask_metric after tools/list (median of {SPAWNS})",
               median["after list"] * ms, median["floor held after list"] * ms, "ms", "report",
               HELD),
        Figure("mcp", f"first ask_metric after tools/list (median of {SPAWNS})",
               median["after list"] * ms, statistics.median(sdk) * ms, "ms", "report",
               "a warm ask_metric, SDK client"),
        Figure("mcp", f"cold start to a first answer (median of {SPAWNS})",
               median["answered"] * ms, median["floor+duckdb answered"] * ms, "ms",
               "breakdown", REFERENCE),
        Figure("mcp", "RSS after a first answer (median)", median["answered rss"] * mib,
               median["floor+duckdb answered rss"] * mib, "MiB", "breakdown", REFERENCE),
        Figure("mcp", f"cold start to a first answer (median of {SPAWNS})",
               median["answered"] * ms, median["floor answered"] * ms, "ms", "breakdown",
               "one-tool server answering without data"),
        Figure("mcp", "RSS after a first answer (median)", median["answered rss"] * mib,
               median["floor answered rss"] * mib, "MiB", "breakdown",
               "one-tool server answering without data"),
        Figure("mcp", "imports before a first answer: spawn to done (median)",
               median["our imports"] * ms, median["floor imports"] * ms, "ms", "breakdown",
               "the SDK and DuckDB imported"),
        Figure("mcp", "imports before a first answer: RSS (median)",
               median["our imports rss"] * mib, median["floor imports rss"] * mib, "MiB",
               "breakdown", "the SDK and DuckDB imported"),
        Figure("mcp", "sqlglot's share: RSS with it and its DuckDB dialect imported (median)",
               median["compiler imports rss"] * mib, median["floor imports rss"] * mib, "MiB",
               "breakdown", "the SDK and DuckDB imported"),
        Figure("mcp", "DuckDB's share: spawn, import, connect, query (median)",
               median["bare duckdb"] * ms, median["bare python"] * ms, "ms", "breakdown",
               "bare interpreter"),
        Figure("mcp", "DuckDB's share: RSS after the query (median)",
               median["bare duckdb rss"] * mib, median["bare python rss"] * mib, "MiB",
               "breakdown", "bare interpreter"),
        Figure("mcp", f"warm ask_metric, SDK client, 1M rows (median of {CALLS})",
               statistics.median(sdk) * ms, statistics.median(sdk_raw) * ms, "ms", "≤ 1.25×",
               "raw DuckDB, same SQL, in the client's process"),
        Figure("mcp", f"warm ask_metric, SDK client, 1M rows (p95 of {CALLS})", _p95(sdk) * ms,
               _p95(sdk_raw) * ms, "ms", "≤ 1.25×",
               "raw DuckDB, same SQL, in the client's process"),
        Figure("mcp", f"warm ask_metric, SDK client, 1M rows (median of {CALLS})",
               statistics.median(sdk) * ms, statistics.median(sdk_floor) * ms, "ms",
               "breakdown", "the SDK's one-tool server, same rows, same client"),
        Figure("mcp", f"the SDK's one-tool server, same rows, SDK client (median of {CALLS})",
               statistics.median(sdk_floor) * ms, statistics.median(sdk_raw) * ms, "ms",
               "breakdown", "raw DuckDB, same SQL, in the client's process"),
        Figure("mcp", f"warm ask_metric, one line in/out, 1M rows (median of {CALLS})",
               statistics.median(ours) * ms, statistics.median(raw) * ms, "ms", "breakdown",
               "raw DuckDB, same SQL"),
        Figure("mcp", f"warm ask_metric, one line in/out, 1M rows (p95 of {CALLS})",
               _p95(ours) * ms, _p95(raw) * ms, "ms", "breakdown", "raw DuckDB, same SQL"),
    ]  # fmt: skip


def main() -> int:
    """Measure and print the MCP rows of the table."""
    print(render(measure()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
