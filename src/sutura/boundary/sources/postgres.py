"""PostgreSQL: the certified source and the raw SQL runner, one error table, one way to stream.

**The certified source** reads through a bounded pool of psycopg connections. Each answer
borrows one connection and runs inside its own ``BEGIN READ ONLY`` transaction with ``SET
LOCAL statement_timeout`` a little under what is left of the deadline, so the server itself
usually stops a slow statement and the connection stays usable. The statement is sent with the
extended protocol only (every value a bind parameter, so stacked statements are rejected by the
server) and its rows are streamed: after ``max_rows + 1`` rows the rest is cancelled. The
transaction always ends in ``ROLLBACK``. A connection found dead before the statement ran (the
server restarted since it was pooled) is replaced once, after the pool checks its idle ones. A
connection the deadline stopped before the server answered — its statement or its ``BEGIN``,
as on a network that went silent — is closed and never pooled again (the pool opens another):
after a blackhole, no pooled connection is left waiting for bytes that were swallowed.

**The raw runner** reads through a fresh connection per call (nothing one call sets can reach
the next), started with ``default_transaction_read_only``, the catalog's time zone, UTF-8 and
the certified sessions' ``work_mem``.
The boundary is the role (``docs/raw-sql.md``): the runner refuses to start on a role that may
read or write server files. Each call opens ``BEGIN READ ONLY`` with ``statement_timeout`` and
``lock_timeout`` under the deadline; has the server parse the statement (Parse and Describe,
never Execute: the server refuses a second statement there, and names the columns); asks
sqlglot's second opinion; and only then streams it with the extended protocol (psycopg uses the
simple protocol, which runs stacked statements, whenever ``execute()`` has no parameters;
``stream()`` never does). The statement is never parameterised, so a ``%`` in it is text.

Both stop a statement the caller stopped waiting for with a cancel request prepared before it
ran and sent without blocking (bounded, shielded), so a server that stopped answering never
holds the event loop.
:func:`postgres_fault` is the one SQLSTATE table of both.
"""

import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import Final, cast

import anyio
import anyio.to_thread
import psycopg
from psycopg import capabilities, generators, pq, sql, waiting
from psycopg.conninfo import make_conninfo
from psycopg.pq.abc import PGresult
from psycopg.rows import TupleRow
from psycopg_pool import PoolClosed, PoolTimeout
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.sources.context import SourceContext
from sutura.boundary.sources.postgres_collation import code_point_columns
from sutura.boundary.sources.postgres_connect import (
    Connection,
    Pool,
    PoolHealth,
    Target,
    open_pool,
    probe,
    read_password,
    target_of,
    where,
)
from sutura.boundary.sources.postgres_memory import memory_problem, work_mem_kb
from sutura.boundary.sources.skeleton import (
    Capacity,
    Classified,
    Described,
    Faulted,
    Fetched,
    Rejected,
    RowTexts,
    SourceFaultError,
    raw_outcome,
)
from sutura.core.nouns.dialect import Dialect
from sutura.core.outcome.fault import Fault
from sutura.core.raw.check import check_statement
from sutura.core.raw.outcome import RawOutcome, RawRefusal
from sutura.core.settings import PostgresSourceSettings
from sutura.core.sql.cells import UnsupportedCellError

log = logging.getLogger("sutura.source")

_CERTIFIED_BEGIN: Final = sql.SQL("BEGIN READ ONLY; SET LOCAL statement_timeout = {timeout}")
_RAW_BEGIN: Final = sql.SQL(
    "BEGIN READ ONLY; SET LOCAL statement_timeout = {timeout};"
    " SET LOCAL lock_timeout = {timeout}; SET LOCAL idle_in_transaction_session_timeout = {idle}"
)
_RAW_OPTIONS: Final = "-c default_transaction_read_only=on -c client_encoding=UTF8"
_ROLE: Final = (
    "SELECT pg_has_role('pg_read_server_files', 'MEMBER')"
    " OR pg_has_role('pg_write_server_files', 'MEMBER')"
    " OR pg_has_role('pg_execute_server_program', 'MEMBER')"
    " OR current_setting('is_superuser') = 'on',"
    " has_database_privilege(current_database(), 'TEMPORARY')"
)
_CHUNK_ROWS: Final = 1000
_ACQUIRE_SLICE_SECONDS: Final = 0.1
_CANCEL_SECONDS: Final = 2.0
_CLEANUP_SECONDS: Final = 2 * _CANCEL_SECONDS
_IN_TRANSACTION: Final = (pq.TransactionStatus.INTRANS, pq.TransactionStatus.INERROR)

