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

Each call runs in a worker process (:mod:`sutura.boundary.sources.duckdb_raw_worker`) that
opens that same locked instance, caps its own address space, and answers one statement at a
time: DuckDB's own parser must find exactly one statement of type ``SELECT``; sqlglot must agree
(``check_statement``); the one statement the engine parsed is what runs. At the deadline the
parent kills the worker (nothing a statement does can outlive that) and starts a fresh one; a
worker that dies of its address-space cap answers ``resources_exhausted``. Two workers are kept
warm; at most ``MAX_WORKERS`` run at once, a call past that waits for one within its deadline.
"""

import contextlib
import logging
import os
import pickle
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Final

import anyio
import anyio.to_thread
import duckdb
from returns.result import Failure, Result, Success

from sutura.boundary.sources.context import SourceContext
from sutura.boundary.sources.duckdb import duckdb_fault, no_spill
from sutura.boundary.sources.duckdb_files import load_directory
from sutura.boundary.sources.duckdb_raw_worker import Opening
from sutura.boundary.sources.skeleton import (
    Classified,
    Faulted,
    Fetched,
    Rejected,
    raw_outcome,
)
from sutura.core.outcome.fault import Fault
from sutura.core.raw.outcome import RawOutcome, RawRefusal
from sutura.core.settings import DuckDBSourceSettings

log = logging.getLogger("sutura.source")

DATA_CATALOG: Final = "data"
"""The catalog the data is attached as; unqualified names resolve in it."""

KILL_GRACE_SECONDS: Final = 1.0
"""How long past its deadline a caller may wait for the killed worker's answer to be made."""

MAX_WORKERS: Final = 4
"""Worker processes running statements at once (each under its own address-space cap)."""

WARM_WORKERS: Final = 2
"""Idle workers kept started, so a call right after a kill does not wait for a process start."""

START_SECONDS: Final = 30.0
"""How long a worker may take to open the instance before the runner gives up on it."""

_WORKER_MODULE: Final = "sutura.boundary.sources.duckdb_raw_worker"


class WorkerFaultError(Exception):
    """A worker's classified fault (its own DuckDB error, or how it ended)."""

    def __init__(self, classified: Classified) -> None:
        super().__init__(classified.fault.value)
        self.classified = classified


class _WorkerGoneError(Exception):
    """The worker's output ended: it died (its address-space cap, a signal) or was killed."""


class _Worker:
    """One worker process and the parent's end of its socket; used by one call at a time.

    The process is held by a pidfd where the system has them, so a kill never reaches another
    process that was given the same pid after this one ended. The socket is closed by whoever
    is last: the call reading it, or the kill.
    """

    def __init__(self, pid: int, pipe: Connection) -> None:
        self.pid = pid
        self.pipe = pipe
        self._pidfd = _pidfd(pid)
        self._lock = threading.Lock()
        self._reading = False
        self._killed = False

    def request(self, message: object) -> object:
        """Send one request and block for its reply (a worker thread)."""
        with self._lock:
            if self._killed:
                raise _WorkerGoneError("killed")
            self._reading = True
        try:
            self.pipe.send(message)
            return pickle.loads(self.pipe.recv_bytes())
        except (OSError, EOFError, ValueError) as error:
            raise _WorkerGoneError(str(error) or type(error).__name__) from error
        finally:
            self._done_reading()

    def _done_reading(self) -> None:
        """The call stopped reading: close the socket if the worker was killed meanwhile."""
        with self._lock:
            self._reading = False
            close = self._killed
        if close:
            self._close()

    def ready(self) -> str | None:
        """Wait (bounded) for the worker's ``ready``; None, or why it did not open."""
        try:
            reply = self.pipe.recv() if self.pipe.poll(START_SECONDS) else None
        except (OSError, EOFError) as error:
            return f"the worker ended while opening ({error!r})"
        match reply:
            case ("ready",):
                return None
            case ("failed", str() as words):
                return words
            case _:
                return f"the worker did not open within {START_SECONDS:g} s"

    def kill(self) -> None:
        """Kill the process now (the fork server reaps it); a call reading from it gets EOF."""
        with self._lock:
            if self._killed:
                return
            self._killed = True
            close = not self._reading
        with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
            if self._pidfd is None:
                os.kill(self.pid, signal.SIGKILL)
            else:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
        if close:
            self._close()

    def _close(self) -> None:
        with contextlib.suppress(OSError):
            self.pipe.close()
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
            self._pidfd = None


def _pidfd(pid: int) -> int | None:
    """A pidfd for ``pid`` (Linux 5.3+), or None where there is none."""
    try:
        return os.pidfd_open(pid)
    except (OSError, AttributeError):
        return None


