"""HTTP throughput and latency: ``POST /v1/query`` (a one-row answer) against ``sutura serve``.

Run with ``python -m bench.http`` (not as a file path: the module's name would shadow the
standard library's ``http``). It writes the example catalog to a temporary directory, starts
``sutura serve`` there on a free loopback port as a subprocess, and drives it from this process
with a small keep-alive HTTP/1.1 client over raw sockets at each concurrency for a bounded time.
Goals at concurrency 16 on a 2-core machine: ≥ 1,000 req/s, p99 ≤ 50 ms, no errors. The last
run goes past ``server.max_concurrent_queries`` on purpose: overload must be answered at once
with ``503`` and ``Retry-After``, never with timeouts.
"""

import asyncio
import contextlib
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

TOKEN = "bench-token-0123456789abcdef"
QUESTION = (
    b'{"metrics": ["revenue"], "grain": "year",'
    b' "range": {"start": "2024-01-01", "end": "2025-01-01"}}'
)
SECONDS = float(os.environ.get("BENCH_HTTP_SECONDS", "5"))
RUNS = ((1, "goal: a baseline"), (16, "goal: ≥ 1000 req/s, p99 ≤ 50 ms"), (64, "overload"))
MAX_CONCURRENT = 32
REQUEST_TIMEOUT = 10.0


@dataclass
class Tally:
    """What one run saw."""

    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    retry_after: int = 0
    errors: Counter[str] = field(default_factory=Counter)


def _request(host: str, port: int) -> bytes:
    head = (
        f"POST /v1/query HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {TOKEN}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(QUESTION)}\r\n\r\n"
    )
    return head.encode("ascii") + QUESTION


async def _response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    """Read one response; its status and headers (the body is read and dropped)."""
    status = int((await reader.readuntil(b"\r\n")).split(b" ", 2)[1])
    headers: dict[str, str] = {}
    while (line := await reader.readuntil(b"\r\n")) != b"\r\n":
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    await reader.readexactly(int(headers.get("content-length", "0")))
    return status, headers


async def _worker(host: str, port: int, until: float, tally: Tally) -> None:
    request = _request(host, port)
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while time.perf_counter() < until:
            started = time.perf_counter()
            writer.write(request)
            try:
                status, headers = await asyncio.wait_for(_response(reader), REQUEST_TIMEOUT)
            except (TimeoutError, asyncio.IncompleteReadError, ConnectionError) as err:
                tally.errors[type(err).__name__] += 1
                writer.close()
                reader, writer = await asyncio.open_connection(host, port)
                continue
            tally.latencies.append(time.perf_counter() - started)
            tally.statuses[status] += 1
            tally.retry_after += status == 503 and "retry-after" in headers
            if headers.get("connection") == "close":
                writer.close()
                reader, writer = await asyncio.open_connection(host, port)
    finally:
        writer.close()


async def _drive(host: str, port: int, concurrency: int, seconds: float) -> Tally:
    tally = Tally()
    until = time.perf_counter() + seconds
    await asyncio.gather(*(_worker(host, port, until, tally) for _ in range(concurrency)))
    return tally


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def _row(concurrency: int, note: str, tally: Tally, seconds: float) -> str:
    answered = tally.statuses[200]
    at_capacity = tally.statuses[503]
    other = sum(n for s, n in tally.statuses.items() if s not in (200, 503))
    errors = sum(tally.errors.values()) + other
    cells = (
        f"{concurrency:>5}",
        f"{len(tally.latencies) / seconds:>9.0f}",
        f"{_percentile(tally.latencies, 0.50) * 1e3:>8.2f}",
        f"{_percentile(tally.latencies, 0.99) * 1e3:>8.2f}",
        f"{answered:>8}",
        f"{at_capacity:>6}",
        f"{tally.retry_after:>11}",
        f"{errors:>6}",
    )
    return "  ".join(cells) + f"  {note}"


def _write_settings(directory: Path) -> None:
    from sutura.boundary.example import write_example

    write_example(directory)
    settings = (directory / "base.yaml").read_text(encoding="utf-8")
    settings += (
        f"server:\n  max_concurrent_queries: {MAX_CONCURRENT}\nsecurity:\n  access_token: {TOKEN}\n"
    )
    (directory / "base.yaml").write_text(settings, encoding="utf-8")


@contextlib.contextmanager
def served(directory: Path) -> Iterator[tuple[str, int]]:
    """``sutura serve`` on a free loopback port; its host and port."""
    sutura = str(Path(sys.executable).with_name("sutura"))
    command = [sutura, "serve", "--host", "127.0.0.1", "--port", "0"]
    environ = {**os.environ, "SUTURA_CONFIG_DIR": str(directory)}
    process = subprocess.Popen(command, env=environ, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        found = re.search(r"http://([0-9.]+):([0-9]+)", line)
        if found is None:
            raise RuntimeError(f"sutura serve did not start: {line}{process.stderr.read()}")
        yield found.group(1), int(found.group(2))
    finally:
        process.terminate()
        process.wait(timeout=10)


def main() -> int:
    """Start the server, drive it at each concurrency, print the table."""
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary) / "example"
        _write_settings(directory)
        return _measure(directory)


def _measure(directory: Path) -> int:
    with served(directory) as address:
        print(
            f"POST /v1/query, one-row answer, {SECONDS:.0f} s per run, keep-alive, "
            f"server.max_concurrent_queries = {MAX_CONCURRENT}",
            file=sys.stderr,
        )
        asyncio.run(_drive(*address, 4, 1.0))  # warm-up: imports, compile cache, DuckDB
        header = "conc.      req/s   p50 ms   p99 ms  answers    503  Retry-After  errors"
        lines = [header, "-" * len(header)]
        for concurrency, note in RUNS:
            tally = asyncio.run(_drive(*address, concurrency, SECONDS))
            lines.append(_row(concurrency, note, tally, SECONDS))
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
