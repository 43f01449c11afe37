"""The Spark source: a cluster reached through Spark Connect (``pip install 'sutura[spark]'``).

Each statement is sent with ``spark.sql(sql, args=[...])``: the server binds every value as a
typed literal, so nothing a caller sent is ever part of the statement's text. Its rows come back
as Arrow and are written as canonical text from there, never through the client's own row
conversion (which would turn an instant into the wall clock of this machine's time zone).

Spark Connect has no per-query timeout. Each answer runs in a worker thread under its own tag,
attached before the first request is sent; at the deadline (or when the caller goes away) the
tag is interrupted from another thread, again until the worker's call has returned, which is
the server's word that the operation ended (an operation that started just after an interrupt
is stopped too). If that word does not come within a bound, the session is replaced: releasing
it on the server ends every operation it still holds, so no later statement queues behind one
nobody waits for. A session the server has forgotten (it restarted, or the session idled out) is
replaced once. The driver's own messages go to the ``sutura.source`` log, never into a refusal.
"""

import functools
import logging
import re
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Final

import anyio
import anyio.to_thread
from pyspark.errors import PySparkException
from pyspark.sql.connect.session import SparkSession
from pyspark.sql.types import DataType
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.sources.context import SourceContext
from sutura.boundary.sources.skeleton import (
    Capacity,
    Classified,
    Described,
    Fetched,
    RowTexts,
    SourceFaultError,
)
from sutura.boundary.sources.spark_session import (
    Connect,
    Sessions,
    connector,
    quiet_driver_logs,
    version_problem,
    where,
)
from sutura.core.nouns.dialect import Dialect
from sutura.core.outcome.fault import Fault
from sutura.core.settings import SparkSourceSettings

log = logging.getLogger("sutura.source")

CONNECT_TIMEOUT_SECONDS: Final = 60.0
_CLOSE_SECONDS: Final = 10.0
_INTERRUPT_EVERY_SECONDS: Final = 0.25
# How long an interrupted operation may take to end before its session is released instead.
CONFIRM_SECONDS: Final = 30.0
_LOST_SESSION: Final = "INVALID_HANDLE.SESSION"
_GRPC_DETAILS: Final = re.compile(r'details = "([^"\n]*)"')
_DECLARED_TYPE: Final = "__CHAR_VARCHAR_TYPE_STRING"


class SparkSource:
    """A Spark cluster under an alias, read through one Spark Connect session."""

    dialect: Final[Dialect] = Dialect.SPARK
    stops_in_place: Final = False
    """Bounded by anyio's scopes, as before (its stopping is not known to await nothing)."""

    def __init__(self, alias: str, posture: str, sessions: Sessions) -> None:
        self.alias = alias
        self.posture = posture
        self._sessions = sessions

    def capacity(self) -> Capacity:
        """No bound of its own: the cluster schedules what the one session sends."""
        return Capacity()

    def classify(self, error: Exception) -> Classified | None:
        """The Spark Connect error table."""
        return spark_fault(error)

    async def fetch(
        self,
        statement: str,
        params: Sequence[object],
        max_rows: int,
        deadline_at: float,
        texts: RowTexts | None = None,
    ) -> Fetched:
        """One statement under its own tag; once more on a new session if the server lost it.
        Its rows are returned whole (the caller turns them into text)."""
        return await self._attempt(
            lambda session: self._tagged(session).fetch(statement, params, max_rows),
            retry=True,
        )

    async def describe(self, statement: str, deadline_at: float) -> Described:
        """The columns (name, Spark type) a statement returns; no row is read (Spark orders
        text by code point: no collation is asked about)."""
        fetched = await self._attempt(
            lambda session: self._tagged(session).describe(statement), retry=True
        )
        zipped = zip(fetched.columns, fetched.rows[0], strict=True)
        return Described([(name, str(kind)) for name, kind in zipped])

    def _tagged(self, session: SparkSession) -> "_Tagged":
        return _Tagged(session, self.alias, functools.partial(self._release, session))

    def _release(self, stuck: SparkSession) -> None:
        """Replace a session holding an operation that an interrupt did not end (runs in the
        interrupting thread): releasing it on the server ends all it still runs."""
        log.warning(
            "source %s: an interrupted query did not end within %.0f s; replacing the session",
            self.alias,
            CONFIRM_SECONDS,
        )
        renewed = _renew(self._sessions, stuck)
        if isinstance(renewed, PySparkException):
            log.error("source %s: replacing the session failed: %s", self.alias, renewed)

    async def close(self) -> None:
        """Stop the session; later fetches fail as ``unavailable``."""
        with anyio.CancelScope(shield=True), anyio.move_on_after(_CLOSE_SECONDS):
            await anyio.to_thread.run_sync(self._sessions.close, abandon_on_cancel=True)

    async def _attempt(
        self, work: Callable[[SparkSession], Awaitable[Fetched]], *, retry: bool
    ) -> Fetched:
        """``work`` on the current session; once more on a new one if the server lost it."""
        session = self._sessions.current()
        if session is None:
            raise SourceFaultError(Fault.UNAVAILABLE, "the source is closed")
        try:
            return await work(session)
        except PySparkException as error:
            if not (retry and _session_lost(error)):
                raise
            log.info("source %s: the server lost the session (%s); renewing", self.alias, error)
        renewed = await anyio.to_thread.run_sync(
            functools.partial(_renew, self._sessions, session), abandon_on_cancel=True
        )
        if isinstance(renewed, PySparkException):
            raise renewed
        return await self._attempt(work, retry=False)