class ForkServer:
    """The process that forks workers (:mod:`sutura.boundary.sources.duckdb_raw_worker`)."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._process = subprocess.Popen(
            [sys.executable, "-m", _WORKER_MODULE, str(theirs.fileno())],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
        )
        theirs.close()
        self._control = ours
        self._lock = threading.Lock()

    def alive(self) -> bool:
        """Whether the fork server still runs."""
        return self._process.poll() is None

    def start(self, opening: Opening) -> "_Worker | str":
        """A worker with the instance open and its address space capped, or why not (blocking)."""
        with self._lock:
            try:
                self._control.sendall(pickle.dumps(opening))
                readable, _, _ = select.select([self._control], [], [], START_SECONDS)
                if not readable:
                    self.close()
                    return f"the fork server did not answer within {START_SECONDS:g} s"
                message, fds, _, _ = socket.recv_fds(self._control, 64, 1)
            except (OSError, ValueError) as error:
                return f"the fork server is gone ({error})"
        if len(message) != 8 or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            return "the fork server is gone"
        worker = _Worker(int.from_bytes(message, "big"), Connection(fds[0]))
        problem = worker.ready()
        if problem is not None:
            worker.kill()
            return problem
        return worker

    def close(self) -> None:
        """End the fork server (its workers are killed by the runner)."""
        with contextlib.suppress(OSError):
            self._control.close()
        if self._process.poll() is None:
            self._process.kill()
        threading.Thread(target=self._reap, name="sutura-run-sql-reap", daemon=True).start()

    def _reap(self) -> None:
        try:
            self._process.wait(timeout=10.0)
        except subprocess.TimeoutExpired:
            log.error("run_sql fork server %d did not end", self._process.pid)


class DuckDBRaw:
    """The raw runner over one DuckDB source: worker processes, and its scratch directory."""

    grace_seconds: Final = KILL_GRACE_SECONDS

    def __init__(
        self,
        alias: str,
        opening: Opening,
        server: ForkServer,
        warm: list[_Worker],
        scratch: Path | None,
    ) -> None:
        self.alias = alias
        self._server = server
        self._opening = opening
        self._scratch = scratch
        self._lock = threading.Lock()
        self._idle: list[_Worker] = list(warm)
        self._live: set[_Worker] = set(warm)
        self._slots = anyio.CapacityLimiter(MAX_WORKERS)
        self._closed = False

    def classify(self, error: Exception) -> Classified | None:
        """A worker's fault, or DuckDB's error table."""
        if isinstance(error, WorkerFaultError):
            return error.classified
        return duckdb_fault(error)

    def worker_pids(self) -> list[int]:
        """The process ids of the live workers (for the operator and the tests)."""
        with self._lock:
            return sorted(worker.pid for worker in self._live)

    def idle_pids(self) -> list[int]:
        """The process ids of the idle workers."""
        with self._lock:
            return sorted(worker.pid for worker in self._idle)

    async def fetch_statement(
        self, statement: str, max_rows: int, deadline_at: float
    ) -> Fetched | Rejected:
        """Check and run ``statement`` in a worker process, killed at ``deadline_at``."""
        reply: object = None
        with anyio.move_on_after(max(deadline_at - anyio.current_time(), 0.0)):
            async with self._slots:
                worker = await self._take()
                try:
                    reply = await anyio.to_thread.run_sync(
                        worker.request, (statement, max_rows), abandon_on_cancel=True
                    )
                except _WorkerGoneError as error:
                    log.warning(
                        "run_sql on %s: worker %d ended (%s) during a statement",
                        self.alias,
                        worker.pid,
                        error,
                    )
                    self._discard(worker)
                    fault = Fault.UNAVAILABLE if self._closed else Fault.RESOURCES
                    raise WorkerFaultError(Classified(fault)) from None
                finally:
                    if reply is None and worker in self._live:
                        self._discard(worker)
                self._give_back(worker)
        if reply is None:
            raise WorkerFaultError(Classified(Fault.DEADLINE))
        return _decoded(reply)

    async def _take(self) -> _Worker:
        """An idle worker, starting one (into the idle list, so none leaks) when none is."""
        while True:
            with self._lock:
                if self._closed:
                    raise WorkerFaultError(Classified(Fault.UNAVAILABLE))
                if self._idle:
                    return self._idle.pop()
            problem = await anyio.to_thread.run_sync(self._start_idle, abandon_on_cancel=True)
            if problem is not None:
                log.error("run_sql on %s: a worker did not open: %s", self.alias, problem)
                raise WorkerFaultError(Classified(Fault.UNAVAILABLE))

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            if not self._closed and len(self._idle) < WARM_WORKERS:
                self._idle.append(worker)
                return
            self._live.discard(worker)
        worker.kill()

    def _discard(self, worker: _Worker) -> None:
        """Kill ``worker`` and warm a replacement in the background when none is idle."""
        with self._lock:
            self._live.discard(worker)
            warm = not self._closed and len(self._idle) < WARM_WORKERS
        worker.kill()
        if warm:
            self._warm_in_background()

    def _warm_in_background(self) -> None:
        threading.Thread(target=self._warm, name="sutura-run-sql-warm", daemon=True).start()

    def _warm(self) -> None:
        with self._lock:
            if self._closed or len(self._idle) >= WARM_WORKERS:
                return
        problem = self._start_idle()
        if problem is not None:
            log.error("run_sql on %s: a worker did not open: %s", self.alias, problem)

    def _start_idle(self) -> str | None:
        """Start a worker into the idle list (a worker thread); None, or why it did not open."""
        with self._lock:
            if not self._server.alive() and not self._closed:
                log.warning("run_sql on %s: the fork server ended; starting another", self.alias)
                self._server.close()
                self._server = ForkServer()
            server = self._server
        started = server.start(self._opening)
        if isinstance(started, str):
            return started
        with self._lock:
            if not self._closed:
                self._idle.append(started)
                self._live.add(started)
                return None
        started.kill()
        return None

    async def close(self) -> None:
        """Kill every worker (a runaway statement is not waited for); drop scratch."""
        with self._lock:
            self._closed = True
            workers = list(self._live)
            self._live.clear()
            self._idle.clear()
        for worker in workers:
            worker.kill()
        self._server.close()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)


def _decoded(reply: object) -> Fetched | Rejected:
    """A worker's reply as the runner's result (a fault is raised, to be classified)."""
    match reply:
        case ("fetched", list() as columns, list() as rows):
            return Fetched(columns, rows)
        case ("rejected", RawRefusal() as refusal):
            return Rejected(refusal)
        case ("faulted", str() as fault, (str() | None) as words):
            raise WorkerFaultError(Classified(Fault(fault), words))
        case _:
            raise WorkerFaultError(Classified(Fault.UNAVAILABLE))


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

    The gates are the worker's (:func:`sutura.boundary.sources.duckdb_raw_worker.answer`); the
    tests call this to show the lockdown holds without
    them.
    """
    try:
        fetched: Fetched | Faulted = fetch_on_engine(cursor, statement, max_rows)
    except duckdb.Error as error:
        classified = duckdb_fault(error) or Classified(Fault.STATEMENT)
        fetched = Faulted(classified.fault, classified.words)
    return raw_outcome(fetched, max_rows, "duckdb")


