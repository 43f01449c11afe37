"""A tool result's structured half crosses MCP as the bytes msgspec wrote, spliced into the
SDK's JSON: every byte on the wire is the SDK's own encoding of the same message, on stdio and
on ``/mcp`` in both eras, over the hostile corpus (answers, refusals, the catalog).

The SDK's own encoding of a message is taken from the SDK itself: its stdio writer and its
handshake-era ``/mcp`` write ``message.model_dump_json(by_alias=True, exclude_unset=True)``; its
modern-era ``/mcp`` writes ``json.dumps(message.model_dump(mode="json", by_alias=True,
exclude_none=True), separators=(",", ":"))`` (``mcp.server._streamable_http_modern``). Each
body is decoded into the SDK's message model and encoded again that way: a single byte escaped
otherwise than the SDK would (a raw character it escapes, an escape it writes raw, another hex
case) fails the test.
"""

import json
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import msgspec
import pytest

from sutura.core.nouns.answer import Answer, Refused
from sutura.core.text.decode import decode_outcome as decode_text
from sutura.core.tool.codec import decode_outcome
from sutura.transports.mcp.encoded import KEY
from tests.transports.http.deployments import assembled
from tests.transports.mcp.configs import HOSTILE_QUESTION, carried_cells, hostile_config
from tests.transports.mcp.remote import BASE, mcp_client
from tests.transports.mcp.spawned import spawned

pytestmark = pytest.mark.anyio

UNKNOWN_METRIC: dict[str, object] = {**HOSTILE_QUESTION, "metrics": ["no_such_metric"]}
CALLS: tuple[tuple[str, dict[str, object]], ...] = (
    ("ask_metric", HOSTILE_QUESTION),
    ("ask_metric", UNKNOWN_METRIC),
    ("describe_catalog", {}),
)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hostile_config(tmp_path_factory.mktemp("hostile"))


def _legacy_encoding(body: bytes) -> bytes:
    message = types.JSONRPCResponse.model_validate_json(body)
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")


def _modern_encoding(body: bytes) -> bytes:
    message = types.JSONRPCResponse.model_validate_json(body)
    dumped = message.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json.dumps(dumped, separators=(",", ":")).encode("utf-8")


def _check_result(result: dict[str, Any], name: str, arguments: dict[str, object]) -> None:
    """The result carries the real halves: no stand-in, one value rendered twice."""
    structured = result["structuredContent"]
    assert KEY not in structured
    if name == "describe_catalog":
        assert structured["metrics"]
        return
    outcome = decode_outcome(msgspec.json.encode(structured)).unwrap()
    assert decode_text(result["content"][0]["text"]).unwrap() == outcome
    if arguments is HOSTILE_QUESTION:
        assert isinstance(outcome, Answer)
        assert {row[1] for row in outcome.rows} == set(carried_cells())
    else:
        assert isinstance(outcome, Refused)


async def test_each_stdio_result_is_byte_for_byte_the_sdks_own_encoding(hostile: Path) -> None:
    with anyio.fail_after(60):
        async with spawned(hostile) as session:
            await session.handshake()
            for request_id, (name, arguments) in enumerate(CALLS, start=1):
                reply = await session.request(
                    request_id, "tools/call", name=name, arguments=arguments
                )
                line = session.raw[-1]
                assert line == _legacy_encoding(line)  # the line, its break not counted
                _check_result(reply["result"], name, arguments)
            assert await session.finish() == 0


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_each_mcp_http_result_is_byte_for_byte_the_sdks_own_encoding(
    hostile: Path, mode: str
) -> None:
    bodies: list[tuple[str, bytes]] = []

    async def record(response: httpx2.Response) -> None:
        await response.aread()
        era = response.request.headers.get("mcp-protocol-version", "")
        if b'"structuredContent"' in response.content:
            bodies.append((era, response.content))

    with anyio.fail_after(60):
        async with assembled(hostile) as started:
            asgi: Any = started.app
            transport = httpx2.ASGITransport(app=asgi)
            hooks = {"response": [record]}
            async with (
                httpx2.AsyncClient(transport=transport, base_url=BASE, event_hooks=hooks) as http,
                mcp_client(http, mode) as client,
            ):
                for name, arguments in CALLS:
                    await client.call_tool(name, arguments)
    assert len(bodies) == len(CALLS)
    for (era, body), (name, arguments) in zip(bodies, CALLS, strict=True):
        modern = era not in types.version.HANDSHAKE_PROTOCOL_VERSIONS
        assert modern == (mode == "auto")
        assert body == (_modern_encoding(body) if modern else _legacy_encoding(body))
        _check_result(json.loads(body)["result"], name, arguments)
