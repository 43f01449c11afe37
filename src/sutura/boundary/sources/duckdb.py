"""The embedded DuckDB source: a database file, or a directory of CSV/Parquet files.

A database file is opened read-only; a directory is loaded into an in-memory database
(:mod:`.duckdb_files`). Then the connection is locked: the catalog's time zone, no file or
network access, no extension autoloading, the operator's memory limit and threads, and no later
change of configuration. Each statement runs on the cursor of the worker thread that runs it
(kept from one of its statements to the next that ran whole: :class:`HeldCursors`); when the
caller stops waiting, the cursor is interrupted (or never taken), and closed. The columns
DuckDB writes exactly as their canonical text come back as that text, cast in the engine
(:mod:`.duckdb_text`).
:func:`duckdb_fault` is DuckDB's error table, shared with the raw SQL runner.
"""

import functools
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final, TypeVar

import anyio
import duckdb
from returns.result import Failure, Result, Success

from sutura.boundary.cpus import available_cpus
from sutura.boundary.sources.context import SourceContext
from sutura.boundary.sources.duckdb_files import load_directory
from sutura.boundary.sources.duckdb_lockdown import LOCKED, already_locked, locked_down, wanted
from sutura.boundary.sources.duckdb_text import TextStatements, text_columns
from sutura.boundary.sources.skeleton import (
    Capacity,
    Classified,
    Described,
    Fetched,
    RowTexts,
)
from sutura.boundary.sources.worker_threads import WorkerThreads
from sutura.core.nouns.dialect import Dialect
from sutura.core.outcome.fault import Fault
from sutura.core.settings import DuckDBSourceSettings

log = logging.getLogger("sutura.source")

_CLOSE_WAIT_SECONDS: Final = 5.0
T = TypeVar("T")


def duckdb_fault(error: Exception) -> Classified | None:
    """What a DuckDB error stands for (None for an error that is not DuckDB's).

    >>> duckdb_fault(duckdb.OutOfMemoryException("x")).fault.value
    'resources'
    """
    match error:
        case duckdb.OutOfMemoryException():
            return Classified(Fault.RESOURCES)
        case duckdb.InterruptException():
            return Classified(Fault.DEADLINE)
        case duckdb.IOException() | duckdb.ConnectionException():
            return Classified(Fault.UNAVAILABLE)
        case duckdb.Error():
            return Classified(Fault.STATEMENT, str(error))
        case _:
            return None


def statement_limit(settings: DuckDBSourceSettings) -> int:
    """How many statements a DuckDB source runs at once: as set, else one per engine thread
    (``threads``, else the CPUs this process may use).

    DuckDB runs each statement on all its threads, so statements beyond them only share the
    same CPUs, each slower. On the HTTP bench question at 16 concurrent on 2 CPUs, 2 at once
    answered as many per second as 32 at once, with a lower p99 (``python -m bench.http``
    measures both in turns).
    """
    if settings.max_concurrent_statements is not None:
        return settings.max_concurrent_statements
    return settings.threads if settings.threads is not None else available_cpus()


class DuckDBSource:
    """A locked-down DuckDB connection under an alias; its statements run in worker threads
    of its own, at most ``limit`` at once, the others waiting in arrival order."""

    dialect: Final[Dialect] = Dialect.DUCKDB
    stops_in_place: Final = True
    """A cancelled fetch interrupts its cursor and returns (:func:`run_interruptibly`)."""

    def __init__(
        self, alias: str, posture: str, connection: duckdb.DuckDBPyConnection, limit: int
    ) -> None:
        self.alias = alias
        self.posture = posture
        self._connection = connection
        self._threads = WorkerThreads(f"sutura-duckdb-{alias}", limit)
        self._statements = TextStatements()
        self._cursors = HeldCursors(connection)

    def capacity(self) -> Capacity:
        """How many statements this source runs at once (:func:`statement_limit`)."""
        return Capacity(statements_at_once=self._threads.limit)

    def classify(self, error: Exception) -> Classified | None:
        """DuckDB's error table."""
        return duckdb_fault(error)

    async def fetch(
        self,
        statement: str,
        params: Sequence[object],
        max_rows: int,
        deadline_at: float,
        texts: RowTexts | None = None,
    ) -> Fetched:
        """Run on its own cursor in a worker thread; interrupted if the caller stops waiting.
        Given ``texts``, each chunk of rows is added to it as it is fetched."""
        cursor = Cursor(self._cursors)
        job = functools.partial(
            _fetch, cursor, self._statements, statement, params, max_rows, texts
        )
        return await run_interruptibly(self._threads, cursor, job)

    async def describe(self, statement: str, deadline_at: float) -> Described:
        """The columns (name, DuckDB type) a statement would return; no row is read (DuckDB
        orders text by code point: no collation is asked about)."""
        cursor = Cursor(self._cursors)
        job = functools.partial(_describe, cursor, statement)
        return Described(await run_interruptibly(self._threads, cursor, job))

    async def close(self) -> None:
        """Close the connection, retrying (bounded) while an interrupted query unwinds."""
        await close_connection(self._connection, self.alias)


