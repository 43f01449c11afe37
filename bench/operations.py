"""Remote MCP and the cost of operating: ``/mcp`` warm ``ask_metric`` beside raw DuckDB;
``POST /v1/query`` answers/s at 16 concurrent with metrics, audit and request ids on vs off; a
load over ``/mcp`` and ``/v1/query`` together, watching errors and the server's RSS.

- ``/mcp`` warm: one keep-alive connection, one JSON-RPC ``tools/call`` per POST (stateless, no
  session), 200 calls on the 1M-row example (median), interleaved call by call with the same
  compiled SQL on a read-only DuckDB connection. Goal ≤ 1.3×.
- Operating cost: a ``sutura serve`` process over the small example with
  ``security.metrics_token``, ``audit.path`` and a caller's ``X-Request-Id`` on every request,
  beside a plain one, taking turns: each in ``BURSTS`` bursts of ``BURST`` seconds at 16
  keep-alive connections, a burst ending once its responses have come; ``PAIRS`` such pairs,
  each started afresh (which starts, and goes first, alternating). Answers/s over each kind's
  bursts are compared. Goal: ≤ 3 % fewer answers/s. Measured this way because on this machine
  two identical servers differ more than the cost does, in two ways: the machine's speed
  drifts (a server's core, busy throughout, answered 212 to 348 times per CPU-second in turns
  of 2 s, neighbouring turns alike), which turns of half a second put both servers through
  alike; and one process comes out a few percent faster than an identical other for its whole
  life (two plain servers taking turns in bursts stayed 2–4 % apart, in either direction from
  one pair to the next, a fixed hash seed or not), which only many pairs of processes average
  out. Every thread of both servers runs on one core and this client on
  another (where there are two), so a server's answers/s is that core's speed divided by what
  an answer costs it, not a share of two cores with its client settled by the scheduler's
  chance. Beside it, the CPU each spent per answer (from ``/proc``).
- Load: ``LOAD_SECONDS`` (default 60) at 64 connections, half on ``/mcp`` and half on
  ``/v1/query``, against the instrumented server. Errors are anything but 200, 503 with
  ``Retry-After`` and 429; RSS is read from ``/proc`` after a warm-up of ``WARM_SECONDS`` (60,
  the soak's "first minute") with the same mix and concurrency, and at the end (goal: within
  10 %). A minute, because DuckDB's own native memory settles only after some 20,000 queries:
  the malloc heaps of the threads that run it grow to their working sets and then stay (seen
  with no server at all, the bench SQL in a loop on one thread: 124 → 158 MiB over 20,000
  queries, then flat; in the server under load Python's traced memory stays constant meanwhile,
  and ``malloc_trim`` gives back about 2 MiB). A 10 s warm-up ended before
  that and read the settling as growth.

Run: ``python -m bench.operations`` (or ``make bench``).
"""

import asyncio
import contextlib
import http.client
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb

from bench import http as bench_http
from bench.answer import BENCH_QUESTION, example_dir
from bench.serving import plan
from bench.table import Figure, render, short
from sutura.boundary.example import write_example
from sutura.core.nouns.question import decode_question_json

CALLS = 20 if short() else 200
WARM_UP = 5 if short() else 20
PAIRS = 2 if short() else 12
BURSTS = 1 if short() else 10
BURST = 0.2 if short() else 0.5
LOAD_SECONDS = 2.0 if short() else float(os.environ.get("BENCH_LOAD_SECONDS", "60"))
WARM_SECONDS = 1.0 if short() else float(os.environ.get("BENCH_WARM_SECONDS", "60"))
METRICS_TOKEN = "bench-metrics-token-0123456789"
MCP_HEADERS = {
    "Authorization": f"Bearer {bench_http.TOKEN}",
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}


