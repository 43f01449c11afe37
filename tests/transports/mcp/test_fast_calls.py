"""The stdio transport's own path for a well-formed tool call answers as the SDK's path does.

Two ``sutura mcp`` processes on one deployment, one with the path (:mod:`.fast_calls`) and
one without, are sent the same lines: plain calls, hostile answers, ids of every JSON type,
``_meta`` and progress tokens, malformed and odd requests, other protocol versions, calls
before the handshake. Every line each writes is the same, byte for byte (the times an answer
was computed at aside), and the lines the path should take were taken by it. A call it runs is
cancelled by ``notifications/cancelled`` and never answered, as on the SDK's path, and on both
paths a cancelled call gives its place back: a client that cancels is never shed for it.
"""

import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.streams.buffered import BufferedByteReceiveStream

from sutura.transports.mcp.in_flight import IN_FLIGHT_CAP, SHED_MESSAGE
from tests.transports.http.deployments import QUESTION, SLOW_TABLE, write_deployment
from tests.transports.mcp.spawned import INITIALIZE, RawSession, server_environment

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

LAUNCH = """
import sys
from sutura.transports.mcp import fast_calls

fast_calls.ENABLED = sys.argv.pop(1) == "fast"
took = fast_calls.FastCalls.took


def noting(self, message):
    taken = took(self, message)
    if taken:
        print(f"fast path took {message.id!r}", file=sys.stderr, flush=True)
    return taken


fast_calls.FastCalls.took = noting
from sutura.root import main

sys.argv = ["sutura", "mcp"]
sys.exit(main())
"""
"""``sutura mcp``, with the path or without, saying on stderr each request the path took."""

_COMPUTED_AT = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


@asynccontextmanager
async def _server(config: Path, path: str) -> AsyncIterator[RawSession]:
    process = await anyio.open_process(
        [sys.executable, "-c", LAUNCH, path],
        env=server_environment(config),
        stderr=subprocess.PIPE,
    )
    async with process, anyio.create_task_group() as group:
        assert process.stdout is not None and process.stderr is not None
        session = RawSession(process, BufferedByteReceiveStream(process.stdout))

        async def drain() -> None:
            assert process.stderr is not None
            async for chunk in process.stderr:
                session.stderr_chunks.append(chunk)

        group.start_soon(drain)
        try:
            yield session
        finally:
            if process.returncode is None:
                process.kill()


def _request(request_id: object, method: str, params: object = None, **extra: object) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps({**message, **extra}).encode("utf-8") + b"\n"


def _call(request_id: object, name: str = "ask_metric", **params: object) -> bytes:
    return _request(request_id, "tools/call", {"name": name, "arguments": QUESTION, **params})


PING = 424242


async def _exchange(session: RawSession, line: bytes) -> None:
    """Send ``line``, then a ping; read until the ping's answer, and the line's own if it
    names an id one can carry (each call answered before the next is sent, so none waits for
    another's place)."""
    pings = len([m for m in session.seen if _answers(m, PING)])
    await session.send_bytes(line)
    await session.send_bytes(_request(PING, "ping"))
    while len([m for m in session.seen if _answers(m, PING)]) == pings:
        await session.receive()
    try:
        request_id = json.loads(line).get("id")
    except (ValueError, AttributeError):
        return
    if isinstance(request_id, int | str) and not isinstance(request_id, bool):
        with anyio.move_on_after(ANSWERED_WITHIN):
            while not [m for m in session.seen if _answers(m, request_id)]:
                await session.receive()


ANSWERED_WITHIN = 15


def _answers(message: dict[str, Any], request_id: object) -> bool:
    found = message.get("id")
    return "method" not in message and found == request_id and type(found) is type(request_id)


def _written(session: RawSession) -> list[bytes]:
    """Every line the server wrote but the pings' answers, in order of their bytes (answers
    of calls running at once come in either order), the times of computing aside."""
    pong = b'{"jsonrpc":"2.0","id":%d,"result":{}}' % PING
    return sorted(_COMPUTED_AT.sub(b"<computed at>", line) for line in session.raw if line != pong)


