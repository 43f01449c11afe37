"""The Spark source: a cluster reached through Spark Connect (``pip install 'sutura[spark]'``).

Each statement is sent with ``spark.sql(sql, args=[...])``: the server binds every value as a
typed literal, so nothing a caller sent is ever part of the statement's text. Its rows come back
as Arrow and are written as canonical text from there, never through the client's own row
conversion (which would turn an instant into the wall clock of this machine's time zone).

Spark Connect has no per-query timeout. Each answer runs in a worker thread under its own tag;
at the deadline the tag is interrupted from another thread, again until the worker returns, so
an operation that started just after the first interrupt is stopped too. A session the server
has forgotten (it restarted, or the session idled out) is replaced once. The driver's own
messages go to the ``sutura.source`` log, never into a refusal.
"""

import functools
import logging
import os
import re
import threading
import uuid
from typing import Final, TypeAlias

import anyio
import anyio.to_thread
from pyspark.errors import PySparkException
from pyspark.sql.connect.session import SparkSession
from returns.result import Failure, Result, Success

from sutura.boundary.sources.base import TextRows
from sutura.boundary.sources.spark_session import (
    Connect,
    Sessions,
    connector,
    quiet_driver_logs,
    version_problem,
    where,
)
from sutura.core.outcome.refusal import Refusal, RefusalCode, refusal
from sutura.core.settings import LimitsSettings, SparkSourceSettings
from sutura.core.sql.cells import UnsupportedCellError, cell_text
from sutura.core.sql.compile import CompiledQuery, Dialect

log = logging.getLogger("sutura.source")

CONNECT_TIMEOUT_SECONDS: Final = 60.0
_CLOSE_SECONDS: Final = 10.0
_INTERRUPT_EVERY_SECONDS: Final = 0.25
_INTERRUPT_TRIES: Final = 120
_LOST_SESSION: Final = "INVALID_HANDLE.SESSION"
_GRPC_DETAILS: Final = re.compile(r'details = "([^"\n]*)"')

Fetched: TypeAlias = list[list[object]] | PySparkException
"""Raw rows as the Arrow result holds them, or the driver's error."""


class SparkSource:
    """A Spark cluster under an alias, read through one Spark Connect session."""

    def __init__(self, alias: str, posture: str, sessions: Sessions) -> None:
        self.alias = alias
        self.posture = posture
        self.dialect: Dialect = "spark"
        self._sessions = sessions

    async def run(
        self, compiled: CompiledQuery, *, deadline_seconds: float, max_rows: int
    ) -> Result[TextRows, Refusal]:
        """Run ``compiled`` under a deadline, cancelled by its tag; see :class:`Source`."""
        outcome: Result[TextRows, Refusal] | None = None
        with anyio.move_on_after(deadline_seconds):
            outcome = await self._attempt(compiled, max_rows, retry=True)
        if outcome is None:
            log.warning("source %s: query interrupted at the deadline", self.alias)
            return Failure(refusal(RefusalCode.DEADLINE_EXCEEDED))
        return outcome

    async def close(self) -> None:
        """Stop the session; later runs refuse with ``source_unavailable``."""
        with anyio.CancelScope(shield=True), anyio.move_on_after(_CLOSE_SECONDS):
            await anyio.to_thread.run_sync(self._sessions.close, abandon_on_cancel=True)

    async def _attempt(
        self, compiled: CompiledQuery, max_rows: int, *, retry: bool
    ) -> Result[TextRows, Refusal]:
        """One answer on the current session; once more on a new one if the server lost it."""
        session = self._sessions.current()
        if session is None:
            log.warning("source %s: the source is closed", self.alias)
            return Failure(refusal(RefusalCode.SOURCE_UNAVAILABLE))
        tagged = _Tagged(session, self.alias)
        fetched = await tagged.fetch(compiled, max_rows)
        if not isinstance(fetched, PySparkException):
            return _texts(fetched, max_rows, self.alias)
        if retry and _session_lost(fetched):
            log.info("source %s: the server lost the session (%s); renewing", self.alias, fetched)
            renewed = await anyio.to_thread.run_sync(
                functools.partial(_renew, self._sessions, session), abandon_on_cancel=True
            )
            if isinstance(renewed, PySparkException):
                return Failure(_refusal_for(renewed, self.alias))
            return await self._attempt(compiled, max_rows, retry=False)
        return Failure(_refusal_for(fetched, self.alias))


