"""The rows of the contract table (:mod:`tests.contract.table`): the call each makes, how it
is provoked, and what every surface must make of its reply.

The questions and statements read the contract deployment (:mod:`tests.contract.deployment`):
its limits (20 rows, 2 dimensions, 400 days, a 1 s deadline, 8 MB for DuckDB) and its views
that make the engine itself refuse.
"""

from typing import Any, Final

from sutura.core.nouns.refusal import RefusalCode
from sutura.core.raw.outcome import RawRefusalCode
from sutura.core.tool.capability import Capability
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
from tests.contract.table import (
    Body,
    CallerKind,
    Channel,
    Cli,
    Http,
    Mcp,
    Row,
    Stream,
    Surface,
)


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
_EXPLAINED_CLI: Final = Cli(1, Stream.STDOUT, explained=True)
_PROBLEM_CLI: Final = Cli(1, Stream.STDERR)
_USAGE_CLI: Final = Cli(2, Stream.STDERR)


_EXPLAINED: Final = (RefusalCode.DIMENSION_NOT_PERMITTED, RefusalCode.DIMENSION_VALUE_NOT_ALLOWED)


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
        cli=_EXPLAINED_CLI if code in _EXPLAINED else _DECLINED_CLI,
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
    Row(
        name="compile_question:answer",
        capability=Capability.COMPILE_QUESTION,
        arguments=_question(["units"], "month", range=_Q1, dimensions=["region"]),
        reply=Answered,
        code=None,
        http=Http(200, Body.STATEMENT),
        mcp=Mcp(Channel.RESULT, shows="the statement"),
        cli=Cli(0, Stream.STDOUT),
        api="Answered",
        provoked="a question the catalog answers (nothing is run)",
    ),
    Row(
        name="list_values:answer",
        capability=Capability.LIST_VALUES,
        arguments={"metric": "units", "dimension": "channel"},
        reply=Answered,
        code=None,
        http=Http(200, Body.VALUES),
        mcp=Mcp(Channel.RESULT, "values"),
        cli=Cli(0, Stream.STDOUT),
        api="Answered",
        provoked="a dimension of a metric the catalog lists",
        spawned=True,
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
        "PostgreSQL past `memory_budget: 64MB` under `temp_file_limit = 0`",
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
    Row(
        name=RefusalCode.VALUE_TOO_LONG.value,
        capability=Capability.LIST_VALUES,
        arguments={"metric": "long_units", "dimension": "label"},
        reply=Declined,
        code=RefusalCode.VALUE_TOO_LONG.value,
        http=_REFUSED[413],
        mcp=_REFUSAL_MCP,
        cli=_DECLINED_CLI,
        api="Declined",
        provoked="`list_values` of a dimension whose one value is 70,000 characters",
    ),
    _refusal(
        RefusalCode.WINDOW_NOT_ADDITIVE,
        _REFUSED[422],
        _question(["return_rate"], "month", range=_Q1, window={"running": True}),
        "a running window over a ratio",
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
        "`statement_failed` in the server's words on PostgreSQL: see [raw-sql.md](raw-sql.md))",
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
        "183 rows over `limits.max_rows: 20`",
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
        arguments={"page": 0},
        reply=Malformed,
        code=None,
        http=_failure(FailureCode.BAD_REQUEST),
        mcp=Mcp(Channel.INVALID_PARAMS),
        cli=_USAGE_CLI,
        api="Malformed",
        provoked="a page below 1 (`GET /v1/catalog?page=0`, `sutura catalog --page 0`)",
        sentence="malformed arguments: $.page: Expected `int` >= 1",
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
        name="compile_question:malformed",
        capability=Capability.COMPILE_QUESTION,
        arguments=_question(["units"], "hour"),
        reply=Malformed,
        code=None,
        http=_failure(FailureCode.NOT_A_QUESTION),
        mcp=Mcp(Channel.INVALID_PARAMS),
        cli=_USAGE_CLI,
        api="Malformed",
        provoked="a grain that is not a grain",
        sentence="malformed question: $.grain: ",
    ),
    Row(
        name="list_values:malformed",
        capability=Capability.LIST_VALUES,
        arguments={"metric": "units", "dimension": "channel", "page_size": 0},
        reply=Malformed,
        code=None,
        http=_failure(FailureCode.BAD_REQUEST),
        mcp=Mcp(Channel.INVALID_PARAMS),
        cli=_USAGE_CLI,
        api="Malformed",
        provoked="a page size below 1 (`sutura values units channel --page-size 0`)",
        sentence="malformed arguments: $.page_size: Expected `int` >= 1",
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
