"""The contract: one row per kind of reply, and how every surface carries it.

Every refusal code (certified and raw), every non-answer reply (malformed arguments per
capability, not offered, not permitted, failed) and each capability's answer is one
:class:`Row`: the call that provokes it, the reply the service gives, and what each surface
makes of that reply — the HTTP status and body (and ``Retry-After``), the MCP channel, the
command line's exit code and stream, the Python API's value. ``tests/contract/test_*.py`` drive
every row through every surface on DuckDB and on PostgreSQL and check each against this table;
``docs/refusals.md`` shows the same table, rendered by :func:`markdown` (a test keeps them equal).

A row says how it is provoked. Most are provoked for real: a question over a limit, a view the
engine refuses, a deadline, a memory limit, a backend that dies. A few need a seam
(:mod:`tests.contract.seams`), because no engine gives that reply on demand; the row says so.
A few replies cannot be sent over some surface at all (no HTTP, command-line or Python API
caller lacks a scope; ``GET /v1/catalog`` and ``sutura catalog`` take no arguments): there the
test maps the service's real reply with that surface's own mapping function, and the row lists
the surface in :attr:`Row.unsendable`.
"""

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, TypeAlias, assert_never

from sutura.core.outcome.refusal import RefusalCode
from sutura.core.raw.outcome import RawRefusalCode
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Capability, Scope
from sutura.core.tool.reply import (
    Answered,
    Declined,
    Failed,
    Malformed,
    NotOffered,
    NotPermitted,
)
from sutura.transports.http.wire import FailureCode, failure_status
from tests.contract.seams import DYING_STATEMENT, LONE_SURROGATE_STATEMENT

ReplyKind: TypeAlias = type[Answered | Declined | Malformed | NotPermitted | NotOffered | Failed]


class Surface(StrEnum):
    """Where a caller meets sutura."""

    HTTP = "HTTP"
    MCP = "MCP"
    CLI = "CLI"
    API = "Python API"


class Body(StrEnum):
    """The shape of an HTTP body (and of the structured half, where there is one)."""

    ANSWER = "answer"
    CATALOG = "catalog"
    RAW_ROWS = "raw_rows"
    REFUSAL = "refusal"
    RAW_REFUSAL = "raw_refusal"
    FAILURE = "failure"


class Channel(StrEnum):
    """Which MCP channel carries a reply."""

    RESULT = "result"
    IS_ERROR = "isError"
    INVALID_PARAMS = "invalid params"


class Stream(StrEnum):
    """Where the command line writes a reply."""

    STDOUT = "stdout"
    STDERR = "stderr"


class CallerKind(StrEnum):
    """Who makes the call."""

    LOCAL = "local"
    """Every scope: the caller of every surface in this deployment."""
    WITHOUT_SCOPE = "without scope"
    """Holds ``sutura:catalog.read`` only."""


@dataclass(frozen=True)
class Http:
    """An HTTP response: status, body shape, failure code, ``Retry-After: 1``."""

    status: int
    body: Body
    failure: FailureCode | None = None
    retry_after: bool = False

    def cell(self) -> str:
        """As the doc's table writes it."""
        what = f"`{self.failure.value}`" if self.failure is not None else self.body.value
        retry = " + `Retry-After: 1`" if self.retry_after else ""
        return f"{self.status} {what}{retry}"


@dataclass(frozen=True)
class Mcp:
    """An MCP reply: the channel, and for a result the structured half's ``outcome``."""

    channel: Channel
    outcome: str | None = None

    def cell(self) -> str:
        """As the doc's table writes it."""
        match self.channel:
            case Channel.RESULT:
                shown = "the catalog" if self.outcome is None else f"`outcome: {self.outcome}`"
                return f"result, {shown}"
            case Channel.IS_ERROR:
                return "`isError`, one sentence"
            case Channel.INVALID_PARAMS:
                return "-32602 invalid params"
            case _:
                assert_never(self.channel)


@dataclass(frozen=True)
class Cli:
    """A command's exit code and the stream that carries the reply."""

    exit: int
    stream: Stream

    def cell(self) -> str:
        """As the doc's table writes it."""
        what = "text half" if self.stream is Stream.STDOUT else "`sutura: <sentence>`"
        return f"{self.exit}, {self.stream.value} ({what})"