class HeldCursors:
    """Each worker thread's cursor on the connection, kept from one of its statements to the
    next: opening a cursor and closing it cost a warm call about 0.1 ms of the worker's time
    (stamped in ``sutura mcp``: 75 µs to open, 45 to close, where a loop of them in a warm
    process takes 3). A cursor is kept only after a statement that ran to its end, every row
    read, and was never stopped (an interrupt may be pending on a stopped one); any other is
    closed, as every cursor was. Closing the connection closes them all."""

    def __init__(self, connection: duckdb.DuckDBPyConnection) -> None:
        self._connection = connection
        self._held = threading.local()

    def take(self) -> duckdb.DuckDBPyConnection:
        """This thread's cursor (opened now if it has none), its own until given back."""
        cursor: duckdb.DuckDBPyConnection | None = getattr(self._held, "cursor", None)
        if cursor is None:
            return self._connection.cursor()
        self._held.cursor = None
        return cursor

    def give_back(self, cursor: duckdb.DuckDBPyConnection, *, clean: bool) -> None:
        """Keep ``cursor`` for this thread's next statement when ``clean``; else close it."""
        if clean:
            self._held.cursor = cursor
        else:
            cursor.close()


class Cursor:
    """A statement's cursor, taken in the worker thread that runs the statement (opening one
    is work the event loop would otherwise do), and stopped from the loop: once stopped, it is
    never taken, and a taken one is interrupted."""

    def __init__(self, cursors: HeldCursors) -> None:
        self._cursors = cursors
        self._lock = threading.Lock()
        self._cursor: duckdb.DuckDBPyConnection | None = None
        self._stopped = False

    def opened(self) -> duckdb.DuckDBPyConnection:
        """The cursor, taken now (in the worker thread); refused once stopped."""
        with self._lock:
            if self._stopped:
                raise duckdb.InterruptException("stopped before it began")
            self._cursor = self._cursors.take()
            return self._cursor

    def done(self, *, read_whole: bool = False) -> None:
        """The statement is over (``read_whole``: it ran to its end and every row was read):
        its cursor is kept for the thread's next one if that and never stopped, else closed."""
        with self._lock:
            cursor, self._cursor = self._cursor, None
            clean = read_whole and not self._stopped
        if cursor is not None:
            self._cursors.give_back(cursor, clean=clean)

    def stop(self) -> None:
        """Interrupt the cursor's query if it is open; never open it after this."""
        with self._lock:
            self._stopped = True
            cursor = self._cursor
        if cursor is not None:
            interrupt(cursor)  # a cursor closed meanwhile refuses, and is left alone


async def run_interruptibly(threads: WorkerThreads, cursor: Cursor, job: Callable[[], T]) -> T:
    """``job`` in one of ``threads``; the cursor is stopped if the caller stops waiting."""
    try:
        return await threads.run(job)
    except anyio.get_cancelled_exc_class():
        cursor.stop()
        raise


def _fetch(
    opening: Cursor,
    statements: TextStatements,
    sql: str,
    params: Sequence[object],
    max_rows: int,
    texts: RowTexts | None,
) -> Fetched:
    """Execute and fetch up to ``max_rows + 1`` rows, the columns DuckDB writes as canonical
    text cast in the engine (runs in a worker thread); into ``texts`` a chunk at a time, when
    given, so the driver's values of one chunk at most are alive beside the text."""
    cursor = opening.opened()
    read_whole = False
    try:
        wrapped = statements.wrapped(sql, params)
        cursor.execute(sql if wrapped is None else wrapped.sql, list(params))
        description = cursor.description or ()
        columns = [str(column[0]) for column in description]
        if texts is None:
            rows = cursor.fetchmany(max_rows + 1)
            return Fetched(
                columns, rows, statements.ran(sql, params, description, len(rows), wrapped)
            )
        text = text_columns(description, wrapped)
        while texts.count <= max_rows:
            chunk = cursor.fetchmany(min(texts.wanted(), max_rows + 1 - texts.count))
            if not chunk:
                read_whole = True
                break
            texts.add(chunk, text)
            del chunk  # not held while the next one is fetched
        statements.ran(sql, params, description, texts.count, wrapped, text)
        return Fetched(columns, [], text)
    finally:
        opening.done(read_whole=read_whole)


