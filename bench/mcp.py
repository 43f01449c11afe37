"""MCP over stdio: cold start and warm ``ask_metric``, each beside its reference, in one run.

- Cold start: spawn to the ``tools/list`` response (initialize, initialized and tools/list are
  written at once, as a host does), median of 10 spawns of ``sutura mcp`` on the 1M-row
  example, beside 10 spawns of a minimal one-tool server on the same SDK (the floor: what any
  server pays to import ``mcp``), interleaved so both see the same machine.
- Warm ``ask_metric``: one request line in, one response line out, over the same pipe a host
  uses, 200 calls (median and p95), beside the raw DuckDB time of the same compiled SQL
  (``execute`` + ``fetchall`` on a read-only connection), interleaved call by call.

Run: ``python -m bench.mcp`` (or ``make bench``, which includes it). Goals: cold start within
150 ms of the floor; warm call ≤ 1.25 × raw.
"""

import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import duckdb

from bench.answer import BENCH_QUESTION, example_dir
from bench.serving import plan
from bench.table import Figure, render
from sutura.core.question.model import decode_question_json
from sutura.core.sql.compile import CompiledQuery

SPAWNS = 10
CALLS = 200
WARM_UP = 20
SUTURA = Path(sys.executable).with_name("sutura")

FLOOR_SERVER = """
import anyio, mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="ping", input_schema={"type": "object"})])

async def call_tool(ctx, params):
    return types.CallToolResult(content=[types.TextContent(text="pong")])

server = Server("floor", on_list_tools=list_tools, on_call_tool=call_tool)

async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
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
def _spawned(command: list[str], config: Path) -> Iterator[subprocess.Popen[bytes]]:
    environ = {**os.environ, "SUTURA_CONFIG_DIR": str(config)}
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=environ,
    )
    try:
        yield process
    finally:
        if process.stdin is not None:
            process.stdin.close()
        process.wait(timeout=30)


def _cold_start(command: list[str], config: Path, first: bytes, request_id: int) -> float:
    """Seconds from spawn to the response to ``request_id`` (sent right after the handshake)."""
    started = time.perf_counter()
    with _spawned(command, config) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(HANDSHAKE + first)
        process.stdin.flush()
        _until(process.stdout, request_id)
        return time.perf_counter() - started


def _cold_starts(config: Path, floor: list[str]) -> tuple[list[float], list[float], list[float]]:
    """Interleaved spawns: floor to tools/list, ours to tools/list, ours to a first answer."""
    ours = [str(SUTURA), "mcp"]
    floors, listed, answered = [], [], []
    for _ in range(SPAWNS):
        floors.append(_cold_start(floor, config, b"", 1))
        listed.append(_cold_start(ours, config, b"", 1))
        answered.append(_cold_start(ours, config, _ask(2), 2))
    return floors, listed, answered


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


def _p95(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, int(0.95 * len(values)))]


def measure() -> list[Figure]:
    """Every MCP figure, each measured beside its reference in this run."""
    config = example_dir()
    with tempfile.TemporaryDirectory() as temporary:
        floor_script = Path(temporary) / "floor_server.py"
        floor_script.write_text(FLOOR_SERVER, encoding="utf-8")
        floors, listed, answered = _cold_starts(config, [sys.executable, str(floor_script)])
    ours, raw = _warm_calls(config)
    floor, raw_median = statistics.median(floors), statistics.median(raw)
    ms = 1e3
    return [
        Figure("mcp", "cold start to tools/list (median of 10)", statistics.median(listed) * ms,
               floor * ms, "ms", "≤ ref+150", "one-tool server, same SDK"),
        Figure("mcp", "cold start to a first answer (median of 10)",
               statistics.median(answered) * ms, (floor + raw_median) * ms, "ms", "-",
               "floor + raw query"),
        Figure("mcp", "warm ask_metric, 1M rows (median of 200)", statistics.median(ours) * ms,
               raw_median * ms, "ms", "≤ 1.25×", "raw DuckDB, same SQL"),
        Figure("mcp", "warm ask_metric, 1M rows (p95 of 200)", _p95(ours) * ms, _p95(raw) * ms,
               "ms", "≤ 1.25×", "raw DuckDB, same SQL"),
    ]  # fmt: skip


def main() -> int:
    """Measure and print the MCP rows of the table."""
    print(render(measure()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