@contextlib.contextmanager
def _served(config: Path, **settings: str) -> Iterator[tuple[tuple[str, int], int]]:
    """``sutura serve`` over ``config`` with ``settings`` as ``SUTURA__…`` variables."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SUTURA")}
    environ |= {**settings, "SUTURA__SECURITY__ACCESS_TOKEN": bench_http.TOKEN}
    with bench_http.serving_directory(config, environ) as (address, process):
        yield address, process.pid


def _call(request_id: int) -> bytes:
    params = {"name": "ask_metric", "arguments": json.loads(BENCH_QUESTION)}
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    return json.dumps(message).encode()


def _mcp_warm() -> tuple[list[float], list[float]]:
    """``/mcp`` calls and raw DuckDB runs of the same SQL, interleaved call by call."""
    config = example_dir()
    compiled = plan(config, decode_question_json(BENCH_QUESTION).unwrap())[1]
    raw = duckdb.connect(str(config / "data" / "example.duckdb"), read_only=True)
    ours: list[float] = []
    direct: list[float] = []
    with _served(config) as (address, _pid):
        connection = http.client.HTTPConnection(*address, timeout=30)

        def call(request_id: int) -> None:
            connection.request("POST", "/mcp", _call(request_id), MCP_HEADERS)
            response = connection.getresponse()
            body = json.loads(response.read())
            if response.status != 200 or body["result"].get("isError"):
                raise RuntimeError(f"/mcp did not answer: {response.status} {body}")

        for request_id in range(WARM_UP):
            call(request_id)
            raw.execute(compiled.sql, compiled.params).fetchall()
        for request_id in range(1000, 1000 + CALLS):
            started = time.perf_counter()
            raw.execute(compiled.sql, compiled.params).fetchall()
            direct.append(time.perf_counter() - started)
            started = time.perf_counter()
            call(request_id)
            ours.append(time.perf_counter() - started)
        connection.close()
    raw.close()
    return ours, direct


def _query(address: tuple[str, int], request_id: bool) -> bytes:
    payload = bench_http._encoded(bench_http.QUERY, *address)
    return (
        payload.replace(b"\r\n\r\n", b"\r\nX-Request-Id: bench-1\r\n\r\n", 1)
        if request_id
        else payload
    )


def _mcp_payload(address: tuple[str, int]) -> bytes:
    body = _call(1)
    head = "".join(f"{k}: {v}\r\n" for k, v in MCP_HEADERS.items())
    start = f"POST /mcp HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\n{head}"
    return f"{start}Content-Length: {len(body)}\r\n\r\n".encode() + body


def _rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    found = re.search(r"^VmRSS:\s+(\d+) kB$", status, re.M)
    return int(found.group(1)) if found else 0


@contextlib.contextmanager
def _cores_apart(servers: list[int]) -> Iterator[None]:
    """Every thread of the ``servers`` processes on the last core, this client on the first,
    for the block; nothing is pinned where there is one core or no affinity to set."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(cores) < 2:
        yield
        return
    for pid in servers:  # threads started later inherit it from the thread that starts them
        for task in Path(f"/proc/{pid}/task").iterdir():
            os.sched_setaffinity(int(task.name), {cores[-1]})
    os.sched_setaffinity(0, {cores[0]})
    try:
        yield
    finally:
        os.sched_setaffinity(0, set(cores))


def _operating_cost(directory: Path) -> tuple[bench_http.Tally, bench_http.Tally]:
    """Answers, their time and the server's CPU at 16 concurrent: with metrics, audit and
    request ids, and plain.

    ``PAIRS`` pairs of servers, each started afresh (which starts, and goes first, alternating),
    taking turns in ``BURSTS`` bursts of ``BURST`` seconds."""
    limits = {"SUTURA__SERVER__MAX_CONCURRENT_QUERIES": "32"}
    instrumented = {
        **limits,
        "SUTURA__SECURITY__METRICS_TOKEN": METRICS_TOKEN,
        "SUTURA__AUDIT__PATH": str(directory / "audit.jsonl"),
    }
    on, plain = bench_http.Tally(0.0, cpu_seconds=0.0), bench_http.Tally(0.0, cpu_seconds=0.0)
    for pair in range(PAIRS):
        starts = [(instrumented, True, on), (limits, False, plain)]
        with contextlib.ExitStack() as stack:
            servers = [
                (*stack.enter_context(_served(directory, **settings)), with_ids, tally)
                for settings, with_ids, tally in (starts if pair % 2 else starts[::-1])
            ]
            warm = [(a, _query(a, ids), bench_http.Tally(0.0)) for a, _, ids, _ in servers]
            bench_http.drive_in_bursts(warm, 4, 0.5, 2)
            pids = [pid for _, pid, _, _ in servers]
            with _cores_apart(pids):
                before = [bench_http.process_cpu_seconds(pid) or 0.0 for pid in pids]
                targets = [(a, _query(a, ids), tally) for a, _, ids, tally in servers]
                bench_http.drive_in_bursts(targets, 16, BURST, BURSTS)
                after = [bench_http.process_cpu_seconds(pid) or 0.0 for pid in pids]
            for (_, _, _, tally), spent in zip(
                servers, map(float.__sub__, after, before), strict=True
            ):
                tally.cpu_seconds = (tally.cpu_seconds or 0.0) + spent
    return on, plain


