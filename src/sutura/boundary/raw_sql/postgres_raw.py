"""The raw SQL tool on PostgreSQL: a fresh connection per call, one ``READ ONLY`` transaction.

The boundary is the role (``docs/raw-sql.md``): the runner refuses to start on a role that may
read or write server files (a superuser, or a member of ``pg_read_server_files``,
``pg_write_server_files`` or ``pg_execute_server_program``). Every call then opens its own
connection, started with ``default_transaction_read_only``, UTC and UTF-8, so nothing one call
sets can reach the next; opens ``BEGIN READ ONLY`` with ``SET LOCAL`` ``statement_timeout`` and
``lock_timeout`` a little under what is left of the deadline and an
``idle_in_transaction_session_timeout``; has the server parse the statement (Parse and
Describe, never Execute: the server refuses a second statement there, and names the columns);
asks sqlglot's second opinion; and only then runs it with the extended protocol. psycopg uses
the simple protocol (which runs stacked statements) whenever ``execute()`` has no parameters,
even an empty list; ``stream()`` always uses the extended protocol. The statement is never
parameterised, so a ``%`` in it is text. Rows are streamed and the stream stopped after
``max_rows + 1``; the transaction always ends in ``ROLLBACK`` and the connection is closed. At
the deadline a cancel request is sent.
"""

import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from pathlib import Path
from typing import Final, cast

import anyio
import anyio.to_thread
import psycopg
from psycopg import capabilities, generators, pq, sql
from psycopg.conninfo import make_conninfo
from psycopg.pq.abc import PGresult
from psycopg.rows import TupleRow
from returns.result import Failure, Result, Success

from sutura.boundary.raw_sql.base import rows_outcome
from sutura.boundary.sources.postgres_connect import Connection, Target, read_password, target_of
from sutura.core.raw.check import check_statement, readable
from sutura.core.raw.outcome import (
    RawOutcome,
    RawRefusal,
    RawRefusalCode,
    raw_failure,
    raw_refusal,
)
from sutura.core.settings import PostgresSourceSettings

log = logging.getLogger("sutura.source")

_OPTIONS: Final = "-c default_transaction_read_only=on -c TimeZone=UTC -c client_encoding=UTF8"
_BEGIN: Final = sql.SQL(
    "BEGIN READ ONLY; SET LOCAL statement_timeout = {timeout};"
    " SET LOCAL lock_timeout = {timeout}; SET LOCAL idle_in_transaction_session_timeout = {idle}"
)
_ROLE: Final = (
    "SELECT pg_has_role('pg_read_server_files', 'MEMBER')"
    " OR pg_has_role('pg_write_server_files', 'MEMBER')"
    " OR pg_has_role('pg_execute_server_program', 'MEMBER')"
    " OR current_setting('is_superuser') = 'on',"
    " has_database_privilege(current_database(), 'TEMPORARY')"
)
SecondOpinion = Callable[[str], Awaitable[RawRefusal | None]]
"""A check a statement must pass after the server parsed it: None, or the refusal."""

_CHUNK_ROWS: Final = 1000
_CANCEL_SECONDS: Final = 2.0
_CLEANUP_SECONDS: Final = 2 * _CANCEL_SECONDS
_IN_TRANSACTION: Final = (pq.TransactionStatus.INTRANS, pq.TransactionStatus.INERROR)


