"""The worker processes that run raw DuckDB statements, and the fork server that starts them.

``python -m`` this module, with a Unix socket's descriptor as its argument, is the fork server:
a single-threaded interpreter with DuckDB and the checks imported and no instance open, so a
worker starts as a fork (milliseconds), not as an interpreter start, and nothing of the caller's
process (its threads, its ``__main__``) is copied. For each :class:`Opening` the parent sends,
it forks one worker with one end of a new socket pair and sends the other end back with the
worker's pid; it reaps its workers itself (``SIGCHLD`` ignored), so a killed one disappears.

A worker opens the locked instance, caps its own address space (``RLIMIT_AS``: what it maps once
open, plus twice the memory limit, plus an allowance), and sends ``("ready",)`` or
``("failed", words)``. Then each request ``(statement, max_rows)`` is answered with
``("fetched", columns, rows)``, ``("rejected", refusal)`` or ``("faulted", fault, words)``; a
reply larger than the memory limit is ``resources``. A statement that outgrows the cap fails
its allocation here or takes the process down; either way the parent answers
``resources_exhausted``. The parent kills the worker at the deadline; nothing here watches the
clock.
"""

import contextlib
import logging
import os
import pickle
import re
import resource
import signal
import socket
import sys
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Final, NamedTuple

import duckdb
from returns.pipeline import is_successful

from sutura.boundary.sources.duckdb import duckdb_fault
from sutura.core.outcome.fault import Fault
from sutura.core.raw.check import check_statement
from sutura.core.raw.outcome import RawRefusalCode, raw_refusal

ADDRESS_ALLOWANCE_BYTES: Final = 512 * 1024 * 1024
"""Address space granted past the open instance and twice the memory limit (stacks, arenas)."""

_PR_SET_PDEATHSIG: Final = 1
_M_ARENA_MAX: Final = -8
_ARENAS: Final = 4

_UNITS: Final = {
    "bytes": 1,
    "KB": 1000,
    "MB": 1000**2,
    "GB": 1000**3,
    "TB": 1000**4,
    "KiB": 1024,
    "MiB": 1024**2,
    "GiB": 1024**3,
    "TiB": 1024**4,
}


class Opening(NamedTuple):
    """What the worker opens: the data file and the instance's settings."""

    data: str
    memory_limit: str
    threads: int | None
    time_zone: str


def memory_bytes(shown: str) -> int | None:
    """DuckDB's ``current_setting('memory_limit')`` (``244.1 MiB``) in bytes.

    >>> memory_bytes("1.5 KiB")
    1536
    """
    found = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]+)\s*", shown)
    if found is None or found.group(2) not in _UNITS:
        return None
    return int(float(found.group(1)) * _UNITS[found.group(2)])


def _mapped_bytes() -> int | None:
    """This process's address space now (Linux), or None where it cannot be read."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * resource.getpagesize()


def cap_address_space(connection: duckdb.DuckDBPyConnection) -> int | None:
    """Cap this process's address space past what it maps now and twice the memory limit;
    the memory limit in bytes (None where it cannot be read)."""
    row = connection.execute("SELECT current_setting('memory_limit')").fetchone()
    limit = None if row is None else memory_bytes(str(row[0]))
    mapped = _mapped_bytes()
    if limit is None or mapped is None:
        return limit
    cap = mapped + 2 * limit + ADDRESS_ALLOWANCE_BYTES
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    return limit


def answer(connection: duckdb.DuckDBPyConnection, statement: str, max_rows: int) -> object:
    """The reply to one request: both parsers' verdicts, then the one statement's rows."""
    cursor = connection.cursor()
    try:
        statements = cursor.extract_statements(statement)
        if len(statements) != 1:
            return ("rejected", raw_refusal(RawRefusalCode.NOT_ONE_STATEMENT))
        if statements[0].type != duckdb.StatementType.SELECT:
            return ("rejected", raw_refusal(RawRefusalCode.NOT_READ_ONLY))
        second = check_statement(statement, "duckdb")
        if not is_successful(second):
            return ("rejected", second.failure())
        cursor.execute(statements[0])
        columns = [str(column[0]) for column in cursor.description or ()]
        return ("fetched", columns, cursor.fetchmany(max_rows + 1))
    except duckdb.Error as error:
        classified = duckdb_fault(error)
        if classified is None:  # pragma: no cover - every duckdb.Error is classified
            return ("faulted", Fault.STATEMENT.value, str(error))
        return ("faulted", classified.fault.value, classified.words)
    except MemoryError:
        return ("faulted", Fault.RESOURCES.value, None)
    finally:
        cursor.close()


def serve(pipe: Connection, opening: Opening) -> None:
    """Open the instance ``opening`` names, then answer requests until the pipe closes."""
    from sutura.boundary.sources.duckdb_raw import locked_connection

    try:
        connection = locked_connection(
            Path(opening.data), opening.memory_limit, opening.threads, opening.time_zone
        )
        limit = cap_address_space(connection)
    except (duckdb.Error, OSError, ValueError) as error:
        pipe.send(("failed", str(error)))
        return
    pipe.send(("ready",))
    while True:
        try:
            request = pipe.recv()
        except EOFError:
            return
        match request:
            case (str() as statement, int() as max_rows):
                _reply(pipe, answer(connection, statement, max_rows), limit)
            case _:
                return


def _reply(pipe: Connection, reply: object, limit: int | None) -> None:
    """Send ``reply``, or ``resources`` when it is larger than the memory limit."""
    try:
        payload = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        if limit is not None and len(payload) > limit:
            payload = b""
    except MemoryError:
        payload = b""
    pipe.send_bytes(payload or pickle.dumps(("faulted", Fault.RESOURCES.value, None)))


def _die_with_parent() -> None:
    """Have the kernel kill this worker when the fork server ends (Linux; elsewhere, nothing).

    The fork server ends when the service does (its socket closes), so a runaway statement
    never outlives the service, however the service ended.
    """
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _few_malloc_arenas() -> None:
    """Bound glibc's per-thread malloc arenas (64 MiB of address space each, reserved by every
    engine thread): on a many-core host they would eat the cap before any statement ran."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).mallopt(_M_ARENA_MAX, _ARENAS)


def fork_server(control: socket.socket) -> None:
    """Fork one worker per :class:`Opening` received on ``control``, until it closes."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    _few_malloc_arenas()
    while True:
        try:
            message = control.recv(65536)
        except OSError:
            return
        if not message:
            return
        opening = pickle.loads(message)
        if not isinstance(opening, Opening):
            return
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:  # the worker
            control.close()
            ours.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            _die_with_parent()
            try:
                serve(Connection(theirs.detach()), opening)
            finally:
                os._exit(0)
        theirs.close()
        socket.send_fds(control, [pid.to_bytes(8, "big")], [ours.fileno()])
        ours.close()


def main() -> None:
    """The fork server, on the socket whose descriptor is the one argument."""
    # Run as ``__main__``, this module's classes are not the ones the parent pickles: serve
    # from the module under its own name.
    from sutura.boundary.sources import duckdb_raw, duckdb_raw_worker

    del duckdb_raw  # imported before any fork, so no worker pays for it
    check_statement("SELECT 1", "duckdb")  # the dialect's lazy imports, before any fork too
    # sqlglot logs a statement it cannot read verbatim: never onto the operator's stderr.
    quiet = logging.getLogger("sqlglot")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    sys.stdout = sys.stderr
    duckdb_raw_worker.fork_server(socket.socket(fileno=int(sys.argv[1])))


if __name__ == "__main__":
    main()
