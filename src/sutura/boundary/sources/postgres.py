"""The PostgreSQL source: a real server, read through a bounded pool of psycopg connections.

Each answer borrows one pooled connection and runs inside its own ``BEGIN READ ONLY``
transaction with ``SET LOCAL statement_timeout`` a little under what is left of the deadline,
so the server itself usually stops a slow statement and the connection stays usable. The
statement is sent with the extended protocol only (every value a bind parameter, so stacked
statements are rejected by the server) and its rows are streamed: after ``max_rows + 1`` rows
the rest is cancelled. The transaction always ends in ``ROLLBACK``. At the deadline the wait is
cancelled on the client too and a cancel request reaches the server, for the case the server's
own timer cannot fire (a network that stopped answering).

A connection found dead before the statement ran (the server restarted since it was pooled) is
replaced once, after the pool checks its idle connections. The driver's own messages go to the
``sutura.source`` log, never into a refusal.
"""

import logging
from collections.abc import AsyncGenerator
from contextlib import aclosing
from pathlib import Path
from typing import Final, cast

import anyio
import anyio.to_thread
import psycopg
from psycopg import capabilities, pq, sql
from psycopg.pq.abc import PGcancel
from psycopg.rows import TupleRow
from psycopg_pool import PoolClosed, PoolTimeout
from returns.result import Failure, Result, Success

from sutura.boundary.sources.base import TextRows
from sutura.boundary.sources.postgres_connect import (
    Connection,
    Pool,
    PoolHealth,
    open_pool,
    probe,
    read_password,
    target_of,
    where,
)
from sutura.core.outcome.refusal import Refusal, RefusalCode, refusal
from sutura.core.settings import LimitsSettings, PostgresSourceSettings
from sutura.core.sql.cells import UnsupportedCellError, cell_text
from sutura.core.sql.compile import CompiledQuery, Dialect

log = logging.getLogger("sutura.source")

_BEGIN: Final = sql.SQL("BEGIN READ ONLY; SET LOCAL statement_timeout = {}")
_CHUNK_ROWS: Final = 1000
_ACQUIRE_SLICE_SECONDS: Final = 0.1
_CANCEL_SECONDS: Final = 2.0
_IN_TRANSACTION: Final = (pq.TransactionStatus.INTRANS, pq.TransactionStatus.INERROR)


class PostgresSource:
    """A PostgreSQL server under an alias, read through a bounded connection pool."""

    def __init__(self, alias: str, posture: str, pool: Pool, health: PoolHealth) -> None:
        self.alias = alias
        self.posture = posture
        self.dialect: Dialect = "postgres"
        self._pool = pool
        self._health = health

    async def run(
        self, compiled: CompiledQuery, *, deadline_seconds: float, max_rows: int
    ) -> Result[TextRows, Refusal]:
        """Run ``compiled`` under a deadline on a pooled connection; see :class:`Source`."""
        deadline_at = anyio.current_time() + deadline_seconds
        outcome: Result[TextRows, Refusal] | None = None
        with anyio.move_on_after(deadline_seconds):
            outcome = await self._attempt(compiled, max_rows, deadline_at, retry=True)
        if outcome is None:
            log.warning("source %s: query cancelled at the deadline", self.alias)
            return Failure(refusal(RefusalCode.DEADLINE_EXCEEDED))
        return outcome

    async def close(self) -> None:
        """Close the pool; later runs refuse with ``source_unavailable``."""
        await self._pool.close()

    async def _attempt(
        self, compiled: CompiledQuery, max_rows: int, deadline_at: float, *, retry: bool
    ) -> Result[TextRows, Refusal]:
        """One answer on one borrowed connection; once more if it was dead before it began."""
        connection = await self._acquire(deadline_at)
        if isinstance(connection, Refusal):
            return Failure(connection)
        try:
            begun = await _begin(connection, deadline_at)
            if begun is None:
                return await self._answer(connection, compiled, max_rows)
        finally:
            await self._release(connection)
        if not (retry and connection.broken):
            return Failure(self._refusal_for(begun))
        log.info(
            "source %s: a pooled connection was dead (%s); checking the pool", self.alias, begun
        )
        await self._pool.check()
        return await self._attempt(compiled, max_rows, deadline_at, retry=False)

    async def _acquire(self, deadline_at: float) -> Connection | Refusal:
        """A pooled connection; ``source_unavailable`` once the server proves unreachable."""
        while (left := deadline_at - anyio.current_time()) > 0:
            try:
                return await self._pool.getconn(timeout=min(left, _ACQUIRE_SLICE_SECONDS))
            except PoolTimeout:
                if self._health.unreachable():
                    log.warning(
                        "source %s: no connection: the server cannot be reached", self.alias
                    )
                    return refusal(RefusalCode.SOURCE_UNAVAILABLE)
            except (PoolClosed, psycopg.Error) as err:
                log.warning("source %s: no connection: %s", self.alias, err)
                return refusal(RefusalCode.SOURCE_UNAVAILABLE)
        log.warning("source %s: no free connection before the deadline", self.alias)
        return refusal(RefusalCode.DEADLINE_EXCEEDED)

    async def _answer(
        self, connection: Connection, compiled: CompiledQuery, max_rows: int
    ) -> Result[TextRows, Refusal]:
        """Fetch up to ``max_rows + 1`` rows as text; cancel the statement if interrupted."""
        cancel = connection.pgconn.get_cancel()
        finished = False
        try:
            rows = await _fetch(connection, compiled, max_rows)
            finished = True
        except psycopg.Error as err:
            finished = True
            return Failure(self._refusal_for(err))
        finally:
            if not finished:
                await _send_cancel(cancel, self.alias)
        if len(rows) > max_rows:
            return Failure(refusal(RefusalCode.RESULT_TOO_LARGE))
        try:
            return Success([[cell_text(cell) for cell in row] for row in rows])
        except UnsupportedCellError as err:
            log.warning("source %s: %s", self.alias, err)
            return Failure(refusal(RefusalCode.VALUE_NOT_REPRESENTABLE))

    async def _release(self, connection: Connection) -> None:
        """End the transaction and give the connection back, even while being cancelled."""
        with anyio.CancelScope(shield=True):
            if connection.pgconn.transaction_status in _IN_TRANSACTION:
                try:
                    await connection.execute("ROLLBACK")
                except psycopg.Error as err:
                    log.debug("source %s: rollback failed: %s", self.alias, err)
            await self._pool.putconn(connection)

    def _refusal_for(self, err: psycopg.Error) -> Refusal:
        """Log the driver's message and return the refusal that replaces it."""
        code = code_for(err)
        log.warning("source %s: %s: %s", self.alias, code.value, err)
        return refusal(code)