SecondOpinion = Callable[[str], Awaitable[RawRefusal | None]]
"""A check a raw statement must pass after the server parsed it: None, or the refusal."""


def postgres_fault(error: Exception) -> Classified | None:
    """What a driver error stands for, by SQLSTATE class (None for a non-driver error).

    >>> postgres_fault(psycopg.errors.QueryCanceled()).fault.value
    'deadline'
    >>> postgres_fault(psycopg.errors.AdminShutdown()).fault.value
    'unavailable'
    >>> postgres_fault(psycopg.errors.DiskFull()).fault.value
    'resources'
    >>> postgres_fault(psycopg.errors.UndefinedTable("no such table")).words
    'no such table'
    """
    if not isinstance(error, psycopg.Error):
        return None
    state = error.sqlstate or ""
    if isinstance(error, psycopg.errors.QueryCanceled):
        return Classified(Fault.DEADLINE)
    if state == "53300":  # too many connections: the server is full, not the statement too big
        return Classified(Fault.UNAVAILABLE)
    if state.startswith("53"):
        return Classified(Fault.RESOURCES)
    if not state:  # the driver's own complaint: a lost connection, or no words of the server's
        lost = isinstance(error, psycopg.OperationalError | psycopg.InterfaceError)
        return Classified(Fault.UNAVAILABLE if lost else Fault.STATEMENT)
    if state.startswith("57P") or (state.startswith("08") and state != "08P01"):
        return Classified(Fault.UNAVAILABLE)
    return Classified(Fault.STATEMENT, str(error))


def _timeout_ms(deadline_at: float) -> int:
    """A statement timeout under what is left of the deadline, so the server's timer fires
    before the client's."""
    left = deadline_at - anyio.current_time()
    return max(1, int(1000 * (left - min(0.25, left / 10))))


async def _stream(
    connection: Connection,
    statement: str,
    params: Sequence[object] | None,
    max_rows: int,
    texts: RowTexts | None = None,
) -> list[TupleRow]:
    """The statement's rows, stopping (and cancelling the rest) after ``max_rows + 1``; given
    ``texts``, added to it as text a chunk at a time instead (none returned), so the driver's
    values of one chunk at most are alive beside the text.

    Streaming, unlike a server-side cursor or a row-limited portal, leaves the server free to
    plan the statement in parallel; it always uses the extended protocol.
    """
    rows: list[TupleRow] = []
    converted = 0
    chunk = min(max_rows + 1, _CHUNK_ROWS) if capabilities.has_stream_chunked() else 1
    stream = connection.cursor().stream(statement, params, size=chunk)
    async with aclosing(cast("AsyncGenerator[TupleRow, None]", stream)) as rows_in:
        async for row in rows_in:
            rows.append(row)
            if converted + len(rows) > max_rows:
                break
            if texts is not None and len(rows) >= texts.wanted():
                texts.add(rows)
                converted, rows = converted + len(rows), []
    if texts is not None:
        texts.add(rows)
        return []
    return rows