class PostgresRaw:
    """The raw runner over one PostgreSQL source: where to connect, and nothing held open."""

    def __init__(self, alias: str, target: Target) -> None:
        self.alias = alias
        self._target = target

    async def run(self, statement: str, *, deadline_seconds: float, max_rows: int) -> RawOutcome:
        """Run ``statement`` on a fresh connection; see :class:`~.base.RawRunner`."""
        deadline_at = anyio.current_time() + deadline_seconds
        outcome: RawOutcome | None = None
        with anyio.move_on_after(deadline_seconds):
            outcome = await self._run(statement, max_rows, deadline_at)
        return raw_refusal(RawRefusalCode.DEADLINE_EXCEEDED) if outcome is None else outcome

    async def close(self) -> None:
        """Nothing is held between calls."""

    async def connect(self) -> Connection | RawRefusal:
        """A fresh connection, started read-only in UTC; ``source_unavailable`` otherwise."""
        try:
            return await psycopg.AsyncConnection.connect(
                self._target.conninfo, autocommit=True, password=self._target.password
            )
        except psycopg.Error as err:
            log.warning("run_sql on %s: no connection: %s", self.alias, err)
            return raw_refusal(RawRefusalCode.SOURCE_UNAVAILABLE)

    async def _run(self, statement: str, max_rows: int, deadline_at: float) -> RawOutcome:
        if not isinstance(readable(statement), Success):
            return raw_refusal(RawRefusalCode.NOT_READ_ONLY)
        connection = await self.connect()
        if isinstance(connection, RawRefusal):
            return connection
        try:
            return await execute_on_engine(
                connection, statement, max_rows, deadline_at, second_opinion=second_opinion
            )
        finally:
            with anyio.CancelScope(shield=True):
                await connection.close()


async def second_opinion(statement: str) -> RawRefusal | None:
    """sqlglot's verdict (:func:`check_statement`), read in a worker thread."""
    checked = await anyio.to_thread.run_sync(
        check_statement, statement, "postgres", abandon_on_cancel=True
    )
    return None if isinstance(checked, Success) else checked.failure()


async def execute_on_engine(
    connection: Connection,
    statement: str,
    max_rows: int,
    deadline_at: float,
    *,
    second_opinion: SecondOpinion,
) -> RawOutcome:
    """One statement in a ``READ ONLY`` transaction that always rolls back.

    The server parses it first (its words come back for a statement it will not parse), then
    ``second_opinion`` must agree before it runs. The tests pass one that always agrees, to
    show that the transaction, the protocol and the role hold without it.
    """
    finished = False
    try:
        await connection.execute(_begin(deadline_at))
        columns = await _columns(connection, statement)
        refused = await second_opinion(statement)
        if refused is not None:
            finished = True
            return refused
        rows = await _stream(connection, statement, max_rows)
        finished = True
    except psycopg.Error as err:
        finished = True
        return _refusal_for(err)
    finally:
        # Shielded from the caller's cancellation, bounded on its own: a server that stopped
        # answering must not hold the call past its deadline for ever.
        with anyio.CancelScope(shield=True, deadline=anyio.current_time() + _CLEANUP_SECONDS):
            if not finished:
                await _cancel(connection)
            await _rollback(connection)
    return rows_outcome(columns, rows, max_rows, "postgres")


def _begin(deadline_at: float) -> sql.Composed:
    left = deadline_at - anyio.current_time()
    # Under the deadline by a margin, so the server's timer fires before the client's.
    timeout_ms = max(1, int(1000 * (left - min(0.25, left / 10))))
    return _BEGIN.format(timeout=sql.Literal(timeout_ms), idle=sql.Literal(timeout_ms + 5000))


async def _columns(connection: Connection, statement: str) -> list[str]:
    """The server's own parse of the statement (Parse and Describe, never Execute): the names
    of its columns, known even when it returns no row. A statement the server will not parse
    as one statement raises its error here, before anything runs."""
    pgconn = connection.pgconn
    async with connection.lock:
        pgconn.send_prepare(b"", statement.encode("utf-8"))
        _raise_for(await connection.wait(generators.execute(pgconn)))
        pgconn.send_describe_prepared(b"")
        (described,) = _raise_for(await connection.wait(generators.execute(pgconn)))
    return [(described.fname(i) or b"").decode("utf-8") for i in range(described.nfields)]


def _raise_for(results: list[PGresult]) -> list[PGresult]:
    for result in results:
        if result.status == pq.ExecStatus.FATAL_ERROR:
            raise psycopg.errors.error_from_result(result, encoding="utf-8")
    return results


