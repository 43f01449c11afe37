"""Long answers on every surface: 1,000, 10,000 and 50,000 rows × 10 columns (:mod:`.long_data`).

Each surface beside its reference, in one run, in turns (each round asks every surface once,
each right after the compiled statement run raw, so both meet the same moments of a machine
whose speed drifts). The raw run is ``execute`` + ``fetchall`` of the compiled statement on a
read-only connection of this process. Surfaces:

- ``sutura.api``: ``call`` on an opened service, in this process (goal ≤ 1.10× raw);
- ``POST /v1/query`` to ``sutura serve``, one keep-alive connection, the body read whole
  (≤ 1.15× raw);
- MCP stdio, the server's own time: one request line written to ``sutura mcp``, its response
  line read whole, no client library (≤ 1.3× raw);
- ``/mcp``, the server's own time: one JSON-RPC POST (handshake era, stateless) to ``sutura
  serve``, its body read whole (≤ 1.3× raw);
- MCP with the SDK's own ``Client``, as an agent host calls (auto mode: the protocol's modern
  era), over stdio and over ``/mcp``: ``ask_metric`` beside the same client calling the floor
  (:data:`bench.floors.MCP_FLOOR`), the SDK's minimal one-tool server returning the same rows
  (goal: no slower);
- peak memory of one answer, in this process (``tracemalloc``: every Python allocation the
  call made and still held at its peak), beside the text half's size (goal ≤ 3×). Each chunk
  of rows is written into both halves as it arrives and dropped, so the peak is the reply
  itself, the text half (1×) and the structured half (1.3×, up to 1.5× while its buffer
  grows), with one chunk's values beside them; the answer's rows are read back from the
  structured half's bytes (docs/sources.md).

Each time is the median of its rounds; beside it, the spread of the per-round ratios.
A section of ``python -m bench``; ``python -m bench.long`` prints it alone.
"""

import functools
import gc
import http.client
import os
import statistics
import subprocess
import time
import tracemalloc
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import duckdb
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from bench.floors import MCP_FLOOR, http_floor, params_argument, script, stdio_floor_command
from bench.http import TOKEN, serving_directory
from bench.long_data import long_dir, long_question, long_question_json
from bench.mcp import HANDSHAKE, SUTURA, _line, _spawned, _until
from bench.serving import plan, serving
from bench.table import Figure, render, short
from sutura import api
from sutura.boundary.service import Service
from sutura.core.nouns.question import Question, decode_question_json
from sutura.core.sql.compiled import CompiledQuery

SIZES = (1_000, 10_000, 50_000)
ROUNDS = {1_000: 11, 10_000: 9, 50_000: 9}
"""Rounds per size: a long answer's per-round ratio spread 0.60–1.43 over five rounds on a
shared machine, so the longer sizes take nine, for a median that a noisy round cannot move."""
SHORT_SIZES = (250,)
AUTH = {"Authorization": f"Bearer {TOKEN}"}
QUERY_HTTP = {**AUTH, "Content-Type": "application/json"}
MCP_HTTP = {
    **AUTH,
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}
READ_BYTES = 1 << 20
"""The pipe reader's buffer: a long line is read in few reads, so its time is the server's."""
SURFACES = (
    ("sutura.api", "≤ 1.10×"),
    ("POST /v1/query", "≤ 1.15×"),
    ("MCP stdio, server's own time", "≤ 1.3×"),
    ("/mcp, server's own time", "≤ 1.3×"),
)
SDK = ("MCP stdio, SDK client", "/mcp, SDK client")


@dataclass
class Times:
    """Each surface's times, and the raw run's taken just before it, per round."""

    ours: dict[str, list[float]] = field(default_factory=dict)
    raw: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, ours: float, raw: float) -> None:
        """One round of ``name``."""
        self.ours.setdefault(name, []).append(ours)
        self.raw.setdefault(name, []).append(raw)


def _timed(call: Callable[[], object]) -> float:
    began = time.perf_counter()
    call()
    return time.perf_counter() - began


async def _timed_async(call: Callable[[], Awaitable[object]]) -> float:
    began = time.perf_counter()
    await call()
    return time.perf_counter() - began


