"""The contract: one row per kind of reply, and how every surface carries it.

Every refusal code (certified and raw), every non-answer reply (malformed arguments per
capability, not offered, not permitted, failed) and each capability's answer is one
:class:`Row` (the rows are :data:`tests.contract.rows.ROWS`): the call that provokes it, the
reply the service gives, and what each surface makes of that reply — the HTTP status and body
(and ``Retry-After``), the MCP channel, the command line's exit code and stream, the Python
API's value. ``tests/contract/test_*.py`` drive every row through every surface on DuckDB and
on PostgreSQL and check each against the table; ``docs/refusals.md`` shows the same table,
rendered by :func:`markdown` (a test keeps them equal).

A row says how it is provoked. Most are provoked for real: a question over a limit, a view the
engine refuses, a deadline, a memory limit, a backend that dies. A few need a seam
(:mod:`tests.contract.seams`), because no engine gives that reply on demand; the row says so.
A few replies cannot be sent over some surface at all (no HTTP, command-line or Python API
caller lacks a scope): there the test maps the service's real reply with that surface's own
mapping function, and the row lists the surface in :attr:`Row.unsendable`.
"""

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, TypeAlias, assert_never

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
from sutura.transports.http.wire import FailureCode

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
    STATEMENT = "statement"
    VALUES = "values"
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
    """An MCP reply: the channel, and for a result the structured half's ``outcome`` (or what
    the result is, when it has none)."""

    channel: Channel
    outcome: str | None = None
    shows: str = "the catalog"

    def cell(self) -> str:
        """As the doc's table writes it."""
        match self.channel:
            case Channel.RESULT:
                shown = self.shows if self.outcome is None else f"`outcome: {self.outcome}`"
                return f"result, {shown}"
            case Channel.IS_ERROR:
                return "`isError`, one sentence"
            case Channel.INVALID_PARAMS:
                return "-32602 invalid params"
            case _:
                assert_never(self.channel)


@dataclass(frozen=True)
class Cli:
    """A command's exit code and the stream that carries the reply; ``explained``: a person
    also reads on stderr what the refusal is about (the dimension, what the metric lists)."""

    exit: int
    stream: Stream
    explained: bool = False

    def cell(self) -> str:
        """As the doc's table writes it."""
        what = "text half" if self.stream is Stream.STDOUT else "`sutura: <sentence>`"
        told = "; stderr names the dimension and what the metric lists" if self.explained else ""
        return f"{self.exit}, {self.stream.value} ({what}){told}"


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


def markdown(rows: tuple[Row, ...]) -> list[str]:
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
            flags = (row.arguments or {}).items()
            return ["catalog", *[part for key, value in flags for part in (f"--{key}", str(value))]]
        case Capability.ASK_METRIC:
            return ["query", "--question", json.dumps(row.arguments)]
        case Capability.RUN_SQL:
            assert row.arguments is not None
            return ["sql", row.arguments["statement"]]
        case Capability.COMPILE_QUESTION:
            return ["compile", "--question", json.dumps(row.arguments)]
        case Capability.LIST_VALUES:
            assert row.arguments is not None
            named = [(k, v) for k, v in row.arguments.items() if k not in ("metric", "dimension")]
            options = [part for k, v in named for part in (f"--{k.replace('_', '-')}", str(v))]
            return ["values", row.arguments["metric"], row.arguments["dimension"], *options]
        case _:
            assert_never(row.capability)


def v1_request(row: Row) -> tuple[str, str, dict[str, Any]]:
    """The ``/v1`` request that makes the row's call: method, path, and the query or body."""
    match row.capability:
        case Capability.DESCRIBE_CATALOG:
            query = {key: str(value) for key, value in (row.arguments or {}).items()}
            return "GET", "/v1/catalog", {"params": query}
        case Capability.ASK_METRIC:
            return "POST", "/v1/query", {"json": row.arguments}
        case Capability.RUN_SQL:
            return "POST", "/v1/sql/run", {"json": row.arguments}
        case Capability.COMPILE_QUESTION:
            return "POST", "/v1/compile", {"json": row.arguments}
        case Capability.LIST_VALUES:
            return "POST", "/v1/values", {"json": row.arguments}
        case _:
            assert_never(row.capability)
