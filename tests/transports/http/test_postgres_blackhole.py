"""PostgreSQL after a blackhole: a network that swallowed every byte either way for a while —
questions in flight, pooled connections mid-statement — and then recovered. Meanwhile every
question is refused on time; once it recovers, questions answer again within the documented
time (docs/sources.md), and every later one does: no connection left mid-statement by the
blackhole is ever used again."""

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Final, NamedTuple

import anyio
import httpx
import pytest

from sutura.boundary.example import DATABASE
from tests.boundary.sources.postgres_support import Proxy
from tests.postgres import copy_from_duckdb, scratch_database
from tests.transports.http.deployments import AUTH, TOKEN, assembled, client
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION

pytestmark = [pytest.mark.anyio, pytest.mark.postgres, pytest.mark.slow]

DEADLINE: Final = 1.0
"""``limits.deadline_seconds`` of the deployment."""
POOL: Final = 2
IN_FLIGHT: Final = 6
"""Questions asked into the blackhole at once: more than the pool holds."""
RECOVERED_WITHIN: Final = 7.0
"""The documented time for questions to answer again once the network is back, measured from
the end of the blackhole (docs/sources.md)."""
REFUSED_WITHIN: Final = 2.5
"""How long past its deadline a question in the blackhole may take to be refused: the cancel
request of a statement that was running (2 s at most), and a busy machine."""
PASSWORD_VAR: Final = "SUTURA_BLACKHOLE_TEST_PASSWORD"


def _settings(example: Path, source: dict[str, object]) -> str:
    return (
        f"catalog: {{dir: {example / 'catalog'}, version: example-1}}\n"
        f"sources:\n  main: {json.dumps(source)}\n"
        f"limits: {{deadline_seconds: {DEADLINE}}}\n"
        "security:\n  identity: single-user\n  single_user_because: one user runs the tests\n"
        f"  access_token: {TOKEN}\n"
    )


async def _ask(http: httpx.AsyncClient) -> int:
    with anyio.fail_after(DEADLINE + 10):
        return (await http.post("/v1/query", json=EXAMPLE_QUESTION, headers=AUTH)).status_code


@pytest.fixture
async def proxied(
    tmp_path: Path, example_dir: Path, postgres_dsn: str
) -> AsyncIterator[tuple[Proxy, httpx.AsyncClient]]:
    """The example on a scratch PostgreSQL database, served in-process through a proxy."""
    with scratch_database(postgres_dsn) as scratch:
        copy_from_duckdb(example_dir / DATABASE, scratch, tmp_path)
        proxy = Proxy(scratch.host, scratch.port)
        async with anyio.create_task_group() as group:
            await group.start(proxy.serve)
            config = tmp_path / "config"
            config.mkdir()
            source = scratch.source_settings(
                PASSWORD_VAR, host="127.0.0.1", port=proxy.port, pool_size=POOL
            )
            settings = _settings(example_dir, source)
            (config / "base.yaml").write_text(settings, encoding="utf-8")
            environ = {PASSWORD_VAR: scratch.reader_password}
            async with assembled(config, **environ) as started, client(started.app) as http:
                yield proxy, http
            await proxy.stop()


class _Cycle(NamedTuple):
    """One blackhole and what followed it."""

    refused: list[tuple[int, float]]
    """Each question asked into it: its status, and how long it took."""
    health: int
    answered_after: float | None
    """Seconds from the network's return to the first answer (None: none in twice the
    documented time)."""
    statuses: list[int]
    later: list[int]


async def _blackhole(proxy: Proxy, http: httpx.AsyncClient, silent: float) -> _Cycle:
    """Questions asked into a blackhole of ``silent`` seconds, then until one is answered."""
    proxy.blackhole()
    refused: list[tuple[int, float]] = []
    started = anyio.current_time()

    async def into_the_blackhole() -> None:
        asked = anyio.current_time()
        status = await _ask(http)
        refused.append((status, anyio.current_time() - asked))

    async with anyio.create_task_group() as asking:
        while anyio.current_time() - started < silent:
            for _ in range(IN_FLIGHT):
                asking.start_soon(into_the_blackhole)
            await anyio.sleep(DEADLINE / 2)
        health = (await http.get("/health")).status_code
    proxy.resume()
    recovered = anyio.current_time()
    answered_after: float | None = None
    statuses: list[int] = []
    while answered_after is None and anyio.current_time() - recovered < RECOVERED_WITHIN * 2:
        statuses.append(await _ask(http))
        if statuses[-1] == 200:
            answered_after = anyio.current_time() - recovered
        else:
            await anyio.sleep(0.1)
    later = [await _ask(http) for _ in range(2 * POOL + 2)]
    return _Cycle(refused, health, answered_after, statuses, later)


@pytest.mark.parametrize(
    ("silent", "cycles"),
    [(1.0, 3), (12.0, 1)],
    ids=["short-three-times", "past-the-pools-retries"],
)
async def test_questions_answer_again_within_the_documented_time_after_a_blackhole(
    proxied: tuple[Proxy, httpx.AsyncClient], silent: float, cycles: int
) -> None:
    proxy, http = proxied
    assert await _ask(http) == 200
    for _ in range(cycles):
        cycle = await _blackhole(proxy, http, silent)
        assert cycle.health == 200
        assert {status for status, _ in cycle.refused} <= {422, 503}, cycle.refused
        assert max(took for _, took in cycle.refused) < DEADLINE + REFUSED_WITHIN, cycle
        assert cycle.answered_after is not None, cycle.statuses
        assert cycle.answered_after < RECOVERED_WITHIN, cycle.statuses
        assert cycle.later == [200] * len(cycle.later)