class _Http:
    """One keep-alive HTTP/1.1 connection, each response read whole; opened again when the
    server closed it while idle (its keep-alive timeout passes while the other surfaces run)."""

    def __init__(self, address: tuple[str, int]) -> None:
        self._address = address
        self._connection = http.client.HTTPConnection(*address, timeout=120)

    def reconnect(self) -> None:
        """A fresh connection, opened now (not inside a timed request)."""
        self._connection.close()
        self._connection = http.client.HTTPConnection(*self._address, timeout=120)
        self._connection.connect()

    def post(self, path: str, body: bytes, headers: dict[str, str]) -> bytes:
        """POST ``body``; the response body (fails on any status but 200)."""
        self._connection.request("POST", path, body, headers)
        response = self._connection.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"POST {path}: {response.status} {data[:200]!r}")
        return data


class _Pipe:
    """``sutura mcp`` over its stdio pipes: a request line in, its response line out."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdin is not None and process.stdout is not None
        self._stdin, self._stdout = process.stdin, process.stdout
        self._stdin.write(HANDSHAKE)
        self._stdin.flush()
        _until(self._stdout, 1)
        self._next = 100

    def ask(self, question: dict[str, object]) -> None:
        """``ask_metric``, answered: its line read whole, its start checked (decoding 8 MB of
        JSON here would be the reader's time, not the server's)."""
        self._next += 1
        call = {"name": "ask_metric", "arguments": question}
        self._stdin.write(_line({"jsonrpc": "2.0", "id": self._next, "method": "tools/call",
                                 "params": call}))  # fmt: skip
        self._stdin.flush()
        line = self._stdout.readline()
        if not line.startswith(b'{"jsonrpc":"2.0","id":%d,"result":{' % self._next):
            raise RuntimeError(f"sutura mcp did not answer: {line[:200]!r}")


@dataclass
class _Opened:
    """Everything asked in a round, opened once for the section."""

    config: Path
    raw: duckdb.DuckDBPyConnection
    service: Service
    http: _Http
    pipe: _Pipe
    ours_stdio: Client
    floor_stdio: Client
    ours_http: Client
    floor_http: Client


def _mcp_request(question: dict[str, object]) -> bytes:
    call = {"name": "ask_metric", "arguments": question}
    return _line({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})


async def _round(opened: _Opened, rows: int, times: Times) -> None:
    """Every surface once, each right after the statement run raw."""
    question_dict = long_question(rows)
    question: Question = decode_question_json(long_question_json(rows)).unwrap()
    compiled = _compiled(opened.config, rows)

    def raw() -> float:
        return _timed(lambda: opened.raw.execute(compiled.sql, list(compiled.params)).fetchall())

    reference = raw()
    ours = await _timed_async(lambda: api.call(opened.service, api.Capability.ASK_METRIC, question))
    times.add(SURFACES[0][0], ours, reference)
    body = long_question_json(rows)
    headers = {**AUTH, "Content-Type": "application/json"}
    opened.http.reconnect()
    reference = raw()
    times.add(
        SURFACES[1][0], _timed(lambda: opened.http.post("/v1/query", body, headers)), reference
    )
    reference = raw()
    times.add(SURFACES[2][0], _timed(lambda: opened.pipe.ask(question_dict)), reference)
    request = _mcp_request(question_dict)
    opened.http.reconnect()
    reference = raw()
    times.add(
        SURFACES[3][0], _timed(lambda: opened.http.post("/mcp", request, MCP_HTTP)), reference
    )
    arguments, asked = params_argument(compiled.params), question_dict
    for name, ours_client, floor_client in (
        (SDK[0], opened.ours_stdio, opened.floor_stdio),
        (SDK[1], opened.ours_http, opened.floor_http),
    ):
        floor = await _timed_async(functools.partial(_called, floor_client, "rows", arguments))
        ours = await _timed_async(functools.partial(_called, ours_client, "ask_metric", asked))
        times.add(name, ours, floor)


@functools.cache
def _compiled(config: Path, rows: int) -> CompiledQuery:
    return plan(config, decode_question_json(long_question_json(rows)).unwrap())[1]


async def _called(client: Client, tool: str, arguments: dict[str, object]) -> None:
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        raise RuntimeError(f"{tool} failed over MCP")


@asynccontextmanager
async def _opened(config: Path) -> AsyncIterator[_Opened]:
    compiled = _compiled(config, 1_000)
    database = config / "data" / "long.duckdb"
    environ = {**os.environ, "SUTURA__SECURITY__ACCESS_TOKEN": TOKEN}
    with (
        duckdb.connect(str(database), read_only=True) as raw,
        serving_directory(config, environ) as (address, _),
        _spawned([str(SUTURA), "mcp"], config, READ_BYTES) as process,
        script(MCP_FLOOR) as floor,
        http_floor(floor, database, compiled.sql) as floor_url,
    ):
        async with AsyncExitStack() as stack:
            service = await stack.enter_async_context(serving(config))
            ours_env = {**environ, "SUTURA_CONFIG_DIR": str(config)}
            stdio = StdioServerParameters(command=str(SUTURA), args=["mcp"], env=ours_env)
            command = stdio_floor_command(floor, database, compiled.sql)
            floor_stdio = StdioServerParameters(command=command[0], args=command[1:])
            http = await stack.enter_async_context(httpx2.AsyncClient(headers=AUTH, timeout=120))
            ours_url = f"http://{address[0]}:{address[1]}/mcp"
            quiet = stack.enter_context(open(os.devnull, "w"))  # noqa: SIM115 (closed by the stack)
            clients = [
                await stack.enter_async_context(Client(server))
                for server in (
                    stdio_client(stdio, errlog=quiet),
                    stdio_client(floor_stdio, errlog=quiet),
                    streamable_http_client(ours_url, http_client=http),
                    streamable_http_client(floor_url),
                )
            ]
            for client in clients:
                await client.list_tools()
            yield _Opened(config, raw, service, _Http(address), _Pipe(process), *clients)


async def _measure(sizes: tuple[int, ...]) -> dict[int, Times]:
    measured: dict[int, Times] = {}
    async with _opened(long_dir()) as opened:
        for rows in sizes:
            times = measured[rows] = Times()
            await _round(opened, rows, Times())  # warm: first use of every path at this size
            for _ in range(2 if short() else ROUNDS[rows]):
                await _round(opened, rows, times)
        memory = await _peak_memory(opened.service, sizes)
    for rows, (peak, text) in memory.items():
        measured[rows].add("memory", peak, text)
    return measured


async def _peak_memory(service: Service, sizes: tuple[int, ...]) -> dict[int, tuple[float, float]]:
    """Per size, the peak of Python allocations one warm answer made, and its text's size."""
    peaks: dict[int, tuple[float, float]] = {}
    for rows in sizes:
        question = decode_question_json(long_question_json(rows)).unwrap()
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        reply = await api.call(service, api.Capability.ASK_METRIC, question)
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        if not isinstance(reply, api.Answered):
            raise RuntimeError("the long question was not answered")
        peaks[rows] = (float(peak), float(len(reply.halves.text.encode("utf-8"))))
    return peaks


