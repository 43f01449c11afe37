"""MCP over stdio under a client that writes and does not read: at most a bounded number of
calls run at once, the rest are answered at once with ``isError`` ("ask again shortly"), and
at the end of input every call read is answered before the server exits."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from sutura.transports.mcp.in_flight import IN_FLIGHT_CAP, SHED_MESSAGE
from tests.transports.http.deployments import QUESTION, SLOW_TABLE, write_deployment
from tests.transports.mcp.spawned import RawSession, spawned

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

DEADLINE = 2
# Admission (server.max_concurrent_queries) sheds calls past it at once; raised here so that
# the bound under test is the one on requests read and not yet answered.
SLOW = f"limits:\n  deadline_seconds: {DEADLINE}\nserver:\n  max_concurrent_queries: 64\n"
EXTRA = 6


def _call(request_id: int) -> dict[str, Any]:
    params = {"name": "ask_metric", "arguments": QUESTION}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def _answers(session: RawSession, ids: Iterator[int]) -> dict[int, dict[str, Any]]:
    return {request_id: await session.response(request_id) for request_id in ids}


def _text(message: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in message["result"]["content"])


async def test_calls_past_the_cap_are_shed_at_once_and_the_rest_answered(tmp_path: Path) -> None:
    config = write_deployment(tmp_path, table=SLOW_TABLE, settings=SLOW)
    with anyio.fail_after(60):
        async with spawned(config) as session:
            await session.handshake()
            sent_at = anyio.current_time()
            for request_id in range(1, IN_FLIGHT_CAP + EXTRA + 1):
                await session.send(_call(request_id))
            answers = await _answers(session, iter(range(1, IN_FLIGHT_CAP + EXTRA + 1)))
            elapsed = anyio.current_time() - sent_at
            assert await session.finish() == 0
    shed = [m for m in answers.values() if _text(m) == SHED_MESSAGE]
    run = [m for m in answers.values() if _text(m) != SHED_MESSAGE]
    assert len(shed) == EXTRA
    assert all(m["result"]["isError"] is True for m in shed)
    assert len(run) == IN_FLIGHT_CAP
    assert all(m["result"]["structuredContent"]["outcome"] == "refusal" for m in run)
    codes = {m["result"]["structuredContent"]["reason"]["code"] for m in run}
    assert codes == {"deadline_exceeded"}
    assert elapsed < 10 * DEADLINE  # bounded by the deadline, not by the number of calls


async def test_every_call_read_is_answered_before_the_server_exits_at_end_of_input(
    tmp_path: Path,
) -> None:
    config = write_deployment(tmp_path, table=SLOW_TABLE, settings=SLOW)
    with anyio.fail_after(60):
        async with spawned(config) as session:
            await session.handshake()
            for request_id in range(1, IN_FLIGHT_CAP + 1):
                await session.send(_call(request_id))
            code = await session.finish()  # stdin closed at once, calls still running
    answered = {m["id"] for m in session.seen if "method" not in m}
    assert set(range(1, IN_FLIGHT_CAP + 1)) <= answered
    assert code == 0
