"""HTTP throughput and latency: ``POST /v1/query`` (a one-row answer) against ``sutura serve``.

Run with ``python -m bench.http`` (not as a file path: the module's name would shadow the
standard library's ``http``). It writes the example catalog to a temporary directory, starts
``sutura serve`` there on a free loopback port as a subprocess, and drives it from this process
with a small keep-alive HTTP/1.1 client over raw sockets at each concurrency for a bounded time
(``BENCH_HTTP_SECONDS``, default 5), with no errors. (An older goal, ≥ 1,000 req/s and p99
≤ 50 ms at 16 on a 2-core machine, was out of reach of the floor itself, below: the goals at 16
are set against the floor.) The run at 64 goes past ``server.max_concurrent_queries`` on purpose:
overload must be answered at once with ``503`` and ``Retry-After``, never with timeouts, and the
questions admitted must still be answered (goal: at least half the answers a second of 16
alone). So must 16 clients' questions while 16 more connections send a wrong token back to back
(the same goal): requests that cost the server almost nothing must not starve the answers.
``GET /health`` at 16 is measured beside it: the ceiling of the HTTP stack alone on this machine.
The floor is measured in the same run (:data:`bench.floors.HTTP_FLOOR`): a minimal server on the
same stack (uvicorn with the same loop and parser, Litestar, the same worker-thread pool, the same
switch interval) whose one route runs the same compiled statement on the same DuckDB file and
returns the same JSON. The server and the floor are driven at 16 in alternating turns of half a
second, the one going first alternating too (goals: answers/s ≥ 0.85 × the floor's, the
server's CPU per answer ≤ 1.3 × the floor's, p99 ≤ 1.2 × the floor's), for
:data:`FLOOR_BURSTS` turns each; the CPU each answer cost is each process's own, read from
``/proc``: on a shared machine answers/s swing with the neighbours' load, CPU per answer far
less. ``python -m bench.http`` prints the three goals beside the floor under its table.
Last, the server (its DuckDB source at its default statements at once, one per CPU) and a
second one over a copy running 32 at once are driven at 16 in turns of half a second, so the
default is measured beside the alternative at the same moments of the machine.
"""

import asyncio
import contextlib
import http.client
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bench.announced import announced
from bench.floors import HTTP_FLOOR, http_query_floor, script
from bench.table import Figure
from bench.table import render as render_table

TOKEN = "bench-token-0123456789abcdef"
QUESTION = (
    b'{"metrics": ["revenue"], "grain": "year",'
    b' "range": {"start": "2024-01-01", "end": "2025-01-01"}}'
)
SECONDS = float(os.environ.get("BENCH_HTTP_SECONDS", "5"))
MAX_CONCURRENT = 32
REQUEST_TIMEOUT = 10.0
QUERY = ("POST", "/v1/query", QUESTION)
HEALTH = ("GET", "/health", b"")
WRONG_TOKEN = "not-the-bench-token-0123456789ab"
ALONE_16 = "query c=16"
"""16 clients asking alone: what the overload and the flood are set against."""
FLOODED = "query c=16 + 16 wrong tokens"
"""The run asking at 16 beside 16 connections sending a wrong token back to back: requests
that cost the server almost nothing (``401``) must not starve the answers."""
Request = tuple[str, str, bytes]


@dataclass
class Tally:
    """What one run saw."""

    seconds: float
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    retry_after: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    cpu_seconds: float | None = None

    @property
    def cpu_ms_per_answer(self) -> float | None:
        """The CPU each answer cost, in milliseconds, when it was read."""
        answers = self.statuses[200]
        return None if self.cpu_seconds is None or not answers else self.cpu_seconds / answers * 1e3

    @property
    def answer_rate(self) -> float:
        """Answers (200s) per second."""
        return self.statuses[200] / self.seconds if self.seconds else 0.0

    @property
    def rate(self) -> float:
        """Responses per second."""
        return len(self.latencies) / self.seconds

    def percentile_ms(self, fraction: float) -> float:
        """The latency below which ``fraction`` of responses arrived, in milliseconds."""
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * 1e3 if ordered else 0

    @property
    def errors(self) -> int:
        """Timeouts, broken connections and any status but 200 or 503."""
        other = sum(n for status, n in self.statuses.items() if status not in (200, 503))
        return sum(self.failures.values()) + other


