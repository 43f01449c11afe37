"""The raw SQL tool on DuckDB: a private, locked-down, read-only instance per deployment.

It cannot share the certified source's connection: that one is already locked without every
setting below, and DuckDB refuses to open the same file twice in one process with a different
configuration. So the runner opens its own in-memory instance configured at startup with no
extension autoloading or autoinstalling, no community or unsigned extensions, no replacement
scans of Python variables, no persistent secrets, the catalog's time zone, the operator's memory
limit and threads; attaches the data ``READ_ONLY`` as the catalog ``data`` and detaches its own
writable ``memory`` database, so every catalog that could persist anything is read-only to the
engine; then turns external access off (no file, no URL, no ``ATTACH``, ``COPY``, ``INSTALL``,
``LOAD``) and locks the configuration, last. A directory of CSV/Parquet files is first loaded,
exactly as the certified source loads it, into a scratch database file only this runner reads.

Each call gets its own cursor in a worker thread. DuckDB's own parser must find exactly one
statement of type ``SELECT``; sqlglot must agree (``check_statement``); the one statement the
engine parsed is what runs. A watchdog interrupts it at the deadline, again until it stops.
"""

import functools
import logging
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import anyio
import anyio.to_thread
import duckdb
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.sources.context import SourceContext
from sutura.boundary.sources.duckdb import close_connection, duckdb_fault, interrupt, no_spill
from sutura.boundary.sources.duckdb_files import load_directory
from sutura.boundary.sources.skeleton import (
    Classified,
    Faulted,
    Fetched,
    Rejected,
    raw_outcome,
)
from sutura.core.outcome.fault import Fault
from sutura.core.raw.check import check_statement
from sutura.core.raw.outcome import RawOutcome, RawRefusalCode, raw_refusal
from sutura.core.settings import DuckDBSourceSettings

log = logging.getLogger("sutura.source")

DATA_CATALOG: Final = "data"
"""The catalog the data is attached as; unqualified names resolve in it."""

INTERRUPT_GRACE_SECONDS: Final = 2.0
"""How long past its deadline a caller may wait for a stopped statement to unwind."""

_REINTERRUPT_SECONDS: Final = 0.05


class DuckDBRaw:
    """The raw runner over one DuckDB source: a locked instance, and its scratch directory."""

    grace_seconds: Final = INTERRUPT_GRACE_SECONDS

    def __init__(
        self, alias: str, connection: duckdb.DuckDBPyConnection, scratch: Path | None
    ) -> None:
        self.alias = alias
        self._connection = connection
        self._scratch = scratch

    def classify(self, error: Exception) -> Classified | None:
        """DuckDB's error table."""
        return duckdb_fault(error)

    async def fetch_statement(
        self, statement: str, max_rows: int, deadline_at: float
    ) -> Fetched | Rejected:
        """Check and run ``statement`` on its own cursor, under a watchdog (a worker thread)."""
        cursor = self._connection.cursor()
        watchdog_at = time.monotonic() + (deadline_at - anyio.current_time())
        job = functools.partial(run_checked, cursor, statement, max_rows, watchdog_at)
        return await anyio.to_thread.run_sync(job, abandon_on_cancel=True)

    async def close(self) -> None:
        """Close the instance (retrying while an interrupted statement unwinds); drop scratch."""
        await close_connection(self._connection, self.alias)
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)


def run_checked(
    cursor: duckdb.DuckDBPyConnection, statement: str, max_rows: int, deadline_at: float
) -> Fetched | Rejected:
    """Both parsers' verdicts, then the one statement under the watchdog (a worker thread)."""
    try:
        parsed = _one_select(cursor, statement)
        if isinstance(parsed, Rejected):
            return parsed
        second = check_statement(statement, "duckdb")
        if not is_successful(second):
            return Rejected(second.failure())
        with _watchdog(cursor, deadline_at):
            return fetch_on_engine(cursor, parsed, max_rows)
    finally:
        cursor.close()


def _one_select(cursor: duckdb.DuckDBPyConnection, statement: str) -> duckdb.Statement | Rejected:
    """The one statement DuckDB's own parser finds, when it is a ``SELECT``."""
    statements = cursor.extract_statements(statement)
    if len(statements) != 1:
        return Rejected(raw_refusal(RawRefusalCode.NOT_ONE_STATEMENT))
    if statements[0].type != duckdb.StatementType.SELECT:
        return Rejected(raw_refusal(RawRefusalCode.NOT_READ_ONLY))
    return statements[0]


