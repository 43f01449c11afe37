"""The raw SQL tool on DuckDB: a private, locked-down, read-only instance per deployment.

It cannot share the certified source's connection: that one is already locked without every
setting below, and DuckDB refuses to open the same file twice in one process with a different
configuration. So the runner opens its own in-memory instance configured at startup with no
extension autoloading or autoinstalling, no community or unsigned extensions, no replacement
scans of Python variables, no persistent secrets, the operator's memory limit and threads;
attaches the data ``READ_ONLY`` as the catalog ``data`` and detaches its own writable
``memory`` database, so every catalog that could persist anything is read-only to the engine;
then turns external access off (no file, no URL, no ``ATTACH``, ``COPY``, ``INSTALL``, ``LOAD``)
and locks the configuration, last. A directory of CSV/Parquet files is first loaded, exactly as
the certified source loads it, into a scratch database file that only this runner reads.

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
from returns.result import Failure, Result, Success

from sutura.boundary.raw_sql.base import INTERRUPT_GRACE_SECONDS, rows_outcome
from sutura.boundary.sources.duckdb import load_directory
from sutura.core.raw.check import check_statement, readable
from sutura.core.raw.outcome import (
    RawOutcome,
    RawRefusal,
    RawRefusalCode,
    raw_failure,
    raw_refusal,
)
from sutura.core.settings import DuckDBSourceSettings, LimitsSettings

log = logging.getLogger("sutura.source")

DATA_CATALOG: Final = "data"
"""The catalog the data is attached as; unqualified names resolve in it."""

_REINTERRUPT_SECONDS: Final = 0.05
_CLOSE_WAIT_SECONDS: Final = 5.0


class DuckDBRaw:
    """The raw runner over one DuckDB source: a locked instance, and its scratch directory."""

    def __init__(
        self, alias: str, connection: duckdb.DuckDBPyConnection, scratch: Path | None
    ) -> None:
        self.alias = alias
        self._connection = connection
        self._scratch = scratch

    async def run(self, statement: str, *, deadline_seconds: float, max_rows: int) -> RawOutcome:
        """Run ``statement`` on its own cursor; see :class:`~.base.RawRunner`."""
        try:
            cursor = self._connection.cursor()
        except duckdb.Error as err:
            log.warning("run_sql on %s: no cursor: %s", self.alias, err)
            return raw_refusal(RawRefusalCode.SOURCE_UNAVAILABLE)
        deadline_at = time.monotonic() + deadline_seconds
        job = functools.partial(run_checked, cursor, statement, max_rows, deadline_at)
        outcome: RawOutcome | None = None
        with anyio.move_on_after(deadline_seconds + INTERRUPT_GRACE_SECONDS):
            outcome = await anyio.to_thread.run_sync(job, abandon_on_cancel=True)
        return raw_refusal(RawRefusalCode.DEADLINE_EXCEEDED) if outcome is None else outcome

    async def close(self) -> None:
        """Close the instance (retrying while an interrupted statement unwinds); drop scratch."""
        with anyio.move_on_after(_CLOSE_WAIT_SECONDS):
            while True:
                try:
                    self._connection.close()
                    break
                except duckdb.ConnectionException:  # closed already
                    break
                except duckdb.ResourceInUseException:
                    _interrupt(self._connection)
                    await anyio.sleep(0.01)
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)


def run_checked(
    cursor: duckdb.DuckDBPyConnection, statement: str, max_rows: int, deadline_at: float
) -> RawOutcome:
    """Both parsers' verdicts, then the one statement under the deadline (a worker thread)."""
    try:
        if not isinstance(readable(statement), Success):
            return raw_refusal(RawRefusalCode.NOT_READ_ONLY)
        parsed = _one_select(cursor, statement)
        if isinstance(parsed, RawRefusal):
            return parsed
        second = check_statement(statement, "duckdb")
        if not isinstance(second, Success):
            return second.failure()
        with _watchdog(cursor, deadline_at):
            return execute_on_engine(cursor, parsed, max_rows)
    finally:
        cursor.close()


def _one_select(cursor: duckdb.DuckDBPyConnection, statement: str) -> duckdb.Statement | RawRefusal:
    """The one statement DuckDB's own parser finds, when it is a ``SELECT``."""
    try:
        statements = cursor.extract_statements(statement)
    except duckdb.Error as err:
        return _refusal_for(err)
    if len(statements) != 1:
        return raw_refusal(RawRefusalCode.NOT_ONE_STATEMENT)
    if statements[0].type != duckdb.StatementType.SELECT:
        return raw_refusal(RawRefusalCode.NOT_READ_ONLY)
    return statements[0]


