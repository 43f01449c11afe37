"""The embedded DuckDB source: a database file, or a directory of CSV/Parquet files.

A database file is opened read-only. A directory is loaded into an in-memory database, one
table per ``*.csv``/``*.parquet`` file named by its stem. In CSV an unquoted empty field is
NULL and a quoted one (``""``) the empty string. CSV columns DuckDB would read as
DOUBLE are kept exact: when every value is a plain decimal they become ``DECIMAL(18|38, s)``
with ``s`` the largest scale written. Then the connection is locked: no file or network
access, no extension autoloading, the operator's memory limit and threads, and no later change
of configuration.

Each query runs on its own cursor in a worker thread; past the deadline the cursor is
interrupted and the question refused. The driver's own messages go to the ``sutura.source``
log, never into a refusal.
"""

import functools
import logging
from collections.abc import Sequence
from pathlib import Path

import anyio
import anyio.to_thread
import duckdb
from returns.result import Failure, Result, Success

from sutura.boundary.sources.base import TextRows
from sutura.core.outcome.refusal import Refusal, RefusalCode, refusal
from sutura.core.settings import DuckDBSourceSettings, LimitsSettings
from sutura.core.sql.cells import UnsupportedCellError, cell_text
from sutura.core.sql.compile import CompiledQuery, Dialect

log = logging.getLogger("sutura.source")

_LOADING_VIEW = "__sutura_loading"
_CLOSE_WAIT_SECONDS = 5.0
_PLAIN_DECIMAL = r"[+-]?[0-9]+(\.[0-9]+)?"


class DuckDBSource:
    """A locked-down DuckDB connection under an alias."""

    def __init__(self, alias: str, posture: str, connection: duckdb.DuckDBPyConnection) -> None:
        self.alias = alias
        self.posture = posture
        self.dialect: Dialect = "duckdb"
        self._connection = connection

    async def run(
        self, compiled: CompiledQuery, *, deadline_seconds: float, max_rows: int
    ) -> Result[TextRows, Refusal]:
        """Run ``compiled`` on its own cursor under a deadline; see :class:`Source`."""
        try:
            cursor = self._connection.cursor()
        except duckdb.Error as err:
            return Failure(_refusal_for(err, self.alias))
        job = functools.partial(_fetch, cursor, compiled, max_rows, self.alias)
        outcome: Result[TextRows, Refusal] | None = None
        try:
            with anyio.move_on_after(deadline_seconds):
                outcome = await anyio.to_thread.run_sync(job, abandon_on_cancel=True)
        finally:
            if outcome is None:  # the deadline passed, or the caller was cancelled
                _interrupt(cursor)
        if outcome is None:
            log.warning("source %s: query interrupted at the deadline", self.alias)
            return Failure(refusal(RefusalCode.DEADLINE_EXCEEDED))
        return outcome

    async def close(self) -> None:
        """Close the connection; later runs refuse with ``source_unavailable``.

        A query abandoned at its deadline may still be unwinding in its worker thread; it is
        interrupted, and closing is retried for a bounded time.
        """
        with anyio.move_on_after(_CLOSE_WAIT_SECONDS):
            while True:
                try:
                    self._connection.close()
                    return
                except duckdb.ConnectionException:  # closed already
                    return
                except duckdb.ResourceInUseException:
                    _interrupt(self._connection)
                    await anyio.sleep(0.01)
        log.warning("source %s: closed while a query was still unwinding", self.alias)


def _fetch(
    cursor: duckdb.DuckDBPyConnection, compiled: CompiledQuery, max_rows: int, alias: str
) -> Result[TextRows, Refusal]:
    """Execute and fetch up to ``max_rows + 1`` rows as text (runs in a worker thread)."""
    try:
        try:
            cursor.execute(compiled.sql, compiled.params)
            rows = cursor.fetchmany(max_rows + 1)
        finally:
            cursor.close()
    except duckdb.Error as err:
        return Failure(_refusal_for(err, alias))
    if len(rows) > max_rows:
        return Failure(refusal(RefusalCode.RESULT_TOO_LARGE))
    try:
        return Success([[cell_text(cell) for cell in row] for row in rows])
    except UnsupportedCellError as err:
        log.warning("source %s: %s", alias, err)
        return Failure(refusal(RefusalCode.VALUE_NOT_REPRESENTABLE))


def _interrupt(cursor: duckdb.DuckDBPyConnection) -> None:
    """Stop the cursor's running query; a cursor that already finished is left alone."""
    try:
        cursor.interrupt()
    except duckdb.Error as err:
        log.debug("source: interrupt after completion: %s", err)


def _code_for(err: duckdb.Error) -> RefusalCode:
    """The refusal code for a DuckDB error."""
    if isinstance(err, duckdb.OutOfMemoryException):
        return RefusalCode.RESOURCES_EXHAUSTED
    if isinstance(err, duckdb.InterruptException):
        return RefusalCode.DEADLINE_EXCEEDED
    if isinstance(err, duckdb.IOException | duckdb.ConnectionException):
        return RefusalCode.SOURCE_UNAVAILABLE
    return RefusalCode.SOURCE_REFUSED


def _refusal_for(err: duckdb.Error, alias: str) -> Refusal:
    """Log the driver's message and return the refusal that replaces it."""
    code = _code_for(err)
    log.warning("source %s: %s: %s", alias, code.value, err)
    return refusal(code)