@dataclass(frozen=True)
class Row:
    """One kind of reply, how it is provoked, and what each surface makes of it."""

    name: str
    capability: Capability
    arguments: dict[str, Any] | None
    reply: ReplyKind
    code: str | None
    http: Http
    mcp: Mcp
    cli: Cli
    api: str
    """What the Python API gives: ``outcome_of(reply)`` for a question, else the reply."""
    provoked: str
    sentence: str | None = None
    """The start of the sentence a reply without a structured half carries."""
    caller: CallerKind = CallerKind.LOCAL
    run_sql: bool = True
    """Whether the deployment offers ``run_sql`` (off: ``SUTURA__TOOLS__RUN_SQL__ENABLED``)."""
    seamed: bool = False
    """Provoked through a seam on some engine: in-process surfaces only."""
    unsendable: frozenset[Surface] = field(default_factory=frozenset)
    spawned: bool = False
    """Also driven through the spawned ``sutura mcp`` and the console script."""

    @property
    def status(self) -> int:
        """The HTTP status."""
        return self.http.status


def _question(metrics: list[str], grain: str = "year", **more: Any) -> dict[str, Any]:
    span = more.pop("range", {"start": "2024-01-01", "end": "2025-01-01"})
    return {"metrics": metrics, "grain": grain, "range": span, **more}


_Q1: Final = {"start": "2024-01-01", "end": "2024-04-01"}
_JANUARY: Final = {"start": "2024-01-01", "end": "2024-02-01"}
_REFUSED: Final = {  # a refusal's HTTP response, by status (the one worth retrying: 503)
    status: Http(status, Body.REFUSAL, retry_after=status == 503)
    for status in (403, 404, 413, 422, 503)
}
_RAW_REFUSED: Final = {
    status: Http(status, Body.RAW_REFUSAL, retry_after=status == 503)
    for status in (403, 413, 422, 503)
}
_REFUSAL_MCP: Final = Mcp(Channel.RESULT, "refusal")
_RAW_REFUSAL_MCP: Final = Mcp(Channel.RESULT, "raw_refusal")
_DECLINED_CLI: Final = Cli(1, Stream.STDOUT)
_PROBLEM_CLI: Final = Cli(1, Stream.STDERR)
_USAGE_CLI: Final = Cli(2, Stream.STDERR)


def _refusal(
    code: RefusalCode, http: Http, question: dict[str, Any], provoked: str, **more: Any
) -> Row:
    return Row(
        name=code.value,
        capability=Capability.ASK_METRIC,
        arguments=question,
        reply=Declined,
        code=code.value,
        http=http,
        mcp=_REFUSAL_MCP,
        cli=_DECLINED_CLI,
        api="Refused",
        provoked=provoked,
        **more,
    )


def _raw(code: RawRefusalCode, http: Http, statement: str, provoked: str, **more: Any) -> Row:
    return Row(
        name=f"run_sql:{code.value}",
        capability=Capability.RUN_SQL,
        arguments={"statement": statement},
        reply=Declined,
        code=code.value,
        http=http,
        mcp=_RAW_REFUSAL_MCP,
        cli=_DECLINED_CLI,
        api="Declined",
        provoked=provoked,
        **more,
    )


def _failure(code: FailureCode) -> Http:
    return Http(failure_status(code), Body.FAILURE, failure=code)


_NO_SCOPE: Final = frozenset({Surface.HTTP, Surface.CLI, Surface.API})
_NO_ARGUMENTS: Final = frozenset({Surface.HTTP, Surface.CLI})
_UNAVAILABLE: Final = (
    "PostgreSQL: a view that terminates its own backend; DuckDB (seam): the source closed "
    "after startup, so DuckDB itself says the connection is closed"
)