def _encoded(request: Request, host: str, port: int, token: str = TOKEN) -> bytes:
    method, path, body = request
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


async def _response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    """Read one response; its status and headers (the body is read and dropped)."""
    status = int((await reader.readuntil(b"\r\n")).split(b" ", 2)[1])
    headers: dict[str, str] = {}
    while (line := await reader.readuntil(b"\r\n")) != b"\r\n":
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    await reader.readexactly(int(headers.get("content-length", "0")))
    return status, headers


class _Connection:
    """One keep-alive client connection, opened again after a failure or a ``close``."""

    def __init__(self, address: tuple[str, int]) -> None:
        self.address = address
        self._stream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def ask(self, payload: bytes, tally: Tally) -> None:
        """Send ``payload`` and read its response, counted in ``tally``."""
        if self._stream is None:
            self._stream = await asyncio.open_connection(*self.address)
        reader, writer = self._stream
        started = time.perf_counter()
        writer.write(payload)
        try:
            status, headers = await asyncio.wait_for(_response(reader), REQUEST_TIMEOUT)
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError) as err:
            tally.failures[type(err).__name__] += 1
            self.close()
            return
        tally.latencies.append(time.perf_counter() - started)
        tally.statuses[status] += 1
        tally.retry_after += status == 503 and "retry-after" in headers
        if headers.get("connection") == "close":
            self.close()

    def close(self) -> None:
        """Close the connection (the next request opens a new one)."""
        if self._stream is not None:
            self._stream[1].close()
            self._stream = None


async def _until(connection: _Connection, payload: bytes, until: float, tally: Tally) -> None:
    """Requests on ``connection`` back to back until ``until`` (``perf_counter``)."""
    while time.perf_counter() < until:
        await connection.ask(payload, tally)


async def _worker(address: tuple[str, int], payload: bytes, until: float, tally: Tally) -> None:
    connection = _Connection(address)
    try:
        await _until(connection, payload, until, tally)
    finally:
        connection.close()


def drive_in_bursts(
    targets: list[tuple[tuple[str, int], bytes, Tally]], concurrency: int, burst: float, bursts: int
) -> None:
    """Each target (an address, the raw request sent to it and the tally it adds to) in turn,
    ``bursts`` times: in a burst, ``concurrency`` keep-alive connections of that target send
    back to back for ``burst`` seconds, and the burst ends once every response has come. A
    tally's ``seconds`` grow by its bursts' own time, so targets taking turns a fraction of a
    second long meet the same moments of a machine whose speed drifts; every other round goes
    in the reverse order, so no target always follows the same one."""

    async def run() -> None:
        pools = [[_Connection(address) for _ in range(concurrency)] for address, _, _ in targets]
        try:
            for round_ in range(bursts):
                turns = list(zip(targets, pools, strict=True))
                for (_, payload, tally), pool in turns if round_ % 2 == 0 else turns[::-1]:
                    started = time.perf_counter()
                    until = started + burst
                    await asyncio.gather(*(_until(c, payload, until, tally) for c in pool))
                    tally.seconds += time.perf_counter() - started
        finally:
            for connection in (c for pool in pools for c in pool):
                connection.close()

    asyncio.run(run())


def drive_beside_flood(
    address: tuple[str, int], concurrency: int, seconds: float
) -> tuple[Tally, Tally]:
    """``concurrency`` connections asking the bench question beside as many sending it with a
    wrong token, all back to back for ``seconds``: the answers' tally and the flood's."""
    answers, flood = Tally(seconds), Tally(seconds)
    asking = _encoded(QUERY, *address)
    flooding = _encoded(QUERY, *address, token=WRONG_TOKEN)

    async def run() -> None:
        until = time.perf_counter() + seconds
        await asyncio.gather(
            *(_worker(address, asking, until, answers) for _ in range(concurrency)),
            *(_worker(address, flooding, until, flood) for _ in range(concurrency)),
        )

    asyncio.run(run())
    return answers, flood


def drive(address: tuple[str, int], request: Request, concurrency: int, seconds: float) -> Tally:
    """``concurrency`` keep-alive connections sending ``request`` back to back for ``seconds``."""
    return drive_payload(address, _encoded(request, *address), concurrency, seconds)


