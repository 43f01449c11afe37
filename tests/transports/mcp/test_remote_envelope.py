"""Every way ``/mcp`` refuses a request is sutura's failure envelope, as on ``/v1``: a fixed
sentence per code, ``application/json``, never the caller's input — whatever the MCP SDK would
have said in its own words (a plain-text ``413``, a bodyless ``405``/``406``, a ``400``
quoting its validator)."""

import json
from collections.abc import AsyncIterator
from typing import Any, Final

import anyio
import httpx
import pytest
from starlette.types import Message, Receive, Scope, Send

from sutura.transports.http.mcp_request import enveloped
from sutura.transports.http.wire import FailureCode, encode_wire, failure_body
from tests.transports.http.deployments import AUTH, assembled, client, write_deployment
from tests.transports.mcp.remote import LEGACY, LIST_TOOLS

pytestmark = pytest.mark.anyio

TIMEOUT: Final = 0.5
SETTINGS: Final = f"server:\n  request_timeout_seconds: {TIMEOUT}\n  max_body_bytes: 4096\n"
CANARY: Final = "canary-<script>-\u202e-value"
"""A value a refusal must never carry back."""
HEADERS: Final = {**AUTH, **LEGACY, "Content-Type": "application/json"}
MESSAGE: Final = json.dumps(LIST_TOOLS).encode()


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop for the module: its tests share one deployment, which none changes."""
    return "asyncio"


@pytest.fixture(scope="module")
async def http(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[httpx.AsyncClient]:
    """A client of ``sutura serve``'s app, 4 KiB bodies and a half-second request clock."""
    config = write_deployment(tmp_path_factory.mktemp("envelope"), settings=SETTINGS)
    async with assembled(config) as started, client(started.app) as http:
        yield http


def _batch() -> bytes:
    return json.dumps([LIST_TOOLS, {**LIST_TOOLS, "id": 2, "method": CANARY}]).encode()


def _invalid() -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": {"x": CANARY}, "method": 7}).encode()


REFUSED: Final[dict[str, tuple[str, dict[str, str], bytes | None, FailureCode]]] = {
    "GET (an event stream)": (
        "GET",
        {**AUTH, "Accept": "text/event-stream"},
        None,
        FailureCode.METHOD_NOT_ALLOWED,
    ),
    "GET without a token": (
        "GET",
        {"Accept": "text/event-stream"},
        None,
        FailureCode.METHOD_NOT_ALLOWED,
    ),
    "DELETE (end a session)": ("DELETE", HEADERS, None, FailureCode.METHOD_NOT_ALLOWED),
    "PUT": ("PUT", HEADERS, MESSAGE, FailureCode.METHOD_NOT_ALLOWED),
    "OPTIONS": ("OPTIONS", HEADERS, None, FailureCode.METHOD_NOT_ALLOWED),
    "a text/plain body": (
        "POST",
        {**HEADERS, "Content-Type": "text/plain"},
        MESSAGE,
        FailureCode.UNSUPPORTED_MEDIA_TYPE,
    ),
    "a form body": (
        "POST",
        {**HEADERS, "Content-Type": "application/x-www-form-urlencoded"},
        b"a=" + CANARY.encode(),
        FailureCode.UNSUPPORTED_MEDIA_TYPE,
    ),
    "an empty Accept": (
        "POST",
        {**HEADERS, "Accept": ""},
        MESSAGE,
        FailureCode.NOT_ACCEPTABLE,
    ),
    "an Accept without JSON": (
        "POST",
        {**HEADERS, "Accept": "text/event-stream"},
        MESSAGE,
        FailureCode.NOT_ACCEPTABLE,
    ),
    "a body over the limit": ("POST", HEADERS, b" " * 5000 + MESSAGE, FailureCode.TOO_LARGE),
    "a JSON-RPC batch": ("POST", HEADERS, _batch(), FailureCode.NOT_A_MESSAGE),
    "not JSON": (
        "POST",
        HEADERS,
        b'{"jsonrpc": "2.0", ' + CANARY.encode(),
        FailureCode.NOT_A_MESSAGE,
    ),
    "not a JSON-RPC message": ("POST", HEADERS, _invalid(), FailureCode.NOT_A_MESSAGE),
    "an empty body": ("POST", HEADERS, b"", FailureCode.NOT_A_MESSAGE),
    "a modern-era batch": (
        "POST",
        {**HEADERS, "MCP-Protocol-Version": "2026-07-28"},
        _batch(),
        FailureCode.NOT_A_MESSAGE,
    ),
}