async def _stream(connection: Connection, statement: str, max_rows: int) -> list[TupleRow]:
    """The statement's rows, stopping (and cancelling the rest) after ``max_rows + 1``."""
    rows: list[TupleRow] = []
    chunk = min(max_rows + 1, _CHUNK_ROWS) if capabilities.has_stream_chunked() else 1
    cursor = connection.cursor()
    # No parameters: nothing in the statement is read as a placeholder.
    stream = cursor.stream(statement, None, size=chunk)
    async with aclosing(cast("AsyncGenerator[TupleRow, None]", stream)) as rows_in:
        async for row in rows_in:
            rows.append(row)
            if len(rows) > max_rows:
                break
    return rows


async def _cancel(connection: Connection) -> None:
    try:
        await connection.cancel_safe(timeout=_CANCEL_SECONDS)
    except psycopg.Error as err:
        log.warning("run_sql: cancel request failed: %s", err)


async def _rollback(connection: Connection) -> None:
    if connection.pgconn.transaction_status in _IN_TRANSACTION:
        try:
            await connection.execute("ROLLBACK")
        except psycopg.Error as err:
            log.debug("run_sql: rollback failed: %s", err)


def _refusal_for(err: psycopg.Error) -> RawRefusal:
    """The refusal for a driver error: the server's words for a statement it refused."""
    state = err.sqlstate
    if isinstance(err, psycopg.errors.QueryCanceled):
        return raw_refusal(RawRefusalCode.DEADLINE_EXCEEDED)
    if state is None:  # the driver's complaint, not the server's words
        log.warning("run_sql: %s", err)
        lost = isinstance(err, psycopg.OperationalError | psycopg.InterfaceError)
        return raw_refusal(RawRefusalCode.SOURCE_UNAVAILABLE) if lost else raw_failure(None)
    if state == "53300" or state.startswith("57P") or (state[:2] == "08" and state != "08P01"):
        log.warning("run_sql: the server is unavailable: %s", err)
        return raw_refusal(RawRefusalCode.SOURCE_UNAVAILABLE)
    if state.startswith("53"):
        return raw_refusal(RawRefusalCode.RESOURCES_EXHAUSTED)
    return raw_failure(str(err))


async def open_postgres_raw(
    alias: str, settings: PostgresSourceSettings, base_dir: Path
) -> Result[PostgresRaw, str]:
    """The raw runner over the PostgreSQL source ``alias``, after checking its role."""
    target = read_password(settings, base_dir).bind(
        lambda password: target_of(alias, settings, password)
    )
    if not isinstance(target, Success):
        return Failure(target.failure())
    conninfo = make_conninfo(
        target.unwrap().conninfo, options=_OPTIONS, application_name=f"sutura run_sql {alias}"
    )
    runner = PostgresRaw(alias, Target(conninfo, target.unwrap().password))
    problem = await _role_problem(runner, settings.user)
    return Success(runner) if problem is None else Failure(problem)


async def _role_problem(runner: PostgresRaw, user: str) -> str | None:
    """Why the role must not serve run_sql, or None (a TEMPORARY grant is only logged)."""
    connection = await runner.connect()
    if isinstance(connection, RawRefusal):
        return "cannot connect to PostgreSQL (details in the log)"
    try:
        row = await (await connection.execute(_ROLE)).fetchone()
    except psycopg.Error as err:
        log.error("run_sql on %s: cannot read the role: %s", runner.alias, err)
        return "cannot read the role's privileges (details in the log)"
    finally:
        await connection.close()
    if row is not None and row[1]:
        log.warning("run_sql on %s: the role %s may create TEMPORARY tables", runner.alias, user)
    if row is None or row[0]:
        return (
            f"the role {user} may read or write server files; run_sql needs a role that may "
            "only SELECT named tables (docs/raw-sql.md)"
        )
    return None