class _Tagged:
    """One statement on a session under its own tag, interruptible from another thread."""

    def __init__(self, session: SparkSession, alias: str) -> None:
        self._session = session
        self._alias = alias
        self._tag = f"sutura-{uuid.uuid4().hex}"
        self._done = threading.Event()

    async def fetch(self, compiled: CompiledQuery, max_rows: int) -> Fetched:
        """The rows (at most ``max_rows + 1``) or the error; interrupted if cancelled."""
        job = functools.partial(self._fetch, compiled, max_rows)
        finished = False
        try:
            fetched = await anyio.to_thread.run_sync(job, abandon_on_cancel=True)
            finished = True
        finally:
            if not finished:  # the deadline passed, or the caller was cancelled
                self._interrupt_in_background()
        return fetched

    def _fetch(self, compiled: CompiledQuery, max_rows: int) -> Fetched:
        """Execute and fetch as Arrow (runs in a worker thread)."""
        self._session.addTag(self._tag)
        try:
            frame = self._session.sql(compiled.sql, args=list(compiled.params))
            table = frame.limit(max_rows + 1).toArrow()
        except PySparkException as err:
            return err
        finally:
            self._session.removeTag(self._tag)
            self._done.set()
        columns = [column.to_pylist() for column in table.columns]
        return [list(row) for row in zip(*columns, strict=True)]

    def _interrupt_in_background(self) -> None:
        """Interrupt the tag now and until the worker returns, without making anyone wait."""
        threading.Thread(target=self._keep_interrupting, name=self._tag, daemon=True).start()

    def _keep_interrupting(self) -> None:
        for _ in range(_INTERRUPT_TRIES):
            try:
                self._session.interruptTag(self._tag)
            except PySparkException as err:
                log.debug("source %s: interrupt failed: %s", self._alias, err)
                return
            if self._done.wait(_INTERRUPT_EVERY_SECONDS):
                return
        log.warning("source %s: an interrupted query is still running", self._alias)


def _renew(sessions: Sessions, stale: SparkSession) -> SparkSession | PySparkException | None:
    """A new session in place of ``stale``, or the driver's error (runs in a worker thread)."""
    try:
        return sessions.renew(stale)
    except PySparkException as err:
        return err


def _texts(rows: list[list[object]], max_rows: int, alias: str) -> Result[TextRows, Refusal]:
    """The rows as canonical text, refused over the cap or for a value without a text."""
    if len(rows) > max_rows:
        return Failure(refusal(RefusalCode.RESULT_TOO_LARGE))
    try:
        return Success([[cell_text(cell) for cell in row] for row in rows])
    except UnsupportedCellError as err:
        log.warning("source %s: %s", alias, err)
        return Failure(refusal(RefusalCode.VALUE_NOT_REPRESENTABLE))


def _condition(err: PySparkException) -> str:
    return err.getCondition() or ""


def _session_lost(err: PySparkException) -> bool:
    """Whether the session is gone: forgotten by the server, or stopped (a renewal failed)."""
    condition = _condition(err)
    return condition.startswith(_LOST_SESSION) or condition == "NO_ACTIVE_SESSION"


def _grpc_status(err: PySparkException) -> str:
    """The name of the gRPC status the error came with (``UNAVAILABLE``), or empty."""
    status = getattr(err, "getGrpcStatusCode", None)
    return str(getattr(status(), "name", "")) if callable(status) else ""