class _Canceller:
    """A cancel request for one statement, prepared before the statement runs.

    When a wait on the connection is interrupted, psycopg tries to cancel on its own and, being
    interrupted again by the caller's cancellation, closes the connection; a request made from
    the connection after that is lost. This one is made beforehand, from the connection's key,
    and sent with libpq's non-blocking cancel (17+) polled on the event loop, so a server that
    stopped answering holds no thread and no interpreter lock; with an older libpq, the
    blocking request runs in a worker thread. Either way it is bounded.
    """

    def __init__(self, connection: Connection) -> None:
        pgconn = connection.pgconn
        self._safe = pgconn.cancel_conn() if capabilities.has_cancel_safe() else None
        self._plain = None if self._safe is not None else pgconn.get_cancel()

    async def send(self) -> None:
        """Ask the server to stop the statement; at most ``_CANCEL_SECONDS``, never cancelled."""
        with anyio.CancelScope(shield=True), anyio.move_on_after(_CANCEL_SECONDS) as waited:
            try:
                if self._safe is not None:
                    self._safe.start()
                    await waiting.wait_conn_async(generators.cancel(self._safe))
                elif self._plain is not None:
                    await anyio.to_thread.run_sync(self._plain.cancel, abandon_on_cancel=True)
            except psycopg.Error as error:
                log.warning("source: cancel request failed: %s", error)
        if waited.cancelled_caught:
            log.warning("source: the cancel request got no answer in %s s", _CANCEL_SECONDS)
        if self._safe is not None:
            self._safe.finish()


async def _end(connection: Connection, canceller: _Canceller | None) -> None:
    """Cancel the running statement (when it did not finish) and roll back: shielded from the
    caller's cancellation, and bounded on its own, so a silent server cannot hold anyone."""
    if canceller is not None:
        await canceller.send()
    with anyio.CancelScope(shield=True, deadline=anyio.current_time() + _CLEANUP_SECONDS):
        if not connection.closed and connection.pgconn.transaction_status in _IN_TRANSACTION:
            try:
                await connection.execute("ROLLBACK")
            except psycopg.Error as error:
                log.debug("source: rollback failed: %s", error)


class PostgresSource:
    """A PostgreSQL server under an alias, read through a bounded connection pool."""

    dialect: Final[Dialect] = Dialect.POSTGRES
    stops_in_place: Final = False
    """A cancelled fetch cancels and rolls back, shielded: anyio's scopes bound it."""

    def __init__(self, alias: str, posture: str, pool: Pool, health: PoolHealth) -> None:
        self.alias = alias
        self.posture = posture
        self._pool = pool
        self._health = health

    def capacity(self) -> Capacity:
        """How many connections its pool keeps (``pool_size``)."""
        return Capacity(pool_size=self._pool.max_size)

    def classify(self, error: Exception) -> Classified | None:
        """The PostgreSQL error table."""
        return postgres_fault(error)

    async def fetch(
        self,
        statement: str,
        params: Sequence[object],
        max_rows: int,
        deadline_at: float,
        texts: RowTexts | None = None,
    ) -> Fetched:
        """One statement in a read-only transaction on a pooled connection; its rows added to
        ``texts`` as they arrive, when given."""
        rows = await self._attempt(statement, params, max_rows, deadline_at, texts, retry=True)
        return Fetched([], rows)

    async def describe(self, statement: str, deadline_at: float) -> Described:
        """The columns (name, PostgreSQL type) a statement returns, and the text ones whose
        collation orders by code point (asked in the same transaction); no row is read."""
        connection = await self._acquire()
        answered = False
        try:
            timeout = sql.Literal(_timeout_ms(deadline_at))
            await connection.execute(_CERTIFIED_BEGIN.format(timeout=timeout))
            cursor = await connection.execute(statement)
            columns = [(column.name, column.type_display) for column in cursor.description or ()]
            described = cursor.pgresult
            ordered = (
                frozenset()
                if described is None
                else await code_point_columns(connection, described, [n for n, _ in columns])
            )
            answered = True
            return Described(columns, ordered)
        except psycopg.Error:
            answered = True  # the server's answer, an error
            raise
        finally:
            if answered:
                await _end(connection, None)
                await self._put(connection)
            else:
                await self._discard(connection, None)

    async def close(self) -> None:
        """Close the pool; later fetches fail as ``unavailable``."""
        await self._pool.close()

    async def _attempt(
        self,
        statement: str,
        params: Sequence[object],
        max_rows: int,
        deadline_at: float,
        texts: RowTexts | None,
        *,
        retry: bool,
    ) -> list[TupleRow]:
        """One statement on one borrowed connection; once more if it was dead before it began."""
        connection = await self._acquire()
        try:
            timeout = sql.Literal(_timeout_ms(deadline_at))
            await connection.execute(_CERTIFIED_BEGIN.format(timeout=timeout))
        except psycopg.Error as error:
            await self._put(connection)
            if not (retry and connection.broken):
                raise
            log.info("source %s: a pooled connection was dead (%s); checking", self.alias, error)
            await self._pool.check()
            return await self._attempt(statement, params, max_rows, deadline_at, texts, retry=False)
        except BaseException:  # stopped mid-BEGIN (the deadline): nothing runs to cancel
            await self._discard(connection, None)
            raise
        canceller = _Canceller(connection)
        answered = False
        try:
            rows = await _stream(connection, statement, params, max_rows, texts)
            answered = True
            return rows
        except psycopg.Error:
            answered = True  # the server's answer, an error
            raise
        except UnsupportedCellError:
            answered = True  # a cell without a text: the stream was closed, as past max_rows
            raise
        finally:
            if answered:
                await _end(connection, None)
                await self._put(connection)
            else:
                await self._discard(connection, canceller)

    async def _discard(self, connection: Connection, running: _Canceller | None) -> None:
        """Close a connection the deadline stopped mid-statement (perhaps on a network that went
        silent), after asking the server to stop the statement ``running``: it is never pooled
        again, since the bytes it was owed may never come, or come when the next statement's
        are awaited. The pool replaces it."""
        if running is not None:
            await running.send()
        with anyio.CancelScope(shield=True):
            await connection.close()
            await self._pool.putconn(connection)

    async def _acquire(self) -> Connection:
        """A pooled connection; ``unavailable`` once the server proves unreachable. Waits
        until the caller's deadline cancels it for a connection to come free."""
        while True:
            try:
                return await self._pool.getconn(timeout=_ACQUIRE_SLICE_SECONDS)
            except PoolTimeout:
                if self._health.unreachable():
                    reason = "the server cannot be reached"
                    raise SourceFaultError(Fault.UNAVAILABLE, reason) from None
            except PoolClosed:
                raise SourceFaultError(Fault.UNAVAILABLE, "the source is closed") from None

    async def _put(self, connection: Connection) -> None:
        with anyio.CancelScope(shield=True):
            await self._pool.putconn(connection)