ANSWERS: Final = (
    Row(
        name="describe_catalog:answer",
        capability=Capability.DESCRIBE_CATALOG,
        arguments=None,
        reply=Answered,
        code=None,
        http=Http(200, Body.CATALOG),
        mcp=Mcp(Channel.RESULT),
        cli=Cli(0, Stream.STDOUT),
        api="Answered",
        provoked="the catalog",
    ),
    Row(
        name="ask_metric:answer",
        capability=Capability.ASK_METRIC,
        arguments=_question(["units"], "month", range=_Q1, dimensions=["region"]),
        reply=Answered,
        code=None,
        http=Http(200, Body.ANSWER),
        mcp=Mcp(Channel.RESULT, "answer"),
        cli=Cli(0, Stream.STDOUT),
        api="Answer",
        provoked="a question the catalog answers",
        spawned=True,
    ),
    Row(
        name="run_sql:answer",
        capability=Capability.RUN_SQL,
        arguments={
            "statement": "SELECT region, sum(units) AS units FROM sales GROUP BY region"
            " ORDER BY region"
        },
        reply=Answered,
        code=None,
        http=Http(200, Body.RAW_ROWS),
        mcp=Mcp(Channel.RESULT, "raw_rows"),
        cli=Cli(0, Stream.STDOUT),
        api="Answered",
        provoked="a read-only statement",
    ),
)

REFUSALS: Final = (
    _refusal(
        RefusalCode.METRIC_UNKNOWN,
        _REFUSED[404],
        _question(["payroll"]),
        "a metric not in the catalog",
    ),
    _refusal(
        RefusalCode.METRICS_NOT_COMBINABLE,
        _REFUSED[422],
        _question(["units", "visits"], "month"),
        "two metrics on two models",
    ),
    _refusal(
        RefusalCode.GRAIN_NOT_SUPPORTED,
        _REFUSED[422],
        _question(["units"], "week"),
        "a grain not listed",
    ),
    _refusal(
        RefusalCode.DUPLICATE_DIMENSION,
        _REFUSED[422],
        _question(["units"], dimensions=["region", "region"]),
        "a dimension named twice",
    ),
    _refusal(
        RefusalCode.TOO_MANY_DIMENSIONS,
        _REFUSED[422],
        _question(["units"], dimensions=["region", "channel", "segment"]),
        "three dimensions over `limits.max_dimensions: 2`",
    ),
    _refusal(
        RefusalCode.TIME_RANGE_TOO_LONG,
        _REFUSED[422],
        _question(["units"], range={"start": "2024-01-01", "end": "2026-01-01"}),
        "two years over `limits.max_range_days: 400`",
    ),
    _refusal(
        RefusalCode.RESOURCES_EXHAUSTED,
        _REFUSED[422],
        _question(["heavy_units"]),
        "a distinct count over 10⁶–10⁸ generated rows: DuckDB past `limits.memory_limit: 8MB`, "
        "PostgreSQL past `temp_file_limit = 0`",
    ),
    _refusal(
        RefusalCode.DEADLINE_EXCEEDED,
        _REFUSED[422],
        _question(["slow_units"]),
        "a view that never ends, stopped at `limits.deadline_seconds: 1` (the Python API also "
        "with `deadline=1e-06`)",
    ),
    _refusal(
        RefusalCode.DENOMINATOR_ZERO,
        _REFUSED[422],
        _question(["return_rate"], "month", range=_JANUARY, dimensions=["channel"]),
        "a ratio (`zero_denominator: fails`) by a channel that sold nothing",
    ),
    _refusal(
        RefusalCode.DIMENSION_NOT_PERMITTED,
        _REFUSED[403],
        _question(["units"], dimensions=["country"]),
        "a dimension not listed",
    ),
    _refusal(
        RefusalCode.DIMENSION_NOT_FILTERABLE,
        _REFUSED[403],
        _question(["units"], filters=[{"op": "in", "dimension": "segment", "values": ["a"]}]),
        "a filter on a dimension without values",
    ),
    _refusal(
        RefusalCode.DIMENSION_VALUE_NOT_ALLOWED,
        _REFUSED[403],
        _question(["units"], filters=[{"op": "eq", "dimension": "region", "value": "north"}]),
        "a filter value not listed",
    ),
    _refusal(
        RefusalCode.SOURCE_REFUSED,
        _REFUSED[403],
        _question(["refused_units"]),
        "a view that casts a region name to an integer: the engine refuses it at run time",
    ),
    _refusal(
        RefusalCode.RESULT_TOO_LARGE,
        _REFUSED[413],
        _question(["units"], "day", range=_JANUARY),
        "31 days over `limits.max_rows: 20`",
        spawned=True,
    ),
    _refusal(
        RefusalCode.SOURCE_UNAVAILABLE,
        _REFUSED[503],
        _question(["unreachable_units"]),
        _UNAVAILABLE,
        seamed=True,
    ),
    _refusal(
        RefusalCode.VALUE_NOT_REPRESENTABLE,
        _REFUSED[422],
        _question(["blob_units"], dimensions=["region"]),
        "a dimension whose values are bytes (no canonical text)",
    ),
)

