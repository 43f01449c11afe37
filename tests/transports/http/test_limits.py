"""Request bounds: body size, the request deadline, and admission without a queue."""

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from litestar import Litestar

from sutura.core.nouns.refusal import RefusalCode
from tests.refusals import expect_refusal
from tests.transports.http.deployments import (
    AUTH,
    QUESTION,
    SLOW_TABLE,
    TOKEN,
    DoubleSource,
    Receive,
    app_over,
    assembled,
    client,
    posted,
    refusal_of,
    write_deployment,
)

pytestmark = pytest.mark.anyio

ROWS: list[list[object]] = [["2024-01-01", "a", "1"]]


async def _call(app: Litestar, receive: Receive) -> tuple[int, dict[str, str], Any]:
    """One POST /v1/query straight through the ASGI interface, with ``receive`` as the body."""
    headers = [
        (b"authorization", f"Bearer {TOKEN}".encode()),
        (b"content-type", b"application/json"),
        (b"host", b"localhost"),
    ]
    sent = await posted(app, headers, receive)
    returned = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    return sent[0]["status"], returned, json.loads(b"".join(m.get("body", b"") for m in sent[1:]))


async def test_a_body_declared_over_the_limit_is_too_large(tmp_path: Path) -> None:
    config = write_deployment(tmp_path, settings="server:\n  max_body_bytes: 1024\n")
    async with assembled(config) as started, client(started.app) as http:
        with anyio.fail_after(10):
            response = await http.post("/v1/query", content=b" " * 1025, headers=AUTH)
            within = await http.post("/v1/query", json=QUESTION, headers=AUTH)
    assert response.status_code == 413
    assert response.json()["code"] == "too_large"
    assert within.status_code == 200


async def test_a_streamed_body_is_cut_off_once_it_passes_the_limit(tmp_path: Path) -> None:
    config = write_deployment(tmp_path, settings="server:\n  max_body_bytes: 4096\n")
    chunks = 0

    async def endless() -> dict[str, Any]:
        nonlocal chunks
        chunks += 1
        return {"type": "http.request", "body": b" " * 1024, "more_body": True}

    async with assembled(config) as started:
        with anyio.fail_after(10):
            status, _, body = await _call(started.app, endless)
    assert (status, body["code"]) == (413, "too_large")
    assert chunks <= 5


async def test_a_body_that_does_not_arrive_by_the_deadline_is_a_timeout(tmp_path: Path) -> None:
    config = write_deployment(tmp_path, settings="server:\n  request_timeout_seconds: 0.2\n")

    async def never() -> dict[str, Any]:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async with assembled(config) as started:
        with anyio.fail_after(10):
            status, _, body = await _call(started.app, never)
    assert (status, body["code"], body["status"]) == (408, "timeout", 408)


async def test_a_question_past_the_deadline_is_cancelled_and_refused(tmp_path: Path) -> None:
    cancelled = anyio.Event()

    async def hang(_statement: str) -> list[list[object]]:
        try:
            await anyio.sleep_forever()
        finally:
            cancelled.set()
        raise AssertionError("unreachable")

    source = DoubleSource(hang)
    app = app_over(write_deployment(tmp_path), source, request_timeout_seconds=0.2)
    async with client(app) as http:
        with anyio.fail_after(10):
            response = await http.post("/v1/query", json=QUESTION, headers=AUTH)
    assert response.status_code == 422
    expect_refusal(refusal_of(response), RefusalCode.DEADLINE_EXCEEDED)
    assert cancelled.is_set()


async def test_a_real_query_past_the_deadline_is_interrupted_and_refused(
    tmp_path: Path,
) -> None:
    settings = "server:\n  request_timeout_seconds: 0.3\n"
    slow = write_deployment(tmp_path / "slow", table=SLOW_TABLE, settings=settings)
    async with assembled(slow) as started, client(started.app) as http:
        with anyio.fail_after(10):
            response = await http.post("/v1/query", json=QUESTION, headers=AUTH)
    assert response.status_code == 422
    expect_refusal(refusal_of(response), RefusalCode.DEADLINE_EXCEEDED)


class Gate:
    """A source double that holds every question until released."""

    def __init__(self, expected: int) -> None:
        self.entered = 0
        self.expected = expected
        self.full = anyio.Event()
        self.release = anyio.Event()

    async def run(self, _statement: str) -> list[list[object]]:
        self.entered += 1
        if self.entered == self.expected:
            self.full.set()
        await self.release.wait()
        return list(ROWS)


async def test_a_question_beyond_the_admission_limit_is_refused_at_once(tmp_path: Path) -> None:
    gate = Gate(expected=2)
    app = app_over(write_deployment(tmp_path), DoubleSource(gate.run), max_concurrent_queries=2)
    held: list[httpx.Response] = []

    async with client(app) as http:

        async def ask() -> None:
            held.append(await http.post("/v1/query", json=QUESTION, headers=AUTH))

        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                group.start_soon(ask)
                group.start_soon(ask)
                await gate.full.wait()
                with anyio.fail_after(2):
                    over = await http.post("/v1/query", json=QUESTION, headers=AUTH)
                gate.release.set()
            after = await http.post("/v1/query", json=QUESTION, headers=AUTH)
    assert over.status_code == 503
    assert over.json() == {"code": "at_capacity", "status": 503, "detail": over.json()["detail"]}
    assert over.headers["retry-after"] == "1"
    assert [r.status_code for r in held] == [200, 200]
    assert after.status_code == 200
    assert gate.entered == 3


async def test_a_failed_question_gives_its_slot_back(tmp_path: Path) -> None:
    calls = 0

    async def fail_once(_statement: str) -> list[list[object]]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("first call fails")
        return list(ROWS)

    app = app_over(write_deployment(tmp_path), DoubleSource(fail_once), max_concurrent_queries=1)
    async with client(app) as http:
        with anyio.fail_after(10):
            first = await http.post("/v1/query", json=QUESTION, headers=AUTH)
            second = await http.post("/v1/query", json=QUESTION, headers=AUTH)
    assert (first.status_code, second.status_code) == (500, 200)