async def open_postgres(
    alias: str, settings: PostgresSourceSettings, context: SourceContext
) -> Result[PostgresSource, str]:
    """Open the PostgreSQL source ``alias``: read the password, connect once, open the pool.

    Returns:
        The source, or an operator-facing sentence naming host, port and database (the
        driver's own message is logged to ``sutura.source``).
    """
    target = read_password(settings, context.base_dir, context.environ).bind(
        lambda password: target_of(alias, settings, password)
    )
    if not is_successful(target):
        return Failure(f"source {alias}: {target.failure()}")
    work_mem = work_mem_kb(alias, settings)
    if not is_successful(work_mem):
        return Failure(work_mem.failure())
    problem = await probe(alias, target.unwrap())
    if problem is not None:
        log.error("source %s: cannot connect to %s: %s", alias, where(settings), problem)
        return Failure(
            f"source {alias}: cannot connect to PostgreSQL at {where(settings)}"
            " (details in the log)"
        )
    opened = await open_pool(alias, settings, target.unwrap(), context.time_zone, work_mem.unwrap())
    if not is_successful(opened):
        return Failure(f"source {alias}: {opened.failure()}")
    pool, health = opened.unwrap()
    if (short := await memory_problem(alias, pool)) is not None:
        await pool.close()
        return Failure(short)
    return Success(PostgresSource(alias, settings.posture, pool, health))


class PostgresRaw:
    """The raw runner over one PostgreSQL source: where to connect, and nothing held open."""

    grace_seconds: Final = 0.0

    def __init__(self, alias: str, target: Target) -> None:
        self.alias = alias
        self._target = target

    def classify(self, error: Exception) -> Classified | None:
        """The PostgreSQL error table."""
        return postgres_fault(error)

    async def fetch_statement(
        self, statement: str, max_rows: int, deadline_at: float
    ) -> Fetched | Rejected:
        """Check and run ``statement`` on a fresh connection, closed after."""
        connection = await self.connect()
        try:
            return await fetch_statement_on(
                connection, statement, max_rows, deadline_at, second_opinion=second_opinion
            )
        finally:
            with anyio.CancelScope(shield=True):
                await connection.close()

    async def close(self) -> None:
        """Nothing is held between calls."""

    async def connect(self) -> Connection:
        """A fresh connection, started read-only in the catalog's time zone."""
        return await psycopg.AsyncConnection.connect(
            self._target.conninfo, autocommit=True, password=self._target.password
        )