def fetch_on_engine(
    cursor: duckdb.DuckDBPyConnection, statement: duckdb.Statement | str, max_rows: int
) -> Fetched:
    """Execute on the locked instance and fetch ``max_rows + 1`` rows, with no parser gate."""
    cursor.execute(statement)
    columns = [str(column[0]) for column in cursor.description or ()]
    return Fetched(columns, cursor.fetchmany(max_rows + 1))


def execute_on_engine(
    cursor: duckdb.DuckDBPyConnection, statement: duckdb.Statement | str, max_rows: int
) -> RawOutcome:
    """The outcome of a statement run on the locked instance alone, without either parser.

    The gates are :func:`run_checked`'s; the tests call this to show the lockdown holds without
    them.
    """
    try:
        fetched: Fetched | Faulted = fetch_on_engine(cursor, statement, max_rows)
    except duckdb.Error as error:
        classified = duckdb_fault(error) or Classified(Fault.STATEMENT)
        fetched = Faulted(classified.fault, classified.words)
    return raw_outcome(fetched, max_rows, "duckdb")


@contextmanager
def _watchdog(cursor: duckdb.DuckDBPyConnection, deadline_at: float) -> Iterator[None]:
    """Interrupt ``cursor`` at ``deadline_at``, and again until the block ends.

    Again, because an interrupt that lands before the statement starts is lost.
    """
    done = threading.Event()

    def watch() -> None:
        wait = deadline_at - time.monotonic()
        while not done.wait(max(wait, 0.0)):
            interrupt(cursor)
            wait = _REINTERRUPT_SECONDS

    threading.Thread(target=watch, name="sutura-run-sql-deadline", daemon=True).start()
    try:
        yield
    finally:
        done.set()


def open_duckdb_raw(
    alias: str, settings: DuckDBSourceSettings, context: SourceContext
) -> Result[DuckDBRaw, str]:
    """The raw runner over the DuckDB source ``alias``, or an operator sentence."""
    path = context.path(settings.path)
    if not path.exists():
        return Failure(f"{path} does not exist")
    scratch = Path(tempfile.mkdtemp(prefix="sutura-run-sql-")) if path.is_dir() else None
    try:
        data = path if scratch is None else _loaded_copy(path, scratch / "data.duckdb")
        return Success(DuckDBRaw(alias, locked_instance(data, settings, context), scratch))
    except (duckdb.Error, _LoadError) as error:
        log.error("run_sql on %s: cannot open %s: %s", alias, path, error)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        return Failure(f"cannot open {path} read-only for run_sql (details in the log)")


class _LoadError(Exception):
    """A directory the certified loader would refuse too."""


def _loaded_copy(directory: Path, target: Path) -> Path:
    """Load ``directory`` into the database file ``target`` as the certified source loads it."""
    with duckdb.connect(str(target)) as writer:
        problem = load_directory(writer, directory)
    if problem is not None:
        raise _LoadError(problem)
    return target


def locked_instance(
    data: Path, settings: DuckDBSourceSettings, context: SourceContext
) -> duckdb.DuckDBPyConnection:
    """An in-memory instance with only ``data`` attached, read-only, and every setting locked."""
    config: dict[str, str | bool | int | float | list[str]] = {
        "autoload_known_extensions": False,
        "autoinstall_known_extensions": False,
        "allow_community_extensions": False,
        "allow_unsigned_extensions": False,
        "python_enable_replacements": False,
        "allow_persistent_secrets": False,
        **no_spill(context.limits.memory_limit),
    }
    if settings.threads is not None:
        config["threads"] = settings.threads
    connection = duckdb.connect(":memory:", config=config)
    literal = "'" + str(data).replace("'", "''") + "'"
    try:
        connection.execute(f"ATTACH {literal} AS {DATA_CATALOG} (READ_ONLY)")
        connection.execute(f"USE {DATA_CATALOG}")
        connection.execute("DETACH memory")
        connection.execute("SET GLOBAL TimeZone = ?", [context.time_zone])
        connection.execute("SET enable_external_access = false")
        connection.execute("SET lock_configuration = true")
    except duckdb.Error:
        connection.close()
        raise
    return connection