RAW_REFUSALS: Final = (
    _raw(
        RawRefusalCode.STATEMENT_FAILED,
        _RAW_REFUSED[422],
        "SELECT * FROM no_such_table",
        "a table that does not exist (the database's words come back)",
    ),
    _raw(
        RawRefusalCode.NOT_ONE_STATEMENT,
        _RAW_REFUSED[422],
        "/* a comment, and no statement */",
        "a comment and no statement (two statements are this code on DuckDB, and "
        "`statement_failed` in the server's words on PostgreSQL: see raw-sql.md)",
    ),
    _raw(
        RawRefusalCode.NOT_READ_ONLY,
        _RAW_REFUSED[403],
        "DELETE FROM sales",
        "a write",
        spawned=True,
    ),
    _raw(
        RawRefusalCode.TOO_MANY_ROWS,
        _RAW_REFUSED[413],
        "SELECT day FROM sales",
        "183 rows over `max_rows: 20`",
    ),
    _raw(
        RawRefusalCode.DEADLINE_EXCEEDED,
        _RAW_REFUSED[422],
        "SELECT count(*) FROM endless",
        "a view that never ends, stopped at `limits.deadline_seconds: 1`",
    ),
    _raw(
        RawRefusalCode.RESOURCES_EXHAUSTED,
        _RAW_REFUSED[422],
        "SELECT count(DISTINCT units) FROM heavy",
        "as `resources_exhausted` above",
    ),
    _raw(
        RawRefusalCode.VALUE_NOT_SUPPORTED,
        _RAW_REFUSED[422],
        "SELECT ARRAY[1, 2] AS list",
        "a list",
    ),
    _raw(
        RawRefusalCode.VALUE_NOT_REPRESENTABLE,
        _RAW_REFUSED[422],
        LONE_SURROGATE_STATEMENT,
        "seam: the runner returns a lone surrogate, which no engine can store",
        seamed=True,
    ),
    _raw(
        RawRefusalCode.SOURCE_UNAVAILABLE,
        _RAW_REFUSED[503],
        DYING_STATEMENT,
        "PostgreSQL: the view that terminates its own backend; DuckDB (seam): the runner raises "
        "DuckDB's own `ConnectionException`, classified by DuckDB's error table",
        seamed=True,
    ),
)

_TOO_LONG: Final = "x" * 32769