def execute_on_engine(
    cursor: duckdb.DuckDBPyConnection, statement: duckdb.Statement | str, max_rows: int
) -> RawOutcome:
    """Execute on the locked instance and fetch ``max_rows + 1`` rows, with no parser gate.

    The gates are the caller's (:func:`run_checked`); the tests call this alone to show that
    the lockdown holds without them.
    """
    try:
        cursor.execute(statement)
        columns = [str(column[0]) for column in cursor.description]
        rows = cursor.fetchmany(max_rows + 1)
    except duckdb.Error as err:
        return _refusal_for(err)
    return rows_outcome(columns, rows, max_rows, "duckdb")


def _refusal_for(err: duckdb.Error) -> RawRefusal:
    """The refusal for a DuckDB error: the engine's words for a statement it refused."""
    if isinstance(err, duckdb.InterruptException):
        return raw_refusal(RawRefusalCode.DEADLINE_EXCEEDED)
    if isinstance(err, duckdb.OutOfMemoryException):
        return raw_refusal(RawRefusalCode.RESOURCES_EXHAUSTED)
    if isinstance(err, duckdb.IOException | duckdb.ConnectionException):
        log.warning("run_sql: the DuckDB data is unavailable: %s", err)
        return raw_refusal(RawRefusalCode.SOURCE_UNAVAILABLE)
    return raw_failure(str(err))


@contextmanager
def _watchdog(cursor: duckdb.DuckDBPyConnection, deadline_at: float) -> Iterator[None]:
    """Interrupt ``cursor`` at ``deadline_at``, and again until the block ends.

    Again, because an interrupt that lands before the statement starts is lost.
    """
    done = threading.Event()

    def watch() -> None:
        wait = deadline_at - time.monotonic()
        while not done.wait(max(wait, 0.0)):
            _interrupt(cursor)
            wait = _REINTERRUPT_SECONDS

    threading.Thread(target=watch, name="sutura-run-sql-deadline", daemon=True).start()
    try:
        yield
    finally:
        done.set()


def _interrupt(cursor: duckdb.DuckDBPyConnection) -> None:
    try:
        cursor.interrupt()
    except duckdb.Error as err:  # closed, or nothing running
        log.debug("run_sql: interrupt: %s", err)


def open_duckdb_raw(
    alias: str, settings: DuckDBSourceSettings, base_dir: Path, limits: LimitsSettings
) -> Result[DuckDBRaw, str]:
    """The raw runner over the DuckDB source ``alias``, or an operator sentence."""
    path = Path(settings.path)
    path = path if path.is_absolute() else base_dir / path
    if not path.exists():
        return Failure(f"{path} does not exist")
    scratch = Path(tempfile.mkdtemp(prefix="sutura-run-sql-")) if path.is_dir() else None
    try:
        data = path if scratch is None else _loaded_copy(path, scratch / "data.duckdb")
        return Success(DuckDBRaw(alias, locked_instance(data, settings, limits), scratch))
    except (duckdb.Error, _LoadError) as err:
        log.error("run_sql on %s: cannot open %s: %s", alias, path, err)
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
    data: Path, settings: DuckDBSourceSettings, limits: LimitsSettings
) -> duckdb.DuckDBPyConnection:
    """An in-memory instance with only ``data`` attached, read-only, and every setting locked."""
    config: dict[str, str | bool | int | float | list[str]] = {
        "autoload_known_extensions": False,
        "autoinstall_known_extensions": False,
        "allow_community_extensions": False,
        "allow_unsigned_extensions": False,
        "python_enable_replacements": False,
        "allow_persistent_secrets": False,
        "memory_limit": limits.memory_limit,
    }
    if settings.threads is not None:
        config["threads"] = settings.threads
    connection = duckdb.connect(":memory:", config=config)
    literal = "'" + str(data).replace("'", "''") + "'"
    try:
        connection.execute(f"ATTACH {literal} AS {DATA_CATALOG} (READ_ONLY)")
        connection.execute(f"USE {DATA_CATALOG}")
        connection.execute("DETACH memory")
        connection.execute("SET enable_external_access = false")
        connection.execute("SET lock_configuration = true")
    except duckdb.Error:
        connection.close()
        raise
    return connection