def open_duckdb_raw(
    alias: str, settings: DuckDBSourceSettings, context: SourceContext
) -> Result[DuckDBRaw, str]:
    """The raw runner over the DuckDB source ``alias`` with one warm worker, or a sentence."""
    path = context.path(settings.path)
    if not path.exists():
        return Failure(f"{path} does not exist")
    scratch = Path(tempfile.mkdtemp(prefix="sutura-run-sql-")) if path.is_dir() else None
    try:
        data = path if scratch is None else _loaded_copy(path, scratch / "data.duckdb")
    except (duckdb.Error, _LoadError) as error:
        return _not_opened(alias, path, scratch, str(error))
    opening = Opening(str(data), context.limits.memory_limit, settings.threads, context.time_zone)
    server = ForkServer()
    warm: list[_Worker] = []
    for _ in range(WARM_WORKERS):
        started = server.start(opening)
        if isinstance(started, str):
            for worker in warm:
                worker.kill()
            server.close()
            return _not_opened(alias, path, scratch, started)
        warm.append(started)
    return Success(DuckDBRaw(alias, opening, server, warm, scratch))


def _not_opened(alias: str, path: Path, scratch: Path | None, words: str) -> Result[DuckDBRaw, str]:
    log.error("run_sql on %s: cannot open %s: %s", alias, path, words)
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
    return locked_connection(data, context.limits.memory_limit, settings.threads, context.time_zone)


def locked_connection(
    data: Path, memory_limit: str, threads: int | None, time_zone: str
) -> duckdb.DuckDBPyConnection:
    """:func:`locked_instance` from its parts (what a worker process receives)."""
    config: dict[str, str | bool | int | float | list[str]] = {
        "autoload_known_extensions": False,
        "autoinstall_known_extensions": False,
        "allow_community_extensions": False,
        "allow_unsigned_extensions": False,
        "python_enable_replacements": False,
        "allow_persistent_secrets": False,
        **no_spill(memory_limit),
    }
    if threads is not None:
        config["threads"] = threads
    connection = duckdb.connect(":memory:", config=config)
    literal = "'" + str(data).replace("'", "''") + "'"
    try:
        connection.execute(f"ATTACH {literal} AS {DATA_CATALOG} (READ_ONLY)")
        connection.execute(f"USE {DATA_CATALOG}")
        connection.execute("DETACH memory")
        connection.execute("SET GLOBAL TimeZone = ?", [time_zone])
        connection.execute("SET enable_external_access = false")
        connection.execute("SET lock_configuration = true")
    except duckdb.Error:
        connection.close()
        raise
    return connection
