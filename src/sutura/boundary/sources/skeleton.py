"""What every source and every raw runner shares, written once.

A data system is two things sutura cannot write for it: its connection (how one statement is
fetched, at most ``max_rows + 1`` rows, and how it is stopped when the caller stops waiting) and
its error table (which of its errors is which :class:`~sutura.core.outcome.fault.Fault`). This
module is everything else:

- the deadline: the fetch runs under it; when it passes, the fetch is cancelled (each
  connection stops its own statement on cancellation) and the fault is ``deadline``;
- the row cap: more than ``max_rows`` rows is a refusal, never a cut;
- the canonical text of every cell (:func:`~sutura.core.sql.cells.cell_text`);
- classification: a driver error becomes a fault through the driver's own table, and the
  fault becomes the refusal the caller gets (:mod:`~sutura.core.outcome.fault`);
- logging: every driver message goes to the ``sutura.source`` log, never to a caller — except
  the data system's own words about a statement the raw SQL tool ran, which the raw tool returns
  as untrusted content.
"""

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import NamedTuple, Protocol, TypeVar, assert_never, cast

import anyio
from anyio import CancelScope
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal
from sutura.core.outcome.fault import Fault, certified_code, raw_code
from sutura.core.raw.outcome import (
    RawOutcome,
    RawRefusal,
    RawRefusalCode,
    RawRows,
    raw_failure,
    raw_refusal,
)
from sutura.core.sql.cells import UnsupportedCellError, cell_text
from sutura.core.sql.compiled import CompiledQuery
from sutura.core.tool.written import AnswerWriter

log = logging.getLogger("sutura.source")

T = TypeVar("T")

TextRows = list[list[str | None]]
"""Rows of canonical text cells; ``None`` is SQL NULL."""
CHUNK_ROWS = 256
"""Rows turned into text at once: the driver's values of one chunk at most are alive beside the
text. On the long bench answer a chunk of 256 rows took no more time than one of 2,048, and a
1,000-row answer is never held twice whole."""
FIRST_CHUNK_ROWS = 16
"""Rows turned into text at once while an answer written as it arrives is short: a chunk's
values, as the driver hands them over and as text, take about 13 times the room of its rows in
the text half, so a chunk is kept to a 64th of the rows before it (between this and
``CHUNK_ROWS``), and a short answer's peak is not its last chunk's."""


