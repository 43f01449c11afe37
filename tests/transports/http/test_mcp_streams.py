"""``GET /mcp`` on a real ``sutura serve``: a stateless server offers no server-to-client stream,
so every ``GET`` (and ``DELETE``) is answered ``405`` at once, in sutura's envelope, and no
number of them holds a connection: 300 from one token leave ``/health`` and a real question
answering (``server.max_connections`` is 256)."""

import json
import re
from collections.abc import AsyncIterator
from typing import Final

import anyio
import httpx
import pytest
from anyio.abc import SocketStream
from anyio.streams.buffered import BufferedByteReceiveStream

from tests.transports.http.deployments import AUTH, QUESTION, TOKEN, write_deployment
from tests.transports.http.served import serving

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

STREAMS: Final = 300
"""More than ``server.max_connections`` (256 by default)."""
ANSWER_SECONDS: Final = 10.0


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop for the module: its tests share one server process."""
    return "asyncio"


@pytest.fixture(scope="module")
async def url(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    """``sutura serve`` over the test deployment, with its default connection cap."""
    async with serving(write_deployment(tmp_path_factory.mktemp("streams"))) as (host, port):
        yield f"http://{host}:{port}"


def _request(method: str) -> bytes:
    return (
        f"{method} /mcp HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {TOKEN}\r\n"
        "Accept: text/event-stream\r\n\r\n"
    ).encode()


CLOSED: Final = (b"closed by the server", b"")
_GONE: Final = (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError, OSError)


async def _answer(stream: SocketStream) -> tuple[bytes, bytes]:
    """The status line and body of one response (the connection stays open), or
    :data:`CLOSED`."""
    reader = BufferedByteReceiveStream(stream)
    try:
        head = await reader.receive_until(b"\r\n\r\n", 16 * 1024)
        length = re.search(rb"content-length: *([0-9]+)", head, re.I)
        body = await reader.receive_exactly(int(length[1])) if length else b""
    except _GONE:
        return CLOSED
    return head.split(b"\r\n", 1)[0], body


async def _status(http: httpx.AsyncClient, method: str, path: str, **kwargs: object) -> object:
    try:
        return (await http.request(method, path, **kwargs)).status_code  # type: ignore[arg-type]
    except httpx.TransportError as error:
        return type(error).__name__


async def test_streams_are_refused_at_once_and_three_hundred_leave_the_server_answering(
    url: str,
) -> None:
    host, port = url.removeprefix("http://").split(":")
    held: list[SocketStream] = []
    answers: list[tuple[bytes, bytes]] = []
    try:
        with anyio.fail_after(60):
            for i in range(STREAMS):
                stream = await anyio.connect_tcp(host, int(port))
                held.append(stream)
                with anyio.fail_after(ANSWER_SECONDS):
                    await stream.send(_request("DELETE" if i % 10 == 9 else "GET"))
                    answers.append(await _answer(stream))
        async with httpx.AsyncClient(base_url=url) as http:
            with anyio.fail_after(ANSWER_SECONDS):
                health = await _status(http, "GET", "/health")
                answer = await _status(http, "POST", "/v1/query", json=QUESTION, headers=AUTH)
    finally:
        for stream in held:
            await stream.aclose()
    assert (health, answer) == (200, 200)
    assert {status for status, _ in answers} == {b"HTTP/1.1 405 Method Not Allowed"}
    assert {json.loads(body)["code"] for _, body in answers} == {"method_not_allowed"}
