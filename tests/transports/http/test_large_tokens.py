"""Large tokens on a real ``sutura serve``: the HTTP parser's head limit admits every token
``security.inbound.max_token_bytes`` admits (65,536 here, the most it may be set to), and a
longer one — whatever its length, finished or still arriving — gets the documented ``401``
with its challenge, never the parser's bare ``400``."""

import re
from collections.abc import AsyncIterator
from contextlib import suppress
from pathlib import Path
from typing import Final

import anyio
import pytest
from anyio.abc import SocketStream
from anyio.streams.buffered import BufferedByteReceiveStream

from sutura.transports.http.connections import MAX_HEAD_BYTES
from sutura.transports.http.wire import FailureCode, encode_wire, failure_body
from tests.transports.http.deployments import TOKEN, write_deployment
from tests.transports.http.inbound_deployment import write_multi_user
from tests.transports.http.served import serving
from tests.transports.http.tokens import KeyPair, claims, mint

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

MAX_TOKEN: Final = 65536
PAIR: Final = KeyPair("k1")
CHALLENGE: Final = (
    b'www-authenticate: Bearer resource_metadata="'
    b'https://sutura.test/.well-known/oauth-protected-resource"'
)
UNAUTHORIZED: Final = encode_wire(failure_body(FailureCode.UNAUTHORIZED))


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop for the module: its tests share the server processes."""
    return "asyncio"


@pytest.fixture(scope="module")
async def multi_user(
    tmp_path_factory: pytest.TempPathFactory, example_dir: Path
) -> AsyncIterator[tuple[str, int]]:
    """A multi-user deployment reading tokens of up to 65,536 bytes."""
    inbound = f"    max_token_bytes: {MAX_TOKEN}\n"
    config = write_multi_user(tmp_path_factory.mktemp("tokens"), example_dir, PAIR, inbound=inbound)
    async with serving(config) as address:
        yield address


@pytest.fixture(scope="module")
async def single_user(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[tuple[str, int]]:
    """A single-user deployment with a static token."""
    async with serving(write_deployment(tmp_path_factory.mktemp("static"))) as address:
        yield address


def _token_of(size: int) -> str:
    """A good token signed by the issuer, padded to within a few characters of ``size``."""
    bare = len(mint(PAIR, claims(padding="")))
    token = mint(PAIR, claims(padding="x" * ((size - bare) * 3 // 4 - 3)))
    assert size - 8 <= len(token) <= size
    return token


def _head(value: bytes, header: bytes = b"Authorization") -> bytes:
    return b"GET /v1/catalog HTTP/1.1\r\nHost: localhost\r\n" + header + b": " + value + b"\r\n\r\n"


async def _answer(stream: SocketStream) -> tuple[bytes, bytes]:
    reader = BufferedByteReceiveStream(stream)
    head = await reader.receive_until(b"\r\n\r\n", 16 * 1024)
    length = re.search(rb"content-length: *([0-9]+)", head, re.I)
    body = await reader.receive_exactly(int(length[1])) if length else b""
    return head, body


async def _ask(address: tuple[str, int], request: bytes) -> tuple[bytes, bytes]:
    with anyio.fail_after(20):
        async with await anyio.connect_tcp(*address) as stream:
            await stream.send(request)
            return await _answer(stream)


def _is_unauthorized(head: bytes, body: bytes, challenge: bytes = CHALLENGE) -> bool:
    return head.startswith(b"HTTP/1.1 401 ") and challenge in head and body == UNAUTHORIZED


async def test_a_good_token_as_long_as_max_token_bytes_allows_is_read_and_accepted(
    multi_user: tuple[str, int],
) -> None:
    token = _token_of(MAX_TOKEN)
    assert len(token) <= MAX_TOKEN and len(token) > MAX_HEAD_BYTES * 3
    head, _ = await _ask(multi_user, _head(b"Bearer " + token.encode()))
    assert head.startswith(b"HTTP/1.1 200 "), head


@pytest.mark.parametrize("size", [MAX_TOKEN + 1, MAX_TOKEN + MAX_HEAD_BYTES, 4 * MAX_TOKEN])
async def test_a_longer_token_of_any_length_is_the_documented_401(
    multi_user: tuple[str, int], size: int
) -> None:
    head, body = await _ask(multi_user, _head(b"Bearer " + b"a" * size))
    assert _is_unauthorized(head, body), head


STILL_ARRIVING: Final = 20
"""Tokens streamed at once: each must read its refusal before the connection is closed."""


async def _streamed_token(address: tuple[str, int]) -> tuple[bytes, bytes, int]:
    """A token whose line never ends, sent until the server answers: its answer, and how much
    was sent."""
    sent = 0
    answered: list[tuple[bytes, bytes]] = []

    async def read(stream: SocketStream, scope: anyio.CancelScope) -> None:
        answered.append(await _answer(stream))
        scope.cancel()

    async with await anyio.connect_tcp(*address) as stream, anyio.create_task_group() as tg:
        tg.start_soon(read, stream, tg.cancel_scope)
        await stream.send(b"GET /v1/catalog HTTP/1.1\r\nHost: localhost\r\n")
        await stream.send(b"Authorization: Bearer ")
        with suppress(anyio.BrokenResourceError, OSError):
            while sent < 64 * 1024 * 1024:  # the line never ends; the server stops it
                await stream.send(b"a" * 65536)
                sent += 65536
                await anyio.sleep(0)
        await anyio.sleep_forever()  # until the answer is read
    ((head, body),) = answered
    return head, body, sent


async def test_tokens_still_arriving_are_refused_once_past_the_limit_not_held(
    multi_user: tuple[str, int],
) -> None:
    answers: list[tuple[bytes, bytes, int]] = []

    async def one() -> None:
        answers.append(await _streamed_token(multi_user))

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            for _ in range(STILL_ARRIVING):
                tg.start_soon(one)
    assert all(_is_unauthorized(head, body) for head, body, _ in answers), answers
    assert max(sent for _, _, sent in answers) < 16 * 1024 * 1024


async def test_another_header_past_the_limit_is_still_the_parsers_400(
    multi_user: tuple[str, int],
) -> None:
    head, _ = await _ask(multi_user, _head(b"a" * (MAX_TOKEN + MAX_HEAD_BYTES), b"X-Big"))
    assert head.startswith(b"HTTP/1.1 400 "), head


async def test_a_static_token_header_past_the_limit_is_the_documented_401(
    single_user: tuple[str, int],
) -> None:
    head, body = await _ask(single_user, _head(b"Bearer " + b"b" * (2 * MAX_HEAD_BYTES)))
    assert _is_unauthorized(head, body, b"www-authenticate: Bearer\r\n"), head
    good, _ = await _ask(single_user, _head(f"Bearer {TOKEN}".encode()))
    assert good.startswith(b"HTTP/1.1 200 "), good