OTHER_ARGUMENTS = {"metrics": ["units"], "grain": "month", "range": {"start": "2024-01-01"}}
WELL_FORMED: list[bytes] = [
    _call(1),
    _call(0),
    _call(-9),
    _call(2**70),
    _call("7"),
    _call("a string id"),
    _call('é😀 \n "quoted" \\ \u2028'),
    _call(11, _meta={"progressToken": "p-11"}),
    _call(12, _meta={"progressToken": 12}),
    _request(13, "tools/call", {"name": "ask_metric"}),
    _request(14, "tools/call", {"name": "ask_metric", "arguments": {}}),
    _call(15, arguments={"metrics": ["units"], "grain": "fortnight"}),
    _call(16, arguments={"metrics": 5}),
    _call(17, arguments={**QUESTION, "unknown": True}),
    _call(18, arguments={**QUESTION, "metrics": ["\ud7ff\ue000 nope"]}),
    _call(19, "describe_catalog", arguments={}),
    _call(20, "list_values", arguments={"metric": "units", "dimension": "label"}),
    _call(22, arguments=OTHER_ARGUMENTS),
    _request(44, "tools/call", {"name": "ask_metric", "arguments": QUESTION}, extra=1),
    _request(45, "tools/call", {"name": "ask_metric", "arguments": QUESTION}, result={}),
    b'{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"describe_catalog",'
    b'"name":"ask_metric","arguments":{"metrics":["units"],"metrics":["nope"]}}}\n',
    b'  {"params": {"arguments": {}, "name": "describe_catalog"}, "method": "tools/call",'
    b' "id": 24, "jsonrpc": "2.0"}  \n',
]
"""Calls the path takes."""

ODD: list[bytes] = [
    _call(1.0),
    _call(True),
    _call(None),
    _call([1]),
    _call(31, "no_such_tool"),
    _call(21, "compile_question", arguments=QUESTION),
    _request(32, "tools/call", {"name": 5, "arguments": {}}),
    _request(33, "tools/call", {"name": "ask_metric", "arguments": None}),
    _request(34, "tools/call", {"name": "ask_metric", "arguments": [1, 2]}),
    _request(35, "tools/call"),
    _request(36, "tools/call", [1]),
    _call(37, _meta={"progressToken": True}),
    _call(38, _meta={"progressToken": 1.5}),
    _call(39, _meta=None),
    _call(40, _meta={"other": 1}),
    _call(41, _meta={"io.modelcontextprotocol/protocolVersion": "2026-07-28"}),
    _call(42, task={"ttl": 1000}),
    _call(43, extra_param=1),
    b'{"jsonrpc":"2.0","id":46,"method":"tools/call","params":{"name":"ask_metric"\n',
    b'{"jsonrpc":"1.0","id":47,"method":"tools/call","params":{"name":"ask_metric"}}\n',
    b'{"jsonrpc":"2.0","id":48,"method":"tools/call","params":{"name":"ask_\\ud800"}}\n',
    b'{"jsonrpc":"2.0","id":49,"method":"tools/call","params":{"name":"ask_metric"}}\xff\n',
    b"\n",
]
"""Lines the path leaves to the SDK (odd, malformed, or not sutura's)."""


def _taken(session: RawSession) -> list[str]:
    return re.findall(r"fast path took (.*)", session.stderr)


async def _conversation(
    config: Path, path: str, version: str, lines: list[bytes]
) -> tuple[list[bytes], list[str]]:
    """What the server wrote for ``lines`` (sent after a call before the handshake, the
    handshake at ``version`` and ``tools/list``), and the requests the path took."""
    initialize = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": version}}
    with anyio.fail_after(120):
        async with _server(config, path) as session:
            await _exchange(session, _call(100))
            await _exchange(session, json.dumps(initialize).encode("utf-8") + b"\n")
            await _exchange(session, _request(101, "tools/list"))
            for line in lines:
                await _exchange(session, line)
            assert await session.finish() == 0
            await anyio.sleep(0.1)  # stderr read to its end
            return _written(session), _taken(session)


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2025-03-26"])
async def test_the_path_writes_what_the_sdk_writes_for_every_call_it_takes(
    tmp_path: Path, version: str
) -> None:
    config = write_deployment(tmp_path)
    ours, taken = await _conversation(config, "fast", version, WELL_FORMED)
    sdk, none = await _conversation(config, "sdk", version, WELL_FORMED)
    assert ours == sdk
    assert none == []
    assert len(taken) == len(WELL_FORMED), "|".join(taken)
    assert len(ours) == len(WELL_FORMED) + 3


async def test_the_sdk_answers_every_odd_line_as_it_did(tmp_path: Path) -> None:
    config = write_deployment(tmp_path)
    ours, taken = await _conversation(config, "fast", "2025-11-25", ODD)
    sdk, _ = await _conversation(config, "sdk", "2025-11-25", ODD)
    assert ours == sdk
    assert taken == []


ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "a modern client", "version": "1"},
}
"""A modern-era request's envelope, as the SDK's own client sends it."""
BARE_ENVELOPE = {key: ENVELOPE[key] for key in list(ENVELOPE)[:2]}