def _load(directory: Path) -> tuple[bench_http.Tally, bench_http.Tally, int, int]:
    """Half the connections on ``/mcp``, half on ``/v1/query``; RSS after warm-up and at the end."""
    settings = {
        "SUTURA__SECURITY__METRICS_TOKEN": METRICS_TOKEN,
        "SUTURA__AUDIT__PATH": str(directory / "load-audit.jsonl"),
    }
    with _served(directory, **settings) as (address, pid):

        async def run(seconds: float, query: bench_http.Tally, mcp: bench_http.Tally) -> None:
            until = time.perf_counter() + seconds
            workers = [
                bench_http._worker(address, _query(address, True), until, query) for _ in range(32)
            ]
            workers += [
                bench_http._worker(address, _mcp_payload(address), until, mcp) for _ in range(32)
            ]
            await asyncio.gather(*workers)

        # Warm-up: the same mix and concurrency as the load, so "after warm-up" has met both
        # endpoints (the first /mcp calls build what every later one reuses).
        warm = WARM_SECONDS
        asyncio.run(run(warm, bench_http.Tally(warm), bench_http.Tally(warm)))
        before = _rss_kib(pid)
        query, mcp = bench_http.Tally(LOAD_SECONDS), bench_http.Tally(LOAD_SECONDS)
        asyncio.run(run(LOAD_SECONDS, query, mcp))
        after = _rss_kib(pid)
    return query, mcp, before, after


def _errors(tally: bench_http.Tally) -> int:
    """Anything but 200, 503 with Retry-After, and 429."""
    other = sum(n for status, n in tally.statuses.items() if status not in (200, 503, 429))
    return sum(tally.failures.values()) + other + (tally.statuses[503] - tally.retry_after)


def measure() -> list[Figure]:
    """Every row of this section, each beside its reference in this run."""
    ours, raw = _mcp_warm()
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary) / "example"
        write_example(directory)
        on, off = _operating_cost(directory)
        query, mcp, before, after = _load(directory)
    ms = 1e3
    answers = mcp.statuses[200] + query.statuses[200]
    responses = len(mcp.latencies) + len(query.latencies)
    return [
        Figure("mcp", "/mcp warm ask_metric, 1M rows (median of 200)", statistics.median(ours) * ms,
               statistics.median(raw) * ms, "ms", "≤ 1.3×", "raw DuckDB, same SQL"),
        Figure("http", "POST /v1/query c=16 answers/s, metrics+audit+ids on", on.answer_rate,
               off.answer_rate, "req/s", "≥ 0.97×", "the same, all off, in turns"),
        Figure("http", "server CPU per answer, metrics+audit+ids on", on.cpu_ms_per_answer or 0.0,
               off.cpu_ms_per_answer or 0.0, "ms", "breakdown", "the same, all off, in turns"),
        Figure("load", f"{LOAD_SECONDS:.0f} s c=64 (/mcp + /v1/query): 200s", answers,
               responses, "count", "report", "responses"),
        Figure("load", "errors (not 200, 503+Retry-After, 429)", _errors(mcp) + _errors(query),
               responses or 1, "count", "0", "responses"),
        Figure("load", "server RSS at the end", after / 1024, before / 1024, "MiB", "≤ 1.10×",
               "RSS after warm-up"),
    ]  # fmt: skip


def main() -> int:
    """Measure and print this section's rows."""
    print(render(measure()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