def drive_payload(
    address: tuple[str, int], payload: bytes, concurrency: int, seconds: float
) -> Tally:
    """``concurrency`` keep-alive connections sending the raw request ``payload`` back to back
    for ``seconds``."""
    tally = Tally(seconds)

    async def run() -> None:
        until = time.perf_counter() + seconds
        await asyncio.gather(*(_worker(address, payload, until, tally) for _ in range(concurrency)))

    asyncio.run(run())
    return tally


def _write_example(directory: Path) -> None:
    from sutura.boundary.example import write_example

    write_example(directory)
    settings = (directory / "base.yaml").read_text(encoding="utf-8")
    settings += f"server:\n  max_concurrent_queries: {MAX_CONCURRENT}\n"
    # The example writes a security section (its identity); the token joins it.
    settings = settings.replace("\nsecurity:\n", f"\nsecurity:\n  access_token: {TOKEN}\n", 1)
    (directory / "base.yaml").write_text(settings, encoding="utf-8")


@contextlib.contextmanager
def served() -> Iterator[tuple[str, int]]:
    """``sutura serve`` over the example on a free loopback port; its host and port."""
    with served_process() as (address, _process):
        yield address


@contextlib.contextmanager
def served_process() -> Iterator[tuple[tuple[str, int], subprocess.Popen[bytes]]]:
    """``sutura serve`` over the example on a free loopback port; its address and process."""
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary) / "example"
        _write_example(directory)
        with serving_directory(directory) as served:
            yield served


@contextlib.contextmanager
def serving_directory(
    directory: Path, environ: dict[str, str] | None = None
) -> Iterator[tuple[tuple[str, int], subprocess.Popen[bytes]]]:
    """``sutura serve`` over the settings in ``directory`` on a free loopback port, in
    ``environ`` (this process's environment by default); its log (an audit line per call) is
    read by a process of its own (:func:`bench.announced.announced`)."""
    sutura = str(Path(sys.executable).with_name("sutura"))
    command = [sutura, "serve", "--host", "127.0.0.1", "--port", "0"]
    environ = {**(os.environ if environ is None else environ), "SUTURA_CONFIG_DIR": str(directory)}
    with announced(command, environ) as served:
        yield served


