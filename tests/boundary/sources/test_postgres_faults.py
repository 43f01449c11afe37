"""The PostgreSQL source under faults: each becomes a typed refusal, and the source recovers.

A slow statement, a network gone silent, a server gone away, a backend killed mid-query or while
idle in the pool, a server out of temporary space.
"""

import anyio
import msgspec
import psycopg
import pytest
from psycopg import sql

import sutura.boundary.sources.postgres as postgres_module
from sutura.boundary.sources.skeleton import run_certified
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.settings import PostgresSourceSettings
from tests.boundary.sources.postgres_support import (
    Proxy,
    opened,
    server_settings,
    statement,
    unique_alias,
    until_active,
)
from tests.postgres import scratch_database
from tests.refusals import expect_refusal


@pytest.fixture
def server(postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> PostgresSourceSettings:
    """Settings that reach the test server."""
    return server_settings(postgres_dsn, monkeypatch)


@pytest.mark.postgres
@pytest.mark.anyio
async def test_a_slow_statement_is_stopped_by_the_server_at_the_deadline(
    server: PostgresSourceSettings, postgres_dsn: str
) -> None:
    alias = unique_alias("slow")
    async with opened(server, alias) as source:
        with anyio.fail_after(10):
            started = anyio.current_time()
            slow = statement("SELECT pg_sleep(%s)", 30)
            outcome = await run_certified(source, slow, deadline_seconds=0.5, max_rows=1)
            elapsed = anyio.current_time() - started
            await until_active(postgres_dsn, alias, count=0)
            after = await run_certified(
                source, statement("SELECT 1"), deadline_seconds=5, max_rows=1
            )
    expect_refusal(outcome, RefusalCode.DEADLINE_EXCEEDED)
    assert elapsed < 1.0
    assert after.unwrap() == [["1"]]


@pytest.mark.postgres
@pytest.mark.anyio
async def test_the_client_cancels_on_the_server_when_the_server_timer_does_not_fire(
    server: PostgresSourceSettings, postgres_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without the server's own timer, only the client's deadline and cancel request remain.
    monkeypatch.setattr(
        postgres_module, "_CERTIFIED_BEGIN", sql.SQL("BEGIN READ ONLY; SELECT {timeout}")
    )
    alias = unique_alias("cancel")
    async with opened(server, alias) as source:
        with anyio.fail_after(10):
            started = anyio.current_time()
            slow = statement("SELECT pg_sleep(%s)", 30)
            outcome = await run_certified(source, slow, deadline_seconds=0.5, max_rows=1)
            elapsed = anyio.current_time() - started
            await until_active(postgres_dsn, alias, count=0)
    expect_refusal(outcome, RefusalCode.DEADLINE_EXCEEDED)
    assert elapsed < 1.5


@pytest.mark.postgres
@pytest.mark.anyio
async def test_a_silent_network_is_refused_at_the_deadline_and_the_source_recovers(
    server: PostgresSourceSettings,
) -> None:
    proxy = Proxy(server.host, server.port)
    async with anyio.create_task_group() as group:
        await group.start(proxy.serve)
        via_proxy = msgspec.structs.replace(server, port=proxy.port)
        async with opened(via_proxy, unique_alias("silent")) as source:
            proxy.pause()
            with anyio.fail_after(10):
                outcome = await run_certified(
                    source, statement("SELECT 1"), deadline_seconds=0.3, max_rows=1
                )
                proxy.resume()
                after = await run_certified(
                    source, statement("SELECT 2"), deadline_seconds=5, max_rows=1
                )
        await proxy.stop()
    expect_refusal(outcome, RefusalCode.DEADLINE_EXCEEDED)
    assert after.unwrap() == [["2"]]


@pytest.mark.postgres
@pytest.mark.anyio
async def test_a_server_that_went_away_is_unavailable_without_waiting_out_the_deadline(
    server: PostgresSourceSettings,
) -> None:
    proxy = Proxy(server.host, server.port)
    async with anyio.create_task_group() as group:
        await group.start(proxy.serve)
        via_proxy = msgspec.structs.replace(server, port=proxy.port)
        async with opened(via_proxy, unique_alias("gone")) as source:
            with anyio.fail_after(10):
                before = await run_certified(
                    source, statement("SELECT 1"), deadline_seconds=5, max_rows=1
                )
                await proxy.stop()
                started = anyio.current_time()
                outcome = await run_certified(
                    source, statement("SELECT 1"), deadline_seconds=8, max_rows=1
                )
                elapsed = anyio.current_time() - started
    assert before.unwrap() == [["1"]]
    expect_refusal(outcome, RefusalCode.SOURCE_UNAVAILABLE)
    assert elapsed < 2


@pytest.mark.postgres
@pytest.mark.anyio
async def test_a_backend_killed_mid_query_is_unavailable_and_the_next_question_answered(
    server: PostgresSourceSettings, postgres_dsn: str
) -> None:
    alias = unique_alias("killed")
    outcomes: list[object] = []
    async with opened(server, alias) as source:

        async def ask_slowly() -> None:
            slow = statement("SELECT pg_sleep(%s)", 30)
            outcomes.append(await run_certified(source, slow, deadline_seconds=20, max_rows=1))

        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                group.start_soon(ask_slowly)
                await until_active(postgres_dsn, alias, count=1, terminate=True)
            after = await run_certified(
                source, statement("SELECT 1"), deadline_seconds=5, max_rows=1
            )
    expect_refusal(outcomes[0], RefusalCode.SOURCE_UNAVAILABLE)
    assert after.unwrap() == [["1"]]


@pytest.mark.postgres
@pytest.mark.anyio
async def test_a_pooled_connection_killed_while_idle_is_replaced_before_the_statement(
    server: PostgresSourceSettings, postgres_dsn: str
) -> None:
    alias = unique_alias("idle")
    async with opened(server, alias) as source:
        with anyio.fail_after(10):
            async with await psycopg.AsyncConnection.connect(
                postgres_dsn, autocommit=True
            ) as admin:
                await admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE application_name = %s",
                    (f"sutura {alias}",),
                )
            outcome = await run_certified(
                source, statement("SELECT 1"), deadline_seconds=5, max_rows=1
            )
    assert outcome.unwrap() == [["1"]]


@pytest.mark.postgres
@pytest.mark.anyio
async def test_running_out_of_temporary_space_is_resources_exhausted(
    server: PostgresSourceSettings, postgres_dsn: str
) -> None:
    with scratch_database(postgres_dsn) as scratch:
        with psycopg.connect(postgres_dsn, autocommit=True) as admin:
            name = sql.Identifier(scratch.database)
            admin.execute(sql.SQL("ALTER DATABASE {} SET temp_file_limit = 0").format(name))
            admin.execute(sql.SQL("ALTER DATABASE {} SET work_mem = '64kB'").format(name))
        tight = msgspec.structs.replace(server, database=scratch.database)
        async with opened(tight, unique_alias("tight")) as source:
            big_sort = statement("SELECT g FROM generate_series(1, %s) AS g ORDER BY g DESC", 10**5)
            with anyio.fail_after(10):
                outcome = await run_certified(source, big_sort, deadline_seconds=5, max_rows=1)
    expect_refusal(outcome, RefusalCode.RESOURCES_EXHAUSTED)


@pytest.mark.postgres
@pytest.mark.anyio
async def test_a_statement_past_work_mem_is_refused_not_spilled_to_temporary_files(
    server: PostgresSourceSettings, postgres_dsn: str
) -> None:
    with scratch_database(postgres_dsn) as scratch:
        with psycopg.connect(postgres_dsn, autocommit=True) as admin:
            name = sql.Identifier(scratch.database)
            admin.execute(sql.SQL("ALTER DATABASE {} SET work_mem = '64kB'").format(name))
        tight = msgspec.structs.replace(server, database=scratch.database)
        async with opened(tight, unique_alias("nospill")) as source:
            big_sort = statement("SELECT g FROM generate_series(1, %s) AS g ORDER BY g DESC", 10**5)
            with anyio.fail_after(10):
                outcome = await run_certified(source, big_sort, deadline_seconds=5, max_rows=1)
    expect_refusal(outcome, RefusalCode.RESOURCES_EXHAUSTED)