def _expect_failure(response: httpx.Response, code: FailureCode) -> None:
    assert response.status_code == failure_body(code).status
    assert response.headers["content-type"] == "application/json"
    assert response.content == encode_wire(failure_body(code))
    assert CANARY not in response.text


@pytest.mark.parametrize("case", list(REFUSED))
async def test_every_refusal_of_mcp_is_the_failure_envelope_and_echoes_nothing(
    http: httpx.AsyncClient, case: str
) -> None:
    method, headers, body, code = REFUSED[case]
    with anyio.fail_after(10):
        response = await http.request(method, "/mcp", content=body, headers=headers)
    _expect_failure(response, code)
    if code is FailureCode.METHOD_NOT_ALLOWED:
        assert response.headers["allow"] == "POST"


async def test_a_streamed_body_over_the_limit_is_too_large(http: httpx.AsyncClient) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(10):
            yield b" " * 1000

    with anyio.fail_after(10):
        response = await http.post("/mcp", content=chunks(), headers=HEADERS)
    _expect_failure(response, FailureCode.TOO_LARGE)


async def test_a_body_that_does_not_arrive_within_the_request_clock_is_timeout(
    http: httpx.AsyncClient,
) -> None:
    async def slow() -> AsyncIterator[bytes]:
        yield MESSAGE[:5]
        await anyio.sleep(TIMEOUT * 4)
        yield MESSAGE[5:]

    started = anyio.current_time()
    with anyio.fail_after(10):
        response = await http.post("/mcp", content=slow(), headers=HEADERS)
    _expect_failure(response, FailureCode.TIMEOUT)
    assert anyio.current_time() - started < TIMEOUT * 3


async def test_one_message_is_still_answered_in_both_eras(http: httpx.AsyncClient) -> None:
    with anyio.fail_after(10):
        legacy = await http.post("/mcp", content=MESSAGE, headers=HEADERS)
    assert legacy.status_code == 200
    assert [t["name"] for t in legacy.json()["result"]["tools"]] == [
        "describe_catalog",
        "ask_metric",
        "list_values",
    ]


async def test_a_listen_request_of_the_modern_era_is_answered_at_once_not_held(
    http: httpx.AsyncClient,
) -> None:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    listen = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "subscriptions/listen",
        "params": {"_meta": meta},
    }
    headers = {
        **HEADERS,
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "subscriptions/listen",
    }
    with anyio.fail_after(5):
        response = await http.post("/mcp", json=listen, headers=headers)
    assert response.headers["content-type"] == "application/json"
    assert "error" in response.json()


async def test_a_failure_the_sdk_writes_in_its_own_words_is_replaced_by_the_envelope() -> None:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def sdk(_scope: Scope, _receive: Receive, out: Send) -> None:
        start = {"type": "http.response.start", "status": 413, "headers": [(b"x", b"y")]}
        await out(start)
        await out({"type": "http.response.body", "body": CANARY.encode(), "more_body": False})

    async def nothing() -> Message:
        return {"type": "http.disconnect"}

    scope: Any = {"type": "http"}
    await sdk(scope, nothing, enveloped(send))
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert sent[0]["status"] == 413
    assert sent[1]["body"] == encode_wire(failure_body(FailureCode.TOO_LARGE))


async def test_a_wrong_method_is_the_same_failure_on_mcp_as_on_v1(
    http: httpx.AsyncClient,
) -> None:
    with anyio.fail_after(10):
        v1 = await http.request("PUT", "/v1/query", headers=AUTH)
        mcp = await http.request("PUT", "/mcp", headers=AUTH)
    assert v1.json()["code"] == mcp.json()["code"] == "method_not_allowed"