def code_for(err: PySparkException) -> RefusalCode:
    """The refusal code for a driver error, by gRPC status, error condition and SQLSTATE."""
    status, condition, state = _grpc_status(err), _condition(err), err.getSqlState() or ""
    if condition == "OPERATION_CANCELED" or status == "DEADLINE_EXCEEDED":
        return RefusalCode.DEADLINE_EXCEEDED
    if status == "RESOURCE_EXHAUSTED" or state.startswith("53"):
        return RefusalCode.RESOURCES_EXHAUSTED
    if condition.startswith("UNSUPPORTED_DATA_TYPE_FOR_ARROW"):  # a year-month interval, …
        return RefusalCode.VALUE_NOT_REPRESENTABLE
    lost = _session_lost(err) or status in {"UNAVAILABLE", "UNAUTHENTICATED"}
    if lost or state.startswith("08"):
        return RefusalCode.SOURCE_UNAVAILABLE
    return RefusalCode.SOURCE_REFUSED


def _refusal_for(err: PySparkException, alias: str) -> Refusal:
    """Log the driver's message and return the refusal that replaces it."""
    code = code_for(err)
    log.warning("source %s: %s: %s", alias, code.value, err)
    return refusal(code)


async def open_spark(
    alias: str, settings: SparkSourceSettings, limits: LimitsSettings
) -> Result[SparkSource, str]:
    """Open the Spark source ``alias``: one pinned session, proven to answer a query.

    Args:
        alias: The source's name in the settings.
        settings: Its settings; the token is read from the variable named by ``token_env``.
        limits: The bounds; the deadline and row cap arrive with each query.

    Returns:
        The source, or an operator-facing sentence naming the address (the driver's own
        message is logged to ``sutura.source``).
    """
    del limits  # memory and parallelism are the cluster's own
    connect = connector(settings, os.environ)
    if not isinstance(connect, Success):
        return Failure(f"source {alias}: {connect.failure()}")
    quiet_driver_logs()
    first: SparkSession | str | None = None
    with anyio.move_on_after(CONNECT_TIMEOUT_SECONDS):
        first = await anyio.to_thread.run_sync(
            functools.partial(_first_session, connect.unwrap(), alias), abandon_on_cancel=True
        )
    if not isinstance(first, SparkSession):
        problem = first or f"no answer within {CONNECT_TIMEOUT_SECONDS:.0f} s"
        return Failure(f"source {alias}: cannot use Spark Connect at {where(settings)}: {problem}")
    return Success(SparkSource(alias, settings.posture, Sessions(connect.unwrap(), first)))


def _first_session(connect: Connect, alias: str) -> SparkSession | str:
    """A session that answered ``SELECT 1``, or a problem sentence (runs in a worker thread)."""
    try:
        session = connect()
    except PySparkException as err:
        log.error("source %s: cannot connect: %s", alias, _first_line(err))
        log.debug("source %s: cannot connect: %s", alias, err)
        return "the server cannot be reached (details in the log)"
    try:
        problem = version_problem(session.version)
        if problem is None:
            session.sql("SELECT 1").collect()
            log.info("source %s: Spark %s", alias, session.version)
            return session
    except PySparkException as err:
        log.error("source %s: the first query failed: %s", alias, _first_line(err))
        log.debug("source %s: the first query failed: %s", alias, err)
        problem = "the first query failed (details in the log)"
    session.stop()
    return problem


def _first_line(err: PySparkException) -> str:
    """One line of a driver message: the gRPC status and its details, or the message's first
    line (the rest may carry the statement and JVM frames)."""
    text = str(err)
    details = _GRPC_DETAILS.search(text)
    if details is not None:
        return f"{_grpc_status(err) or 'gRPC error'}: {details.group(1)}"
    lines = text.strip().splitlines()
    return lines[0] if lines else type(err).__name__