async def second_opinion(statement: str) -> RawRefusal | None:
    """sqlglot's verdict (:func:`check_statement`), read in a worker thread."""
    checked = await anyio.to_thread.run_sync(
        check_statement, statement, "postgres", abandon_on_cancel=True
    )
    return None if is_successful(checked) else checked.failure()


async def fetch_statement_on(
    connection: Connection,
    statement: str,
    max_rows: int,
    deadline_at: float,
    *,
    second_opinion: SecondOpinion,
) -> Fetched | Rejected:
    """One statement in a ``READ ONLY`` transaction that always rolls back.

    The server parses it first (its words come back for a statement it will not parse), then
    ``second_opinion`` must agree before it runs.
    """
    canceller: _Canceller | None = _Canceller(connection)
    try:
        timeout = _timeout_ms(deadline_at)
        begin = _RAW_BEGIN.format(timeout=sql.Literal(timeout), idle=sql.Literal(timeout + 5000))
        await connection.execute(begin)
        columns = await _columns(connection, statement)
        refused = await second_opinion(statement)
        if refused is not None:
            canceller = None
            return Rejected(refused)
        rows = await _stream(connection, statement, None, max_rows)
        canceller = None
        return Fetched(columns, rows)
    except psycopg.Error:
        canceller = None
        raise
    finally:
        await _end(connection, canceller)


async def execute_on_engine(
    connection: Connection,
    statement: str,
    max_rows: int,
    deadline_at: float,
    *,
    second_opinion: SecondOpinion,
) -> RawOutcome:
    """The outcome of one statement on ``connection``: the tests pass a second opinion that
    always agrees, to show that the transaction, the protocol and the role hold without it."""
    try:
        fetched: Fetched | Rejected | Faulted = await fetch_statement_on(
            connection, statement, max_rows, deadline_at, second_opinion=second_opinion
        )
    except psycopg.Error as error:
        classified = postgres_fault(error) or Classified(Fault.STATEMENT)
        fetched = Faulted(classified.fault, classified.words)
    return raw_outcome(fetched, max_rows, "postgres")


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


async def open_postgres_raw(
    alias: str, settings: PostgresSourceSettings, context: SourceContext
) -> Result[PostgresRaw, str]:
    """The raw runner over the PostgreSQL source ``alias``, after checking its role."""
    target = read_password(settings, context.base_dir, context.environ).bind(
        lambda password: target_of(alias, settings, password)
    )
    if not is_successful(target):
        return Failure(target.failure())
    work_mem = work_mem_kb(alias, settings)
    if not is_successful(work_mem):
        return Failure(work_mem.failure())
    options = f"{_RAW_OPTIONS} -c TimeZone={context.time_zone} -c work_mem={work_mem.unwrap()}kB"
    conninfo = make_conninfo(
        target.unwrap().conninfo, options=options, application_name=f"sutura run_sql {alias}"
    )
    runner = PostgresRaw(alias, Target(conninfo, target.unwrap().password))
    problem = await _role_problem(runner, settings.user)
    return Success(runner) if problem is None else Failure(problem)


async def _role_problem(runner: PostgresRaw, user: str) -> str | None:
    """Why the role must not serve run_sql, or None (a TEMPORARY grant is only logged)."""
    try:
        connection = await runner.connect()
    except psycopg.Error as error:
        log.warning("run_sql on %s: no connection: %s", runner.alias, error)
        return "cannot connect to PostgreSQL (details in the log)"
    try:
        row = await (await connection.execute(_ROLE)).fetchone()
    except psycopg.Error as error:
        log.error("run_sql on %s: cannot read the role: %s", runner.alias, error)
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