def process_cpu_seconds(pid: int) -> float | None:
    """User and system CPU time of process ``pid`` so far (None where ``/proc`` is absent)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _with_cpu(pid: int, run: Callable[[], Tally]) -> Tally:
    """``run()``, with the CPU process ``pid`` spent meanwhile."""
    before = process_cpu_seconds(pid)
    tally = run()
    after = process_cpu_seconds(pid)
    if before is not None and after is not None:
        tally.cpu_seconds = after - before
    return tally


def _runs(address: tuple[str, int], pid: int) -> list[tuple[str, Tally]]:
    drive(address, QUERY, 4, 1.0)  # warm-up: compile cache, DuckDB, first-use paths
    return [
        ("query c=1", drive(address, QUERY, 1, SECONDS)),
        (ALONE_16, _with_cpu(pid, lambda: drive(address, QUERY, 16, SECONDS))),
        ("query c=64 (overload)", drive(address, QUERY, 64, SECONDS)),
        ("health c=16 (ceiling)", drive(address, HEALTH, 16, SECONDS)),
        (FLOODED, drive_beside_flood(address, 16, SECONDS)[0]),
    ]


def _line(cells: tuple[str, ...]) -> str:
    name, *numbers = cells
    return f"{name:<22}" + "".join(f"{cell:>12}" for cell in numbers)


def _table(runs: list[tuple[str, Tally]]) -> str:
    header = ("run", "req/s", "p50 ms", "p99 ms", "answers", "503", "Retry-After", "errors",
              "CPU ms/ans")  # fmt: skip
    rows = [
        (
            name,
            f"{t.rate:.0f}",
            f"{t.percentile_ms(0.5):.2f}",
            f"{t.percentile_ms(0.99):.2f}",
            str(t.statuses[200]),
            str(t.statuses[503]),
            str(t.retry_after),
            str(t.errors),
            "-" if t.cpu_ms_per_answer is None else f"{t.cpu_ms_per_answer:.2f}",
        )
        for name, t in runs
    ]
    lines = [_line(header), "-" * len(_line(header)), *map(_line, rows)]
    return "\n".join(lines)


STATEMENTS_AT_ONCE = 32
"""The DuckDB source's statements at once in the comparison: past ``MAX_CONCURRENT``'s 16."""
DEFAULT_STATEMENTS = "query c=16, statements: default"
MANY_STATEMENTS = f"query c=16, statements: {STATEMENTS_AT_ONCE}"


def _with_statements(directory: Path, statements: int) -> Path:
    """A copy of the example whose source runs at most ``statements`` statements at once."""
    copy = directory.with_name(f"{directory.name}-statements-{statements}")
    shutil.copytree(directory, copy)
    settings = (copy / "base.yaml").read_text(encoding="utf-8")
    line = "    path: data/example.duckdb\n"
    if line not in settings:  # else both servers would run the default, and the rows lie
        raise RuntimeError(f"the example's settings no longer hold {line.strip()!r}")
    settings = settings.replace(line, f"{line}    max_concurrent_statements: {statements}\n", 1)
    (copy / "base.yaml").write_text(settings, encoding="utf-8")
    return copy


def _statements_in_turns(
    directory: Path, address: tuple[str, int], pid: int
) -> list[tuple[str, Tally]]:
    """The served example (its source at the default statements at once) and a copy running
    ``STATEMENTS_AT_ONCE`` at once, driven at 16 in turns of half a second."""
    with serving_directory(_with_statements(directory, STATEMENTS_AT_ONCE)) as (other, process):
        drive(other, QUERY, 4, 1.0)
        ours, many = Tally(0.0), Tally(0.0)
        before = process_cpu_seconds(pid), process_cpu_seconds(process.pid)
        targets = [
            (address, _encoded(QUERY, *address), ours),
            (other, _encoded(QUERY, *other), many),
        ]
        drive_in_bursts(targets, 16, 0.5, max(2, round(2 * SECONDS)))
        after = process_cpu_seconds(pid), process_cpu_seconds(process.pid)
    for tally, start, end in zip((ours, many), before, after, strict=True):
        tally.cpu_seconds = None if start is None or end is None else end - start
    return [(DEFAULT_STATEMENTS, ours), (MANY_STATEMENTS, many)]


FLOORED = "query c=16, in turns with the floor"
FLOOR = "floor c=16, in turns"
FLOOR_BURSTS = max(4, round(4 * SECONDS))
"""Turns of half a second each the server and the floor take (twice ``BENCH_HTTP_SECONDS``
of each): their ratios are the goals, so they are measured over the longest run here."""


def _answer_of(address: tuple[str, int]) -> bytes:
    """One answer to the bench question, its body whole."""
    connection = http.client.HTTPConnection(*address, timeout=REQUEST_TIMEOUT)
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    connection.request("POST", "/v1/query", QUESTION, headers)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    if response.status != 200:
        raise RuntimeError(f"the bench question was not answered: {response.status}")
    return body


def _floor_in_turns(directory: Path, address: tuple[str, int], pid: int) -> list[tuple[str, Tally]]:
    """The server and the floor (the same statement, file and JSON on the same stack), driven
    at 16 in turns of half a second, each with its own process's CPU."""
    from bench.serving import plan
    from sutura.core.nouns.question import decode_question_json

    compiled = plan(directory, decode_question_json(QUESTION).unwrap())[1]
    database = directory / "data" / "example.duckdb"
    with (
        script(HTTP_FLOOR) as path,
        http_query_floor(path, database, compiled.sql, compiled.params, _answer_of(address)) as (
            floor,
            process,
        ),
    ):
        drive(floor, QUERY, 4, 1.0)
        ours, theirs = Tally(0.0), Tally(0.0)
        before = process_cpu_seconds(pid), process_cpu_seconds(process.pid)
        targets = [
            (address, _encoded(QUERY, *address), ours),
            (floor, _encoded(QUERY, *floor), theirs),
        ]
        drive_in_bursts(targets, 16, 0.5, FLOOR_BURSTS)
        after = process_cpu_seconds(pid), process_cpu_seconds(process.pid)
    for tally, start, end in zip((ours, theirs), before, after, strict=True):
        tally.cpu_seconds = None if start is None or end is None else end - start
    return [(FLOORED, ours), (FLOOR, theirs)]