MODERN_WELL_FORMED: list[bytes] = [
    _call(1, _meta=ENVELOPE),
    _call("a string id", _meta=ENVELOPE),
    _call('é😀 \n "quoted" \\ \u2028', _meta=ENVELOPE),
    _call(2, _meta=BARE_ENVELOPE),
    _call(3, _meta={**ENVELOPE, "progressToken": "p-3"}),
    _call(5, _meta={**ENVELOPE, "io.modelcontextprotocol/clientCapabilities": {"x": [1]}}),
    _request(6, "tools/call", {"name": "ask_metric", "_meta": ENVELOPE}),
    _call(7, arguments={"metrics": ["units"], "grain": "fortnight"}, _meta=ENVELOPE),
    _call(8, arguments={**QUESTION, "metrics": ["\ud7ff\ue000 nope"]}, _meta=ENVELOPE),
    _call(9, "describe_catalog", arguments={}, _meta=ENVELOPE),
    _call(10, "list_values", arguments={"metric": "units", "dimension": "label"}, _meta=ENVELOPE),
    _call(11, arguments=OTHER_ARGUMENTS, _meta=ENVELOPE),
]
"""Modern-era calls the path takes."""

MODERN_ODD: list[bytes] = [
    _call(21),
    _call(22, _meta={"progressToken": "p-22"}),
    _call(23, _meta={**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}),
    _call(24, _meta={**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2025-11-25"}),
    _call(25, _meta={**ENVELOPE, "io.modelcontextprotocol/protocolVersion": 20260728}),
    _call(26, _meta={"io.modelcontextprotocol/protocolVersion": "2026-07-28"}),
    _call(27, _meta={**ENVELOPE, "other": 1}),
    _call(28, _meta={**ENVELOPE, "progressToken": True}),
    _call(29, "no_such_tool", _meta=ENVELOPE),
    _call(30, "compile_question", _meta=ENVELOPE),
    _call(1.0, _meta=ENVELOPE),
    _request(31, "initialize", INITIALIZE["params"]),
    _call(32, _meta=ENVELOPE, task={"ttl": 1000}),
    _call(33, _meta={**ENVELOPE, "io.modelcontextprotocol/clientInfo": 5}),
]
"""Modern-era lines the path leaves to the SDK."""


async def _modern_conversation(
    config: Path, path: str, lines: list[bytes]
) -> tuple[list[bytes], list[str]]:
    """What the server wrote for ``lines`` on a connection its first request opened in the
    modern era (``server/discover``, then ``tools/list``, each with its envelope), and the
    requests the path took."""
    with anyio.fail_after(120):
        async with _server(config, path) as session:
            await _exchange(session, _request(100, "server/discover", {"_meta": ENVELOPE}))
            await _exchange(session, _request(101, "tools/list", {"_meta": ENVELOPE}))
            for line in lines:
                await _exchange(session, line)
            assert await session.finish() == 0
            await anyio.sleep(0.1)  # stderr read to its end
            return _written(session), _taken(session)


async def test_in_the_modern_era_the_path_writes_what_the_sdk_writes(tmp_path: Path) -> None:
    config = write_deployment(tmp_path)
    ours, taken = await _modern_conversation(config, "fast", MODERN_WELL_FORMED)
    sdk, none = await _modern_conversation(config, "sdk", MODERN_WELL_FORMED)
    assert ours == sdk
    assert none == []
    assert len(taken) == len(MODERN_WELL_FORMED), "|".join(taken)
    # A bare ping carries no envelope: the modern era refuses it, on both paths alike.
    answers = [line for line in ours if b'"id":%d,' % PING not in line]
    assert len(answers) == len(MODERN_WELL_FORMED) + 2
    assert all(b'"resultType":"complete"' in line for line in ours if b'"isError"' in line)


async def test_in_the_modern_era_the_sdk_answers_every_odd_line_as_it_did(tmp_path: Path) -> None:
    config = write_deployment(tmp_path)
    ours, taken = await _modern_conversation(config, "fast", MODERN_ODD)
    sdk, _ = await _modern_conversation(config, "sdk", MODERN_ODD)
    assert ours == sdk
    assert taken == []


async def test_a_modern_call_on_a_handshake_connection_is_left_to_the_sdk(tmp_path: Path) -> None:
    config = write_deployment(tmp_path)
    lines = [_call(1, _meta=ENVELOPE), _call(2)]
    ours, taken = await _conversation(config, "fast", "2025-11-25", lines)
    sdk, _ = await _conversation(config, "sdk", "2025-11-25", lines)
    assert ours == sdk
    assert taken == ["2"]


async def test_a_second_initialize_leaves_calls_to_the_sdk_until_it_is_answered(
    tmp_path: Path,
) -> None:
    config = write_deployment(tmp_path)
    lines = [
        _call(1),
        _request(2, "initialize", INITIALIZE["params"] | {"protocolVersion": "2025-03-26"}),
        _call(3),
        _request(4, "initialize", INITIALIZE["params"] | {"protocolVersion": "1999-01-01"}),
        _call(5),
    ]
    ours, taken = await _conversation(config, "fast", "2025-11-25", lines)
    sdk, _ = await _conversation(config, "sdk", "2025-11-25", lines)
    assert ours == sdk
    assert taken[:2] == ["1", "3"]


async def _cancelled(config: Path, path: str, cancelled_id: object) -> Any:
    with anyio.fail_after(60):
        async with _server(config, path) as session:
            await session.handshake()
            await session.request(1, "tools/list")
            await session.send_bytes(_call(7, arguments=QUESTION | {"grain": "day"}))
            await anyio.sleep(0.5)
            cancel = {"requestId": cancelled_id, "reason": "the user moved on"}
            note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}
            await session.send(note)
            answer = await session.request(8, "tools/call", name="describe_catalog", arguments={})
            await anyio.sleep(DEADLINE + 1)  # the cancelled call would have answered by now
            assert await session.finish() == 0
            return answer, [m for m in session.seen if m.get("id") == 7], _taken(session)


DEADLINE = 2
SLOW = f"limits:\n  deadline_seconds: {DEADLINE}\n"


@pytest.mark.parametrize("cancelled_id", [7, "7"])
async def test_a_cancelled_call_is_never_answered(tmp_path: Path, cancelled_id: object) -> None:
    config = write_deployment(tmp_path, table=SLOW_TABLE, settings=SLOW)
    answer, sevens, taken = await _cancelled(config, "fast", cancelled_id)
    sdk_answer, sdk_sevens, _ = await _cancelled(config, "sdk", cancelled_id)
    assert "7" in taken
    # Never answered, on either path: not while the server runs, nor as stopped at the end.
    assert sevens == sdk_sevens == []
    assert answer["result"]["structuredContent"] == sdk_answer["result"]["structuredContent"]


async def _after_cancelling(config: Path, path: str) -> tuple[Any, list[Any]]:
    """A call's answer after as many slow calls as the server runs at once were each sent and
    cancelled; and every message that answered a cancelled call."""
    cancelled = range(100, 100 + IN_FLIGHT_CAP)
    with anyio.fail_after(90):
        async with _server(config, path) as session:
            await session.handshake()
            await session.request(1, "tools/list")
            for request_id in cancelled:
                await session.send_bytes(_call(request_id, arguments=QUESTION | {"grain": "day"}))
            for request_id in cancelled:
                cancel = {"requestId": request_id, "reason": "the user moved on"}
                await session.send(
                    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel}
                )
            answer = await session.request(8, "tools/call", name="describe_catalog", arguments={})
            assert await session.finish() == 0
            return answer, [m for m in session.seen if m.get("id") in cancelled]


@pytest.mark.parametrize("path", ["fast", "sdk"])
async def test_cancelled_calls_give_their_places_back(tmp_path: Path, path: str) -> None:
    config = write_deployment(tmp_path, table=SLOW_TABLE, settings=SLOW)
    answer, cancelled_answers = await _after_cancelling(config, path)
    text = answer["result"]["content"][0]["text"]
    assert SHED_MESSAGE not in text
    assert answer["result"]["isError"] is False
    assert answer["result"]["structuredContent"]["metrics"]
    assert cancelled_answers == []


async def test_a_call_not_cancelled_is_answered_when_its_deadline_passes(tmp_path: Path) -> None:
    config = write_deployment(tmp_path, table=SLOW_TABLE, settings=SLOW)
    answer, sevens, taken = await _cancelled(config, "fast", 70)
    assert "7" in taken
    assert answer["result"]["isError"] is False
    assert [m["result"]["structuredContent"]["outcome"] for m in sevens] == ["refusal"]
