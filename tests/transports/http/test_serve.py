"""``sutura serve`` as operators run it: a real process on a free loopback port."""

import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx
import pytest
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

from sutura.transports.http.switching import SWITCH_INTERVAL_SECONDS
from tests.transports.http.deployments import AUTH, METRIC_PROSE, QUESTION, write_deployment

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SUTURA = Path(sys.executable).with_name("sutura")


def _environment(config: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SUTURA")}
    return {**base, "SUTURA_CONFIG_DIR": str(config), **extra}


@asynccontextmanager
async def serving(
    config: Path, command: list[str] | None = None
) -> AsyncIterator[tuple[Process, str, BufferedByteReceiveStream]]:
    """``sutura serve --port 0`` under ``config`` (or ``command``, which runs it); the process,
    the URL it announced and the rest of its stderr."""
    if command is None:
        command = [str(SUTURA), "serve", "--host", "127.0.0.1", "--port", "0"]
    process = await anyio.open_process(command, env=_environment(config))
    try:
        assert process.stderr is not None
        stderr = BufferedByteReceiveStream(process.stderr)
        with anyio.fail_after(30):
            line = await stderr.receive_until(b"\n", 4096)
        found = re.search(rb"http://127\.0\.0\.1:[0-9]+", line)
        assert found is not None, line
        yield process, found.group().decode(), stderr
    finally:
        if process.returncode is None:
            process.kill()
        with anyio.fail_after(10):
            await process.wait()


async def test_sutura_serve_answers_over_a_real_socket_and_stops_on_sigterm(
    tmp_path: Path,
) -> None:
    config = write_deployment(tmp_path, prose="omitted")
    async with serving(config) as (process, url, _), httpx.AsyncClient(base_url=url) as http:
        with anyio.fail_after(20):
            health = await http.get("/health")
            catalog = await http.get("/v1/catalog", headers=AUTH)
            answer = await http.post("/v1/query", json=QUESTION, headers=AUTH)
            anonymous = await http.post("/v1/query", json=QUESTION)
            document = await http.get("/openapi.json")
        process.send_signal(signal.SIGTERM)
        with anyio.fail_after(15):
            code = await process.wait()
    assert health.json() == {"status": "ok"}
    assert catalog.json()["catalog_prose"] == "omitted"
    assert METRIC_PROSE not in catalog.text
    assert catalog.headers["cache-control"] == "private, no-store"
    assert answer.status_code == 200
    assert answer.json()["outcome"] == "answer"
    assert anonymous.status_code == 401
    assert "/v1/query" in document.json()["paths"]
    assert code == 0


async def _refused_start(config: Path, *arguments: str, **extra: str) -> str:
    with anyio.fail_after(30):
        result = await anyio.run_process(
            [str(SUTURA), "serve", *arguments], env=_environment(config, **extra), check=False
        )
    assert result.returncode == 1
    assert result.stdout == b""
    return result.stderr.decode()


async def test_sutura_serve_refuses_a_public_bind_without_a_token(tmp_path: Path) -> None:
    config = write_deployment(tmp_path, token=None)
    stderr = await _refused_start(config, "--host", "0.0.0.0", "--port", "0")
    assert "server.host" in stderr
    assert "security.access_token" in stderr


async def test_sutura_serve_refuses_production_without_a_token(tmp_path: Path) -> None:
    config = write_deployment(tmp_path, token=None)
    stderr = await _refused_start(config, "--port", "0", SUTURA_ENVIRONMENT="production")
    assert "security.access_token" in stderr
    assert "production" in stderr


async def test_sutura_serve_logs_json_lines_each_naming_its_request(tmp_path: Path) -> None:
    settings = "logging:\n  json: true\naudit:\n  path: audit.jsonl\n"
    config = write_deployment(tmp_path, settings=settings)
    headers = {**AUTH, "X-Request-Id": "json-log-1"}
    async with serving(config) as (process, url, stderr), httpx.AsyncClient(base_url=url) as http:
        with anyio.fail_after(20):
            answer = await http.post("/v1/query", json=QUESTION, headers=headers)
        process.send_signal(signal.SIGTERM)
        with anyio.fail_after(15):
            rest = b"".join([chunk async for chunk in stderr])
            await process.wait()
    assert answer.headers["x-request-id"] == "json-log-1"
    lines = [json.loads(line) for line in rest.decode("utf-8").split("\n") if line]
    (audit,) = [line for line in lines if line["logger"] == "sutura.audit"]
    assert audit["request_id"] == "json-log-1" and audit["level"] == "INFO"
    assert json.loads(audit["message"])["outcome"] == "answer"
    (record,) = [json.loads(line) for line in (config / "audit.jsonl").read_text().splitlines()]
    assert record["request_id"] == "json-log-1"


async def _read_until(stderr: BufferedByteReceiveStream, marker: bytes, seen: bytes = b"") -> bytes:
    """``seen`` and what the server writes to stderr next, until ``marker`` is in it (the
    caller bounds the wait)."""
    while marker not in seen:
        seen += await stderr.receive(65536)
    return seen


def _line_after(seen: bytes, marker: bytes) -> bytes:
    """The rest of the first line that ``marker`` starts in ``seen``."""
    return seen.split(marker, 1)[1].split(b"\n", 1)[0]


SERVES_THEN_SHOWS_ITS_COLLECTOR = """
import gc, json, sys
from sutura.root import main
code = main(["serve", "--host", "127.0.0.1", "--port", "0"])
sys.stderr.write("GC " + json.dumps([gc.isenabled(), gc.get_freeze_count()]) + "\\n")
sys.exit(code)
"""


async def test_sutura_serve_collects_garbage_once_bound_and_skips_what_composing_built(
    tmp_path: Path,
) -> None:
    config = write_deployment(tmp_path, prose="omitted")
    command = [sys.executable, "-c", SERVES_THEN_SHOWS_ITS_COLLECTOR]
    async with serving(config, command) as (process, url, stderr):
        async with httpx.AsyncClient(base_url=url) as http:
            with anyio.fail_after(20):
                answer = await http.post("/v1/query", json=QUESTION, headers=AUTH)
        process.send_signal(signal.SIGTERM)
        with anyio.fail_after(15):
            rest = await _read_until(stderr, b"GC ")
            await process.wait()
    assert answer.json()["outcome"] == "answer"
    collecting, frozen = json.loads(_line_after(rest, b"GC "))
    assert collecting
    assert frozen > 10_000  # the framework, the compiler and the catalog, at least


SERVES_THEN_SHOWS_ITS_SWITCH_INTERVAL = """
import sys, threading, time
from sutura.root import main

def watch():
    seen = sys.getswitchinterval()
    while True:
        time.sleep(0.005)
        if (now := sys.getswitchinterval()) != seen:
            seen = now
            sys.stderr.write(f"SWITCH {now!r}\\n")
            sys.stderr.flush()

threading.Thread(target=watch, daemon=True).start()
code = main(["serve", "--host", "127.0.0.1", "--port", "0"])
sys.stderr.write(f"AFTER {sys.getswitchinterval()!r}\\n")
sys.exit(code)
"""


async def test_sutura_serve_lets_statements_take_the_interpreter_lock_within_a_tenth_of_a_ms(
    tmp_path: Path,
) -> None:
    """While serving, a worker thread running a statement waits at most 0.1 ms for the lock
    the event loop holds (http/switching.py); the interval is Python's own again after."""
    config = write_deployment(tmp_path, prose="omitted")
    command = [sys.executable, "-c", SERVES_THEN_SHOWS_ITS_SWITCH_INTERVAL]
    async with serving(config, command) as (process, url, stderr):
        async with httpx.AsyncClient(base_url=url) as http:
            with anyio.fail_after(20):
                answer = await http.post("/v1/query", json=QUESTION, headers=AUTH)
        with anyio.fail_after(15):
            seen = await _read_until(stderr, b"SWITCH ")
        process.send_signal(signal.SIGTERM)
        with anyio.fail_after(15):
            seen = await _read_until(stderr, b"AFTER ", seen)
            await process.wait()
    assert answer.json()["outcome"] == "answer"
    serving_interval = float(_line_after(seen, b"SWITCH "))
    after = float(_line_after(seen, b"AFTER "))
    # Python keeps the interval in whole microseconds.
    assert round(serving_interval * 1e6) == round(SWITCH_INTERVAL_SECONDS * 1e6) == 100
    assert round(after * 1e6) == 5000  # Python's default, as the process started with