async def _begin(connection: Connection, deadline_at: float) -> psycopg.Error | None:
    """Open the read-only transaction with the statement timeout; the driver's error if any."""
    left = deadline_at - anyio.current_time()
    # Below the deadline by a margin, so the server's timer fires before the client's.
    timeout_ms = max(1, int(1000 * (left - min(0.25, left / 10))))
    try:
        await connection.execute(_BEGIN.format(sql.Literal(timeout_ms)))
    except psycopg.Error as err:
        return err
    return None


async def _fetch(connection: Connection, compiled: CompiledQuery, max_rows: int) -> list[TupleRow]:
    """Stream the statement's rows, stopping (and cancelling the rest) after ``max_rows + 1``.

    Streaming, unlike a server-side cursor or a row-limited portal, leaves the server free to
    plan the statement in parallel.
    """
    rows: list[TupleRow] = []
    chunk = min(max_rows + 1, _CHUNK_ROWS) if capabilities.has_stream_chunked() else 1
    stream = connection.cursor().stream(compiled.sql, compiled.params, size=chunk)
    async with aclosing(cast("AsyncGenerator[TupleRow, None]", stream)) as rows_in:
        async for row in rows_in:
            rows.append(row)
            if len(rows) > max_rows:
                break
    return rows


async def _send_cancel(cancel: PGcancel, alias: str) -> None:
    """Ask the server to cancel the running statement; bounded, and immune to cancellation."""
    with anyio.CancelScope(shield=True), anyio.move_on_after(_CANCEL_SECONDS):
        try:
            await anyio.to_thread.run_sync(cancel.cancel, abandon_on_cancel=True)
        except psycopg.Error as err:
            log.warning("source %s: cancel request failed: %s", alias, err)


def code_for(err: psycopg.Error) -> RefusalCode:
    """The refusal code for a driver error, by SQLSTATE class.

    >>> code_for(psycopg.errors.QueryCanceled()).value
    'deadline_exceeded'
    >>> code_for(psycopg.errors.AdminShutdown()).value
    'source_unavailable'
    >>> code_for(psycopg.errors.DiskFull()).value
    'resources_exhausted'
    >>> code_for(psycopg.errors.UndefinedTable()).value
    'source_refused'
    """
    state = err.sqlstate or ""
    if isinstance(err, psycopg.errors.QueryCanceled):
        return RefusalCode.DEADLINE_EXCEEDED
    if state == "53300":  # too many connections: the server is full, not the question too big
        return RefusalCode.SOURCE_UNAVAILABLE
    if state.startswith("53"):
        return RefusalCode.RESOURCES_EXHAUSTED
    lost = isinstance(err, psycopg.OperationalError | psycopg.InterfaceError) and not state
    if lost or state.startswith(("08", "57P")):
        return RefusalCode.SOURCE_UNAVAILABLE
    return RefusalCode.SOURCE_REFUSED


async def open_postgres(
    alias: str, settings: PostgresSourceSettings, base_dir: Path, limits: LimitsSettings
) -> Result[PostgresSource, str]:
    """Open the PostgreSQL source ``alias``: read the password, connect once, open the pool.

    Args:
        alias: The source's name in the settings.
        settings: Its settings; a relative ``password_file`` is relative to ``base_dir``.
        base_dir: The directory of the settings file.
        limits: The bounds; the deadline and row cap arrive with each query.

    Returns:
        The source, or an operator-facing sentence naming host, port and database (the
        driver's own message is logged to ``sutura.source``).
    """
    del limits  # PostgreSQL's own memory settings are the operator's, on the server
    target = read_password(settings, base_dir).bind(
        lambda password: target_of(alias, settings, password)
    )
    if not isinstance(target, Success):
        return Failure(f"source {alias}: {target.failure()}")
    problem = await probe(alias, target.unwrap())
    if problem is not None:
        log.error("source %s: cannot connect to %s: %s", alias, where(settings), problem)
        return Failure(
            f"source {alias}: cannot connect to PostgreSQL at {where(settings)}"
            " (details in the log)"
        )
    opened = await open_pool(alias, settings, target.unwrap())
    if not isinstance(opened, Success):
        return Failure(f"source {alias}: {opened.failure()}")
    pool, health = opened.unwrap()
    return Success(PostgresSource(alias, settings.posture, pool, health))