class RowTexts:
    """Rows as their canonical text, built a chunk at a time as a source fetches them.

    A source that hands over each chunk as it arrives holds the driver's values of one chunk at
    most beside the text, never every row twice. Given a writer, each chunk's text goes to both
    halves of the answer as it is made and is not kept here (``rows`` stays empty): no list of
    every row is ever held. Equal cells are not made to share one string: that saved memory (a
    long answer repeats each period and dimension value), but the tables it kept made each of
    the interpreter's full collections during the fetch twice as long, and an in-process answer
    of 50,000 rows × 10 columns took 1.4× the time it takes without them.
    """

    def __init__(self, writer: AnswerWriter | None = None) -> None:
        self.rows: TextRows = []
        self.count = 0
        """Rows added so far (kept here, or handed to the writer)."""
        self._writer = writer

    def wanted(self) -> int:
        """How many rows to turn into text next (a source fetches that many at a time)."""
        if self._writer is None:
            return CHUNK_ROWS
        return min(CHUNK_ROWS, max(FIRST_CHUNK_ROWS, self.count // 64))

    def add(
        self, chunk: Sequence[Sequence[object]], text_columns: frozenset[int] = frozenset()
    ) -> None:
        """Append ``chunk``'s rows as text; the cells of ``text_columns`` are that already.

        Raises:
            UnsupportedCellError: a cell whose type has no canonical text.
        """
        if not chunk:
            return
        self.count += len(chunk)
        if not chunk[0]:
            self._keep([[] for _ in chunk])
            return
        if self._writer is not None and len(text_columns) >= len(chunk[0]):
            # Every cell is its text already: the driver's rows are written as they are.
            self._writer.add(cast("Sequence[Sequence[str | None]]", chunk))
            return
        # A column of ``text_columns`` holds text, or None, already.
        columns = [
            cells if index in text_columns else list(map(cell_text, cells))
            for index, cells in enumerate(zip(*chunk, strict=True))
        ]
        if self._writer is None:
            self.rows += map(list, zip(*columns, strict=True))
        else:  # rows of the writer's are read, never changed: tuples do
            self._writer.add(list(zip(*columns, strict=True)))

    def _keep(self, rows: TextRows) -> None:
        if self._writer is None:
            self.rows += rows
        else:
            self._writer.add(rows)


class Fetched(NamedTuple):
    """What a statement returned: its column labels and at most ``max_rows + 1`` rows (none
    when the source handed them to the caller's :class:`RowTexts` instead)."""

    columns: list[str]
    rows: Sequence[Sequence[object]]
    text_columns: frozenset[int] = frozenset()
    """The columns whose every cell is its canonical text already (or ``None``), as the data
    system wrote it: they are taken as they are."""


class Described(NamedTuple):
    """What a statement returns, read without a row: its columns (name, the source's own type),
    and the text ones the source orders by code point as they are (PostgreSQL: collated as
    ``"C"`` orders; asked only where the dialect orders text by a collation,
    ``collated_text``; none elsewhere)."""

    columns: list[tuple[str, str]]
    code_point: frozenset[str] = frozenset()


class Classified(NamedTuple):
    """What a driver error stands for, and the data system's own words about the statement
    (only for ``statement``, only when they are the data system's words, not the driver's)."""

    fault: Fault
    words: str | None = None


class SourceFaultError(Exception):
    """Raised by a connection for a fault it found itself (no free connection, a closed
    source): classified without the driver's table."""

    def __init__(self, fault: Fault, reason: str) -> None:
        super().__init__(reason)
        self.fault = fault


class Faulted(NamedTuple):
    """No rows: the fault, and the data system's own words when it refused the statement."""

    fault: Fault
    words: str | None = None


class Rejected(NamedTuple):
    """A raw statement the runner would not run (not one statement, not read-only)."""

    refusal: RawRefusal


class Classifier(Protocol):
    """A data system's error table."""

    @property
    def alias(self) -> str:
        """The source's alias in the settings (for the log)."""
        ...

    def classify(self, error: Exception) -> Classified | None:
        """What ``error`` stands for, or None when it is not the data system's error."""
        ...


class Capacity(NamedTuple):
    """How much of a source's work runs at once, as ``/metrics`` reports it; ``None`` where
    the bound is not one this source has."""

    pool_size: int | None = None
    """Connections its pool keeps."""
    statements_at_once: int | None = None
    """Statements it runs at once (the others wait their turn)."""


class Source(Classifier, Protocol):
    """A data system under an alias, read with one posture, speaking one dialect."""

    @property
    def posture(self) -> str:
        """Whose identity reads the data (``shared-service-user``)."""
        ...

    @property
    def dialect(self) -> Dialect:
        """The SQL dialect statements for this source are compiled to."""
        ...

    @property
    def stops_in_place(self) -> bool:
        """Whether a fetch stops, when cancelled, without awaiting anything (DuckDB interrupts
        its cursor and returns): the call's deadline may then be a plain asyncio timeout. A
        source whose stopping awaits a clean-up (PostgreSQL's cancel and rollback, shielded)
        is bounded by anyio's cancel scopes, which that shield relies on."""
        ...

    def capacity(self) -> Capacity:
        """How much of its work runs at once (what it was given when it was opened)."""
        ...

    async def fetch(
        self,
        statement: str,
        params: Sequence[object],
        max_rows: int,
        deadline_at: float,
        texts: RowTexts | None = None,
    ) -> Fetched:
        """Run one compiled statement and fetch at most ``max_rows + 1`` rows.

        Raises the driver's own error; stops the statement on the server when cancelled.
        ``deadline_at`` is the event loop's clock reading by which the caller stops waiting.
        Given ``texts``, a source may add the rows to it as they arrive (raising
        :class:`~sutura.core.sql.cells.UnsupportedCellError` for a cell without a text) and
        return none itself; the rows it returns are turned into text by the caller.
        """
        ...

    async def describe(self, statement: str, deadline_at: float) -> Described:
        """The columns (name, the source's own type) a statement returns, and those it orders
        by code point as they are, reading no row.

        Raises the driver's own error (a missing table, a missing column).
        """
        ...

    async def close(self) -> None:
        """Release the connection; a later fetch fails as ``unavailable``."""
        ...


class RawRunner(Classifier, Protocol):
    """A data system read by statements a caller wrote, with nothing but reads allowed."""

    @property
    def grace_seconds(self) -> float:
        """How long past the deadline a stopped statement may take to unwind."""
        ...

    async def fetch_statement(
        self, statement: str, max_rows: int, deadline_at: float
    ) -> Fetched | Rejected:
        """Check and run one read-only statement; at most ``max_rows + 1`` rows.

        Raises the driver's own error; stops the statement when cancelled.
        """
        ...

    async def close(self) -> None:
        """Release what the runner holds."""
        ...


async def bounded(
    driver: Classifier,
    job: Callable[[float], Awaitable[T]],
    *,
    deadline_seconds: float,
    grace_seconds: float = 0.0,
    held: bool = False,
) -> T | Faulted:
    """Run ``job(deadline_at)`` until the deadline (plus ``grace_seconds`` for a connection that
    stops its statement itself), classifying the driver's errors. ``held``: the caller holds a
    scope ending no later than the deadline (see :func:`run_certified`)."""
    deadline_at = asyncio.get_running_loop().time() + deadline_seconds  # anyio's clock, read
    stop_at = deadline_at + grace_seconds
    result: T | Faulted | None = None
    # A scope the caller holds that ends sooner stops the job first, so this one would never
    # fire: a certified question runs within its call's deadline, begun a moment before.
    scope: AbstractContextManager[object] = nullcontext()
    if not held and anyio.current_effective_deadline() >= stop_at:
        scope = CancelScope(deadline=stop_at)
    with scope:
        try:
            result = await job(deadline_at)
        except Exception as error:
            classified = _classified(driver, error)
            if classified is None:
                raise
            log.warning("source %s: %s: %s", driver.alias, classified.fault.value, error)
            result = Faulted(classified.fault, classified.words)
    if result is None:
        log.warning("source %s: stopped at the deadline", driver.alias)
        return Faulted(Fault.DEADLINE)
    return result


def _classified(driver: Classifier, error: Exception) -> Classified | None:
    if isinstance(error, SourceFaultError):
        return Classified(error.fault)
    if isinstance(error, UnsupportedCellError):  # a cell turned into text as it was fetched
        return Classified(Fault.VALUE)
    return driver.classify(error)


def _texts(
    rows: Sequence[Sequence[object]],
    alias: str,
    text_columns: frozenset[int] = frozenset(),
    texts: RowTexts | None = None,
) -> TextRows | Fault:
    """Every cell as its canonical text, added to ``texts`` (a new one by default); the cells
    of ``text_columns`` are that already."""
    texts = RowTexts() if texts is None else texts
    try:
        start = 0
        while start < len(rows):
            end = start + texts.wanted()
            texts.add(rows[start:end], text_columns)
            start = end
        return texts.rows
    except UnsupportedCellError as error:
        log.warning("source %s: %s", alias, error)
        return Fault.VALUE


async def run_certified(
    source: Source,
    compiled: CompiledQuery,
    *,
    deadline_seconds: float,
    max_rows: int,
    held: bool = False,
    writer: AnswerWriter | None = None,
) -> Result[TextRows, Refusal]:
    """Run a compiled question on ``source``: its rows as text, or the refusal.

    Fetches at most ``max_rows + 1`` rows and refuses with ``result_too_large`` above
    ``max_rows``: an answer is never truncated. Past ``deadline_seconds`` the statement is
    stopped and refused with ``deadline_exceeded``. ``held`` says the caller holds a cancel
    scope of its own ending ``deadline_seconds`` from a moment ago (a service's call does): its
    scope stops the statement first, so none is made here, nor is the caller's deadline looked
    up to find that out. Given ``writer``, the rows go to it as they are turned into text, and
    none is returned.
    """

    texts = RowTexts(writer)

    async def job(deadline_at: float) -> Fetched:
        return await source.fetch(compiled.sql, compiled.params, max_rows, deadline_at, texts)

    result = await bounded(source, job, deadline_seconds=deadline_seconds, held=held)
    match result:
        case Faulted(fault=fault):
            return Failure(refusal(certified_code(fault)))
        case Fetched(rows=rows, text_columns=text_columns):
            if len(rows) + texts.count > max_rows:
                return Failure(refusal(RefusalCode.RESULT_TOO_LARGE))
            if not rows:
                return Success(texts.rows)
            converted = _texts(rows, source.alias, text_columns, texts)
            if isinstance(converted, Fault):
                return Failure(refusal(certified_code(converted)))
            return Success(converted)
        case _:
            assert_never(result)


async def run_raw(
    runner: RawRunner,
    statement: str,
    *,
    deadline_seconds: float,
    max_rows: int,
    grace_seconds: float = 0.0,
) -> RawOutcome:
    """Run one caller-written statement on ``runner``: raw rows, or a raw refusal.

    More than ``max_rows`` rows is ``too_many_rows`` (never a cut); past the deadline the
    statement is stopped and refused with ``deadline_exceeded``.
    """
    from sutura.core.raw.check import readable  # the raw checker, for a raw statement only

    if not is_successful(readable(statement)):
        return raw_refusal(RawRefusalCode.NOT_READ_ONLY)

    async def job(deadline_at: float) -> Fetched | Rejected:
        return await runner.fetch_statement(statement, max_rows, deadline_at)

    result = await bounded(
        runner, job, deadline_seconds=deadline_seconds, grace_seconds=grace_seconds
    )
    return raw_outcome(result, max_rows, runner.alias)


def raw_outcome(result: Fetched | Rejected | Faulted, max_rows: int, alias: str) -> RawOutcome:
    """The raw tool's outcome for what a runner fetched (or why it fetched nothing)."""
    match result:
        case Faulted(fault=Fault.STATEMENT, words=words):
            return raw_failure(words)
        case Faulted(fault=fault):
            return raw_refusal(raw_code(fault))
        case Rejected(refusal=rejected):
            return rejected
        case Fetched(columns=columns, rows=rows):
            if len(rows) > max_rows:
                return raw_refusal(RawRefusalCode.TOO_MANY_ROWS)
            texts = _texts(rows, alias)
            if isinstance(texts, Fault):
                return raw_refusal(raw_code(texts))
            return RawRows(columns=list(columns), rows=texts)
        case _:
            assert_never(result)