class _Tagged:
    """One statement on a session under its own tag, interruptible from another thread."""

    def __init__(self, session: SparkSession, alias: str, release: Callable[[], None]) -> None:
        self._session = session
        self._alias = alias
        self._release = release
        self._tag = f"sutura-{uuid.uuid4().hex}"
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._started = False
        self._abandoned = False

    async def fetch(self, sql: str, params: Sequence[object], max_rows: int) -> Fetched:
        """At most ``max_rows + 1`` rows, or the driver's error; interrupted if cancelled."""
        return await self._interruptible(functools.partial(self._fetch, sql, params, max_rows))

    async def describe(self, sql: str) -> Fetched:
        """The statement's column names, and their types as one row."""
        return await self._interruptible(functools.partial(self._describe, sql))

    async def _interruptible(self, job: Callable[[], Fetched]) -> Fetched:
        try:
            return await anyio.to_thread.run_sync(
                functools.partial(self._under_tag, job), abandon_on_cancel=True
            )
        except anyio.get_cancelled_exc_class():
            self._interrupt_in_background()
            raise

    def _under_tag(self, job: Callable[[], Fetched]) -> Fetched:
        """``job`` with the tag on every request it sends (the client's tags are per thread,
        so this runs in the worker thread, before the first request)."""
        with self._lock:
            if self._abandoned:  # cancelled before a thread took it: nothing was sent
                return Fetched([], [])
            self._started = True
            self._session.addTag(self._tag)
        try:
            return job()
        finally:
            self._session.removeTag(self._tag)
            self._done.set()

    def _fetch(self, sql: str, params: Sequence[object], max_rows: int) -> Fetched:
        """Execute and fetch as Arrow (runs in a worker thread)."""
        table = self._session.sql(sql, args=list(params)).limit(max_rows + 1).toArrow()
        columns = [column.to_pylist() for column in table.columns]
        return Fetched(list(table.column_names), [list(row) for row in zip(*columns, strict=True)])

    def _describe(self, sql: str) -> Fetched:
        fields = self._session.sql(sql).schema.fields
        names = [field.name for field in fields]
        return Fetched(names, [[_type_name(field.dataType, field.metadata) for field in fields]])

    def _interrupt_in_background(self) -> None:
        """Interrupt the tag until the operation ended, without making anyone wait."""
        with self._lock:
            self._abandoned = True
            if not self._started:
                return
        threading.Thread(target=self._interrupt_until_ended, name=self._tag, daemon=True).start()

    def _interrupt_until_ended(self) -> None:
        """Interrupt the tag until the worker's call returned (the server ended the operation);
        past :data:`CONFIRM_SECONDS` without that, release the session instead."""
        give_up_at = time.monotonic() + CONFIRM_SECONDS
        while not self._done.is_set():
            if time.monotonic() >= give_up_at:
                self._release()
                return
            try:
                interrupted = self._session.interruptTag(self._tag)
            except PySparkException as error:  # retried: one lost request must not end it
                log.debug("source %s: interrupt failed: %s", self._alias, error)
            else:
                log.debug("source %s: interrupted %s", self._alias, interrupted)
            self._done.wait(_INTERRUPT_EVERY_SECONDS)


def _renew(sessions: Sessions, stale: SparkSession) -> SparkSession | PySparkException | None:
    """A new session in place of ``stale``, or the driver's error (runs in a worker thread)."""
    try:
        return sessions.renew(stale)
    except PySparkException as err:
        return err


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


def spark_fault(error: Exception) -> Classified | None:
    """What a driver error stands for, by gRPC status, error condition and SQLSTATE."""
    if not isinstance(error, PySparkException):
        return None
    status, condition = _grpc_status(error), _condition(error)
    state = error.getSqlState() or ""
    if condition == "OPERATION_CANCELED" or status == "DEADLINE_EXCEEDED":
        return Classified(Fault.DEADLINE)
    if status == "RESOURCE_EXHAUSTED" or state.startswith("53"):
        return Classified(Fault.RESOURCES)
    if condition.startswith("UNSUPPORTED_DATA_TYPE_FOR_ARROW"):  # a year-month interval, …
        return Classified(Fault.VALUE)
    lost = _session_lost(error) or status in {"UNAVAILABLE", "UNAUTHENTICATED"}
    if lost or state.startswith("08"):
        return Classified(Fault.UNAVAILABLE)
    return Classified(Fault.STATEMENT)


async def open_spark(
    alias: str, settings: SparkSourceSettings, context: SourceContext
) -> Result[SparkSource, str]:
    """Open the Spark source ``alias``: one pinned session, proven to answer a query.

    Args:
        alias: The source's name in the settings.
        settings: Its settings; the token is read from the variable named by ``token_env``.
        context: The environment the token is read from, and the catalog's time zone.

    Returns:
        The source, or an operator-facing sentence naming the address (the driver's own
        message is logged to ``sutura.source``).
    """
    connect = connector(settings, context.environ, context.time_zone)
    if not is_successful(connect):
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


def _type_name(data_type: "DataType", metadata: dict[str, object]) -> str:
    """A column's type as its table declares it: Spark reads ``CHAR(n)`` and ``VARCHAR(n)``
    columns as ``string`` and keeps the declared type in the field's metadata."""
    declared = metadata.get(_DECLARED_TYPE)
    return declared if isinstance(declared, str) else data_type.simpleString()