def _describe(opening: Cursor, sql: str) -> list[tuple[str, str]]:
    """The columns of the query ``sql`` as DuckDB binds it (the names and types its cursor's
    description would give), without running it: a relation is bound, not run, until it is
    read (200 tables' probes: 17 ms of the engine's time against 45 ms executed)."""
    cursor = opening.opened()
    try:
        relation = cursor.sql(sql)  # always a query: a probe (core/sql/probe.py)
        columns = zip(relation.columns, relation.types, strict=True)
        return [(str(name), str(kind)) for name, kind in columns]
    finally:
        opening.done()


def interrupt(cursor: duckdb.DuckDBPyConnection) -> None:
    """Stop the cursor's running query; a cursor that already finished is left alone."""
    try:
        cursor.interrupt()
    except duckdb.Error as error:
        log.debug("source: interrupt after completion: %s", error)


async def close_connection(connection: duckdb.DuckDBPyConnection, alias: str) -> None:
    """Close ``connection``; a query abandoned at its deadline may still be unwinding in its
    worker thread, so it is interrupted and closing is retried for a bounded time."""
    with anyio.move_on_after(_CLOSE_WAIT_SECONDS):
        while True:
            try:
                connection.close()
                return
            except duckdb.ConnectionException:  # closed already
                return
            except duckdb.ResourceInUseException:
                interrupt(connection)
                await anyio.sleep(0.01)
    log.warning("source %s: closed while a query was still unwinding", alias)


def open_duckdb(
    alias: str, settings: DuckDBSourceSettings, context: SourceContext
) -> Result[DuckDBSource, str]:
    """Open the DuckDB source ``alias`` and lock it down.

    Returns:
        The source, or an operator-facing sentence naming the path (the driver's own
        message is logged to ``sutura.source``).
    """
    path = context.path(settings.path)
    if not path.exists():
        return Failure(f"source {alias}: {path} does not exist")
    try:
        if path.is_dir():
            connection = duckdb.connect(":memory:", config=no_spill(context.limits.memory_limit))
            problem = load_directory(connection, path)
            if problem is not None:
                connection.close()
                return Failure(f"source {alias}: {path}: {problem}")
        else:
            connection = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as error:
        log.error("source %s: cannot open %s: %s", alias, path, error)
        return Failure(f"source {alias}: cannot open {path} as DuckDB data (details in the log)")
    return _locked(alias, settings, context, connection, path)


def _locked(
    alias: str,
    settings: DuckDBSourceSettings,
    context: SourceContext,
    connection: duckdb.DuckDBPyConnection,
    path: Path,
) -> Result[DuckDBSource, str]:
    """The source, its database locked down (:mod:`.duckdb_lockdown`).

    DuckDB shares one database instance between every connection to a file in a process, so a
    second service over the same file (a script, a test, or the start that opened it ahead)
    finds it locked already: that is accepted only when the first lockdown applied these very
    settings.
    """
    if path.is_file() and already_locked(connection):
        if LOCKED.get(path.resolve()) == wanted(settings, context):
            return Success(
                DuckDBSource(alias, settings.posture, connection, statement_limit(settings))
            )
        connection.close()
        return Failure(
            f"source {alias}: {path} is already open in this process with other settings"
        )
    problem = locked_down(alias, settings, context, connection, path)
    if problem is not None:
        return Failure(problem)
    return Success(DuckDBSource(alias, settings.posture, connection, statement_limit(settings)))


def no_spill(memory_limit: str) -> dict[str, str | bool | int | float | list[str]]:
    """An instance's configuration that bounds its memory and never spills past the bound.

    DuckDB otherwise writes what does not fit to a temporary directory (``.tmp`` in the working
    directory for an in-memory instance): the bound would be disk, not a refusal.
    """
    return {"memory_limit": memory_limit, "temp_directory": "", "max_temp_directory_size": "0B"}