def open_duckdb(
    alias: str, settings: DuckDBSourceSettings, base_dir: Path, limits: LimitsSettings
) -> Result[DuckDBSource, str]:
    """Open the DuckDB source ``alias`` and lock it down.

    Args:
        alias: The source's name in the settings.
        settings: Its settings; a relative ``path`` is relative to ``base_dir``.
        base_dir: The directory of the settings file.
        limits: The memory limit applies to this engine.

    Returns:
        The source, or an operator-facing sentence naming the path (the driver's own
        message is logged to ``sutura.source``).
    """
    path = Path(settings.path)
    path = path if path.is_absolute() else base_dir / path
    if not path.exists():
        return Failure(f"source {alias}: {path} does not exist")
    try:
        if path.is_dir():
            connection = duckdb.connect(":memory:")
            problem = load_directory(connection, path)
            if problem is not None:
                connection.close()
                return Failure(f"source {alias}: {path}: {problem}")
        else:
            connection = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as err:
        log.error("source %s: cannot open %s: %s", alias, path, err)
        return Failure(f"source {alias}: cannot open {path} as DuckDB data (details in the log)")
    return _locked(alias, settings, limits, connection, path)


def _locked(
    alias: str,
    settings: DuckDBSourceSettings,
    limits: LimitsSettings,
    connection: duckdb.DuckDBPyConnection,
    path: Path,
) -> Result[DuckDBSource, str]:
    """Apply the lockdown; ``lock_configuration`` last, after which nothing can be changed."""
    statements: list[tuple[str, Sequence[object]]] = [
        ("SET enable_external_access = false", ()),
        ("SET autoinstall_known_extensions = false", ()),
        ("SET autoload_known_extensions = false", ()),
        ("SET memory_limit = ?", (limits.memory_limit,)),
    ]
    if settings.threads is not None:
        statements.append(("SET threads = ?", (settings.threads,)))
    statements.append(("SET lock_configuration = true", ()))
    for statement, params in statements:
        try:
            connection.execute(statement, params)
        except duckdb.Error as err:
            log.error("source %s: %s failed: %s", alias, statement, err)
            connection.close()
            return Failure(f"source {alias}: {path}: cannot apply {statement.split(' =')[0]}")
    return Success(DuckDBSource(alias, settings.posture, connection))


def load_directory(connection: duckdb.DuckDBPyConnection, directory: Path) -> str | None:
    """Load every CSV/Parquet file as a table named by its stem; a problem sentence or None."""
    files = sorted(
        p for p in directory.iterdir() if p.is_file() and p.suffix.lower() in {".csv", ".parquet"}
    )
    if not files:
        return "the directory holds no .csv or .parquet file"
    stems = [p.stem.casefold() for p in files]  # DuckDB table names ignore case
    repeated = sorted({p.stem for p in files if stems.count(p.stem.casefold()) > 1})
    if repeated:
        return f"several files would be the table {repeated[0]!r}; rename one"
    for file in files:
        if file.suffix.lower() == ".parquet":
            statement = f"CREATE TABLE {_quote(file.stem)} AS SELECT * FROM read_parquet(?)"
            connection.execute(statement, [str(file)])
        else:
            _load_csv(connection, file)
    return None


def _load_csv(connection: duckdb.DuckDBPyConnection, file: Path) -> None:
    """Load one CSV file, reading would-be DOUBLE columns as exact decimals where they are."""
    # As in PostgreSQL's CSV format: an unquoted empty field is NULL, a quoted one is ''.
    sniffed = connection.read_csv(str(file), allow_quoted_nulls=False)
    doubles = [n for n, t in zip(sniffed.columns, sniffed.types, strict=True) if str(t) == "DOUBLE"]
    relation = connection.read_csv(
        str(file), allow_quoted_nulls=False, dtype=dict.fromkeys(doubles, "VARCHAR")
    )
    relation.create_view(_LOADING_VIEW, replace=True)
    projection = [
        _exact_number(connection, name) if name in doubles else _quote(name)
        for name in relation.columns
    ]
    connection.execute(
        f"CREATE TABLE {_quote(file.stem)} AS SELECT {', '.join(projection)}"
        f" FROM {_quote(_LOADING_VIEW)}"
    )
    connection.execute(f"DROP VIEW {_quote(_LOADING_VIEW)}")


def _exact_number(connection: duckdb.DuckDBPyConnection, name: str) -> str:
    """The projection of a text column as DECIMAL when every value is a plain decimal."""
    column = _quote(name)
    found = connection.execute(
        f"SELECT bool_and(regexp_full_match({column}, ?)),"
        f" max(length(regexp_extract({column}, '\\.([0-9]+)$', 1))),"
        f" max(length(regexp_extract({column}, '^[+-]?([0-9]+)', 1)))"
        f" FROM {_quote(_LOADING_VIEW)}",
        [_PLAIN_DECIMAL],
    ).fetchone()
    plain, scale, digits = found if found is not None else (None, None, None)
    if plain and isinstance(scale, int) and isinstance(digits, int) and digits + scale <= 38:
        width = 18 if digits + scale <= 18 else 38
        return f"CAST({column} AS DECIMAL({width}, {scale})) AS {column}"
    return f"CAST({column} AS DOUBLE) AS {column}"


def _quote(name: str) -> str:
    """A DuckDB identifier, quoted."""
    return '"' + name.replace('"', '""') + '"'