NON_ANSWERS: Final = (
    Row(
        name="describe_catalog:malformed",
        capability=Capability.DESCRIBE_CATALOG,
        arguments={"unexpected": 1},
        reply=Malformed,
        code=None,
        http=_failure(FailureCode.BAD_REQUEST),
        mcp=Mcp(Channel.INVALID_PARAMS),
        cli=_USAGE_CLI,
        api="Malformed",
        provoked="an argument (`GET /v1/catalog` and `sutura catalog` take none)",
        sentence="malformed arguments: $: describe_catalog takes no arguments",
        unsendable=_NO_ARGUMENTS,
    ),
    Row(
        name="ask_metric:malformed",
        capability=Capability.ASK_METRIC,
        arguments=_question(["units"], "hour"),
        reply=Malformed,
        code=None,
        http=_failure(FailureCode.NOT_A_QUESTION),
        mcp=Mcp(Channel.INVALID_PARAMS),
        cli=_USAGE_CLI,
        api="QuestionError",
        provoked="a grain that is not a grain",
        sentence="malformed question: $.grain: ",
        spawned=True,
    ),
    Row(
        name="run_sql:malformed",
        capability=Capability.RUN_SQL,
        arguments={"statement": _TOO_LONG},
        reply=Malformed,
        code=None,
        http=_failure(FailureCode.NOT_A_STATEMENT),
        mcp=Mcp(Channel.INVALID_PARAMS),
        cli=_USAGE_CLI,
        api="Malformed",
        provoked="a statement over 32768 characters",
        sentence="malformed statement: $.statement: ",
    ),
    Row(
        name="run_sql:not_offered",
        capability=Capability.RUN_SQL,
        arguments={"statement": "SELECT 1"},
        reply=NotOffered,
        code=None,
        http=_failure(FailureCode.TOOL_NOT_ENABLED),
        mcp=Mcp(Channel.INVALID_PARAMS),
        cli=_PROBLEM_CLI,
        api="NotOffered",
        provoked="`tools.run_sql.enabled: false`",
        sentence=NotOffered(capability=Capability.RUN_SQL).sentence(),
        run_sql=False,
    ),
    Row(
        name="ask_metric:not_permitted",
        capability=Capability.ASK_METRIC,
        arguments=_question(["units"]),
        reply=NotPermitted,
        code=None,
        http=_failure(FailureCode.INSUFFICIENT_SCOPE),
        mcp=Mcp(Channel.IS_ERROR),
        cli=_PROBLEM_CLI,
        api="Failed",
        provoked="a caller without `sutura:metrics.ask` (MCP's `new_caller`; no HTTP, command "
        "line or Python API caller lacks a scope)",
        sentence=NotPermitted(capability=Capability.ASK_METRIC).sentence(),
        caller=CallerKind.WITHOUT_SCOPE,
        unsendable=_NO_SCOPE,
    ),
    Row(
        name="ask_metric:failed",
        capability=Capability.ASK_METRIC,
        arguments=_question(["broken_units"]),
        reply=Failed,
        code=None,
        http=_failure(FailureCode.INTERNAL),
        mcp=Mcp(Channel.IS_ERROR),
        cli=_PROBLEM_CLI,
        api="Failed",
        provoked="seam: a source whose fetch raises an error no driver's table knows",
        sentence=Failed(capability=Capability.ASK_METRIC).sentence(),
        seamed=True,
    ),
)

ROWS: Final = (*ANSWERS, *REFUSALS, *RAW_REFUSALS, *NON_ANSWERS)


def without_scope(request_id: str = "contract") -> Caller:
    """A caller that may read the catalog and nothing else (what no HTTP, command-line or
    Python API caller is; MCP takes one through ``mcp_server(..., new_caller)``)."""
    return Caller(
        subject="contract",
        scopes=frozenset({Scope.CATALOG_READ}),
        audiences=frozenset(),
        request_id=request_id,
    )


def row_id(row: Row) -> str:
    """A test id."""
    return row.name


def _code_cell(row: Row) -> str:
    return "" if row.code is None else f"`{row.code}`"


def _provoked_cell(row: Row) -> str:
    if not row.unsendable:
        return row.provoked
    surfaces = ", ".join(s.value for s in Surface if s in row.unsendable)
    return f"{row.provoked}; not sendable over {surfaces}: their mapping of the reply is checked"


HEADER: Final = (
    "| capability | reply | code | HTTP | MCP | CLI exit, stream | Python API | provoked by |",
    "|---|---|---|---|---|---|---|---|",
)


def markdown(rows: tuple[Row, ...] = ROWS) -> list[str]:
    """The table as ``docs/refusals.md`` shows it, one line per row."""
    lines = list(HEADER)
    for row in rows:
        cells = [
            f"`{row.capability.value}`",
            f"`{row.reply.__name__}`",
            _code_cell(row),
            row.http.cell(),
            row.mcp.cell(),
            row.cli.cell(),
            f"`{row.api}`",
            _provoked_cell(row),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def cli_argv(row: Row) -> list[str]:
    """The command that makes the row's call."""
    match row.capability:
        case Capability.DESCRIBE_CATALOG:
            return ["catalog"]
        case Capability.ASK_METRIC:
            return ["query", "--question", json.dumps(row.arguments)]
        case Capability.RUN_SQL:
            assert row.arguments is not None
            return ["sql", row.arguments["statement"]]
        case _:
            assert_never(row.capability)
