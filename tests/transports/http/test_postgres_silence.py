"""A silent network to PostgreSQL (packets dropped, not refused) with a question in flight: the
question is refused ``deadline_exceeded`` on time, and every other request — ``/health``
included — is answered meanwhile, because stopping the statement never blocks the event loop."""

from pathlib import Path
from typing import Any

import anyio
import httpx
import msgspec
import pytest

from sutura.core.nouns.refusal import RefusalCode
from tests.boundary.sources.postgres_support import Proxy, opened, server_settings, unique_alias
from tests.refusals import expect_refusal
from tests.transports.http.deployments import (
    AUTH,
    QUESTION,
    app_over,
    client,
    refusal_of,
    write_deployment,
)

pytestmark = [pytest.mark.anyio, pytest.mark.postgres]

DEADLINE = 0.5
ON_TIME = DEADLINE + 1.0
"""The question's answer may come this long after it was asked, however the network behaves."""


async def _health_while(http: httpx.AsyncClient, done: anyio.Event, slowest: list[float]) -> None:
    while not done.is_set():
        started = anyio.current_time()
        response = await http.get("/health")
        slowest[0] = max(slowest[0], anyio.current_time() - started)
        assert response.status_code == 200
        await anyio.sleep(0.05)


async def test_a_silent_network_is_deadline_exceeded_on_time_and_health_keeps_answering(
    tmp_path: Path, postgres_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = server_settings(postgres_dsn, monkeypatch)
    proxy = Proxy(server.host, server.port)
    settings = f"server:\n  request_timeout_seconds: {DEADLINE}\n"
    config = write_deployment(tmp_path, settings=settings)
    slowest = [0.0]
    async with anyio.create_task_group() as group:
        await group.start(proxy.serve)
        via_proxy = msgspec.structs.replace(server, port=proxy.port)
        async with opened(via_proxy, unique_alias("silence")) as source:
            source_any: Any = source  # a real source where the helper takes a double
            async with client(app_over(config, source_any)) as http:
                proxy.pause()
                done = anyio.Event()
                with anyio.fail_after(30):
                    async with anyio.create_task_group() as requests:
                        requests.start_soon(_health_while, http, done, slowest)
                        started = anyio.current_time()
                        response = await http.post("/v1/query", json=QUESTION, headers=AUTH)
                        elapsed = anyio.current_time() - started
                        done.set()
                proxy.resume()
        await proxy.stop()
    assert response.status_code == 422
    expect_refusal(refusal_of(response), RefusalCode.DEADLINE_EXCEEDED)
    assert elapsed < ON_TIME, elapsed
    assert slowest[0] < 0.5, slowest