def _spread(ours: list[float], raw: list[float]) -> str:
    ratios = sorted(o / r for o, r in zip(ours, raw, strict=True))
    return f"{ratios[0]:.2f}–{ratios[-1]:.2f} per round"


def measure() -> list[Figure]:
    """Every surface at every size, beside its reference."""
    sizes = SHORT_SIZES if short() else SIZES
    measured = anyio.run(_measure, sizes)
    figures: list[Figure] = []
    for rows in sizes:
        times = measured[rows]
        label = f"{rows:,} rows × 10"
        for name, goal in SURFACES:
            ours, raw = times.ours[name], times.raw[name]
            figures.append(Figure("long", f"{name}, {label}", 1e3 * statistics.median(ours),
                                  1e3 * statistics.median(raw), "ms", goal,
                                  f"compiled SQL run raw; {_spread(ours, raw)}"))  # fmt: skip
        for name in SDK:
            ours, floor = times.ours[name], times.raw[name]
            reference = f"SDK minimal server, same rows; {_spread(ours, floor)}"
            median = 1e3 * statistics.median(ours), 1e3 * statistics.median(floor)
            figures.append(Figure("long", f"{name}, {label}", *median, "ms", "≤ 1.0×", reference))
        peak, text = times.ours["memory"][0], times.raw["memory"][0]
        figures.append(Figure("long", f"peak memory of one answer, {label}", peak / 2**20,
                              text / 2**20, "MiB", "≤ 3×", "its text half's size"))  # fmt: skip
    return figures


def main() -> None:
    """Print this section of the performance table."""
    print(render(measure()))


if __name__ == "__main__":
    main()
