"""Connection bounds on a real ``sutura serve``: a request's headers have a clock, the
connections held are capped below the descriptor limit, and the log stays small — so idle and
half-written connections cannot take ``/health`` or a real question away."""

import os
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import httpx
import pytest
from anyio.abc import Process, SocketStream
from anyio.streams.buffered import BufferedByteReceiveStream

from sutura.transports.http.connections import head_limit
from tests.transports.http.deployments import AUTH, QUESTION, TOKEN, write_deployment

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SUTURA = Path(sys.executable).with_name("sutura")
DESCRIPTORS = 256
"""The server's descriptor limit: the cap is lowered to fit it (256 - 160 = 96 connections)."""
FLOOD = 400
HEADER_SECONDS = 2
HEAD_BYTES = head_limit(len(TOKEN))
"""The server's head limit: 16 KiB, plus its static token."""
_LIMITED = (
    "import os, resource, sys; resource.setrlimit(resource.RLIMIT_NOFILE, ({n}, {n})); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)


@pytest.fixture(scope="module")
async def server(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[Process, str, Path]]:
    """``sutura serve`` limited to :data:`DESCRIPTORS` descriptors; its stderr goes to a file."""
    settings = f"server:\n  header_timeout_seconds: {HEADER_SECONDS}\n"
    config = write_deployment(tmp_path_factory.mktemp("connections"), settings=settings)
    log = config / "stderr.log"
    base = {k: v for k, v in os.environ.items() if not k.startswith("SUTURA")}
    command = [sys.executable, "-c", _LIMITED.format(n=DESCRIPTORS), str(SUTURA), "serve"]
    command += ["--host", "127.0.0.1", "--port", "0"]
    with log.open("wb") as stderr:
        process = await anyio.open_process(
            command, env={**base, "SUTURA_CONFIG_DIR": str(config)}, stderr=stderr
        )
    try:
        with anyio.fail_after(30):
            while not (found := re.search(r"http://127\.0\.0\.1:[0-9]+", log.read_text())):
                await anyio.sleep(0.05)
        yield process, found.group(), log
    finally:
        process.kill()
        with anyio.fail_after(10):
            await process.wait()


async def _connect(url: str) -> SocketStream:
    host, port = url.removeprefix("http://").split(":")
    return await anyio.connect_tcp(host, int(port))


async def _closed_by_server(stream: SocketStream) -> bool:
    try:
        return await BufferedByteReceiveStream(stream).receive(1) == b""
    except (anyio.EndOfStream, anyio.BrokenResourceError, ConnectionResetError):
        return True


async def test_a_connection_whose_headers_never_finish_is_closed_on_time(
    server: tuple[Process, str, Path],
) -> None:
    _, url, _ = server
    idle = await _connect(url)
    partial = await _connect(url)
    await partial.send(b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
    started = anyio.current_time()
    async with idle, partial:
        with anyio.fail_after(HEADER_SECONDS + 8):
            assert await _closed_by_server(idle)
            assert await _closed_by_server(partial)
    assert anyio.current_time() - started >= HEADER_SECONDS - 0.5
    async with httpx.AsyncClient(base_url=url) as http:
        with anyio.fail_after(10):
            assert (await http.get("/health")).status_code == 200


async def test_a_kept_alive_connection_outlives_the_header_clock_while_it_is_used(
    server: tuple[Process, str, Path],
) -> None:
    _, url, _ = server
    request = b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
    async with await _connect(url) as stream:
        reader = BufferedByteReceiveStream(stream)
        with anyio.fail_after(HEADER_SECONDS * 4 + 10):
            for _ in range(HEADER_SECONDS * 3):
                await stream.send(request)
                head = await reader.receive_until(b"\r\n\r\n", 4096)
                length = int(re.search(rb"content-length: *([0-9]+)", head, re.I)[1])  # type: ignore[index]
                await reader.receive_exactly(length)
                assert head.startswith(b"HTTP/1.1 200"), head
                await anyio.sleep(0.5)


async def test_a_flood_of_idle_connections_past_the_descriptor_limit_leaves_it_answering(
    server: tuple[Process, str, Path],
) -> None:
    process, url, log = server
    flood: list[SocketStream] = []
    try:
        with anyio.fail_after(30):
            for _ in range(FLOOD):
                flood.append(await _connect(url))  # noqa: PERF401 (one at a time, awaited)
        async with httpx.AsyncClient(base_url=url) as http:
            with anyio.fail_after(10):
                health = await http.get("/health")
                answer = await http.post("/v1/query", json=QUESTION, headers=AUTH)
    finally:
        for stream in flood:
            await stream.aclose()
    assert health.status_code == 200
    assert answer.status_code == 200
    assert process.returncode is None
    assert log.stat().st_size < 16 * 1024, log.read_text()[-2000:]


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/health", {"X-Big": "a" * (HEAD_BYTES + 1)}),
        ("/health", {f"X-{n}": "b" * 1000 for n in range(20)}),
        ("/health?" + "q" * HEAD_BYTES, {}),
    ],
    ids=["one-header", "many-headers", "long-target"],
)
async def test_a_request_head_past_its_bound_is_refused_and_the_connection_closed(
    server: tuple[Process, str, Path], path: str, headers: dict[str, str]
) -> None:
    _, url, _ = server
    lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    head = f"GET {path} HTTP/1.1\r\nHost: localhost\r\n{lines}\r\n"
    await _refused_and_closed(url, head.encode())


async def _refused_and_closed(url: str, request: bytes) -> None:
    """``request`` is answered ``400`` by the parser, and the connection is closed."""
    async with await _connect(url) as stream:
        await stream.send(request)
        reader = BufferedByteReceiveStream(stream)
        with anyio.fail_after(10):
            assert await reader.receive_until(b"\r\n", 4096) == b"HTTP/1.1 400 Bad Request"
            await reader.receive_until(b"\r\n\r\n", 4096)
            while await _closed_by_server(stream) is False:
                pass


async def test_a_request_head_within_its_bound_is_answered(
    server: tuple[Process, str, Path],
) -> None:
    _, url, _ = server
    within = {f"X-{n}": "c" * 1000 for n in range(14)}  # about 14 KiB of headers
    async with httpx.AsyncClient(base_url=url) as http:
        with anyio.fail_after(10):
            assert (await http.get("/health", headers=within)).status_code == 200
            answer = await http.post("/v1/query", json=QUESTION, headers={**AUTH, **within})
    assert answer.status_code == 200


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /health HTTP/1.1\nHost: localhost\n\n",
        b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Folded: a\r\n b\r\n\r\n",
        b"POST /v1/query HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        b"POST /v1/query HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n"
        b"Content-Length: 3\r\n\r\n{}",
    ],
    ids=["bare-lf", "folded-header", "length-and-chunked", "two-lengths"],
)
async def test_a_request_outside_strict_http_1_1_is_refused_and_the_connection_closed(
    server: tuple[Process, str, Path], request_bytes: bytes
) -> None:
    _, url, _ = server
    await _refused_and_closed(url, request_bytes)
