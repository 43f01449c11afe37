"""Helpers of the PostgreSQL source tests: statements, settings, server activity, a TCP proxy."""

import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.abc
import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from sutura.boundary.sources.postgres import PostgresSource, open_postgres
from sutura.core.nouns.dialect import Dialect
from sutura.core.settings import PostgresSourceSettings
from sutura.core.sql.compiled import CompiledQuery, Passthrough
from tests.boundary.sources.opening import context

PASSWORD_VAR = "SUTURA_TEST_SOURCE_PASSWORD"


def statement(text: str, *params: object) -> CompiledQuery:
    """A hand-written statement with one answer column, as if compiled for PostgreSQL."""
    return CompiledQuery(
        sql=text,
        params=params,
        columns=("value",),
        plan=(),
        outputs=(Passthrough(index=0),),
        selected_width=1,
        source="main",
        dialect=Dialect.POSTGRES,
    )


def server_settings(dsn: str, monkeypatch: pytest.MonkeyPatch) -> PostgresSourceSettings:
    """Source settings that reach the test server; its password, if any, through the environment."""
    info = conninfo_to_dict(dsn)
    if info.get("password") is not None:
        monkeypatch.setenv(PASSWORD_VAR, str(info["password"]))
    return PostgresSourceSettings(
        host=str(info.get("host") or "127.0.0.1"),
        port=int(info.get("port") or 5432),
        database=str(info.get("dbname") or "postgres"),
        user=str(info.get("user") or "postgres"),
        password_env=PASSWORD_VAR if info.get("password") is not None else None,
    )


@asynccontextmanager
async def opened(
    settings: PostgresSourceSettings, alias: str, time_zone: str = "UTC"
) -> AsyncIterator[PostgresSource]:
    """The source ``alias`` opened with ``settings``, closed on exit."""
    where = context(Path("."), environ=os.environ, time_zone=time_zone)
    with anyio.fail_after(15):
        source = (await open_postgres(alias, settings, where)).unwrap()
    try:
        yield source
    finally:
        with anyio.fail_after(10):
            await source.close()


def unique_alias(kind: str) -> str:
    """A unique alias, so this run's connections are told apart in ``pg_stat_activity``."""
    return f"{kind}_{secrets.token_hex(4)}"


async def active_statements(dsn: str, alias: str, *, terminate: bool = False) -> int:
    """How many statements of ``alias`` run on the server (terminating them when asked)."""
    action = "pg_terminate_backend(pid)" if terminate else "pid"
    query = sql.SQL(
        "SELECT {} FROM pg_stat_activity WHERE application_name = %s AND state = 'active'"
    ).format(sql.SQL(action))
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as admin:
        cursor = await admin.execute(query, (f"sutura {alias}",))
        return len(await cursor.fetchall())


async def until_active(dsn: str, alias: str, *, count: int, terminate: bool = False) -> None:
    """Poll the server until ``alias`` runs ``count`` statements (callers bound the wait)."""
    while await active_statements(dsn, alias, terminate=terminate) != count:
        await anyio.sleep(0.02)


class Proxy:
    """A TCP forwarder to the test server that a test can pause (a silent network) or stop.

    Started with :meth:`serve` in a task group; :meth:`stop` closes the listener and every
    forwarded connection (the server went away).
    """

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._flowing = anyio.Event()
        self._flowing.set()
        self._scope = anyio.CancelScope()
        self._stopped = anyio.Event()
        self.port = 0

    async def serve(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        """Listen on a free local port (``self.port``) and forward every connection."""
        try:
            with self._scope:
                async with await anyio.create_tcp_listener(local_host="127.0.0.1") as listener:
                    self.port = listener.extra(anyio.abc.SocketAttribute.local_port)
                    task_status.started()
                    await listener.serve(self._forward)
        finally:
            self._stopped.set()

    async def stop(self) -> None:
        """Close the listener and every forwarded connection, and wait until they are closed."""
        self._scope.cancel()
        await self._stopped.wait()

    def pause(self) -> None:
        """Stop passing bytes either way; connections stay open and silent."""
        self._flowing = anyio.Event()

    def resume(self) -> None:
        """Pass bytes again."""
        self._flowing.set()

    async def _forward(self, client: anyio.abc.SocketStream) -> None:
        async with (
            client,
            await anyio.connect_tcp(*self._target) as server,
            anyio.create_task_group() as pumps,
        ):
            pumps.start_soon(self._pump, client, server, pumps.cancel_scope)
            pumps.start_soon(self._pump, server, client, pumps.cancel_scope)

    async def _pump(
        self, source: anyio.abc.SocketStream, sink: anyio.abc.SocketStream, scope: anyio.CancelScope
    ) -> None:
        try:
            async for chunk in source:
                await self._flowing.wait()
                await sink.send(chunk)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass
        scope.cancel()