def _measured() -> list[tuple[str, Tally]]:
    """Every run against the server, then the server beside the floor in turns, then the
    source's default statements at once against many, in turns: all in one run."""
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary) / "example"
        _write_example(directory)
        with serving_directory(directory) as (address, process):
            runs = _runs(address, process.pid)
            floored = _floor_in_turns(directory, address, process.pid)
            turns = _statements_in_turns(directory, address, process.pid)
    return [*runs, *floored, *turns]


def measure() -> list[Figure]:
    """The project table's rows: each concurrency beside the HTTP stack's own ceiling."""
    runs = dict(_measured())
    goal = runs[ALONE_16]
    figures = floor_figures(runs[FLOORED], runs[FLOOR])
    health = runs["health c=16 (ceiling)"]
    reference = "GET /health, c=16"
    for name in ("query c=1", "query c=64 (overload)"):
        run, label = runs[name], "POST /v1/query " + name.split()[1]
        figures += [
            Figure("http", f"{label} req/s", run.rate, health.rate, "req/s", "report", reference),
            Figure("http", f"{label} p50", run.percentile_ms(0.5), health.percentile_ms(0.5),
                   "ms", "report", reference),
            Figure("http", f"{label} p99", run.percentile_ms(0.99), health.percentile_ms(0.99),
                   "ms", "report", reference),
        ]  # fmt: skip
    default, many = runs[DEFAULT_STATEMENTS], runs[MANY_STATEMENTS]
    at_once = f"{STATEMENTS_AT_ONCE} statements at once, in turns"
    figures += [
        Figure("http", "c=16 answers/s, source's default statements at once", default.rate,
               many.rate, "answers/s", "report", at_once),
        Figure("http", "c=16 p99, source's default statements at once",
               default.percentile_ms(0.99), many.percentile_ms(0.99), "ms", "report", at_once),
    ]  # fmt: skip
    overload, flooded = runs["query c=64 (overload)"], runs[FLOODED]
    alone = "query c=16 alone, same server"
    figures += [
        Figure("http", "c=64 (overload): answers/s", overload.answer_rate, goal.answer_rate,
               "answers/s", "≥ 0.5×", alone),
        Figure("http", "c=16 beside 16 sending a wrong token: answers/s", flooded.answer_rate,
               goal.answer_rate, "answers/s", "≥ 0.5×", alone),
        Figure("http", "c=16 beside 16 sending a wrong token: p99", flooded.percentile_ms(0.99),
               goal.percentile_ms(0.99), "ms", "report", alone),
    ]  # fmt: skip
    figures += [
        Figure(
            "http",
            "c=64: 503s carrying Retry-After",
            overload.retry_after,
            overload.statuses[503],
            "count",
            "ratio 1",
            "503 answers in that run",
        ),
        Figure(
            "http",
            "c=64: errors (timeouts, resets, other)",
            overload.errors,
            len(overload.latencies) or 1,
            "count",
            "0",
            "responses in that run",
        ),
    ]
    return figures


def floor_figures(ours: Tally, floor: Tally) -> list[Figure]:
    """The goals at 16, each beside the floor's own figure in the same turns."""
    floor_name = "floor: same stack, statement, file, JSON; in turns"
    figures = [
        Figure("http", "c=16 answers/s vs the floor", ours.answer_rate, floor.answer_rate,
               "answers/s", "≥ 0.85×", floor_name),
        Figure("http", "c=16 p99 vs the floor", ours.percentile_ms(0.99),
               floor.percentile_ms(0.99), "ms", "≤ 1.2×", floor_name),
    ]  # fmt: skip
    if ours.cpu_ms_per_answer is not None and floor.cpu_ms_per_answer is not None:
        figures.append(
            Figure("http", "c=16 server CPU per answer vs the floor", ours.cpu_ms_per_answer,
                   floor.cpu_ms_per_answer, "ms", "≤ 1.3×", floor_name)
        )  # fmt: skip
    return figures


def main() -> int:
    """Start the server, drive it at each concurrency, print the table and, under it, the
    goals beside the floor."""
    runs = _measured()
    print(
        f"POST /v1/query (one-row answer) against sutura serve, keep-alive, {SECONDS:.0f} s per "
        f"run, server.max_concurrent_queries = {MAX_CONCURRENT}, {os.cpu_count()} CPUs"
    )
    print(_table(runs))
    named = dict(runs)
    print()
    print(render_table(floor_figures(named[FLOORED], named[FLOOR])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
