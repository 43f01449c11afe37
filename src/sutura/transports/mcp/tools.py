"""The tools this server offers, as ``tools/list`` shows them, and which of them are on.

The tool set is built from the settings: ``describe_catalog`` and ``ask_metric`` always;
``run_sql`` only when ``tools.run_sql.enabled`` — and, until that tool is served here, an
operator who enables it is told so at startup rather than shown a prompt that names a tool the
server does not have.
"""

from typing import Final

import mcp_types as types
from returns.result import Failure, Result, Success

from sutura.core.settings import ToolsSettings
from sutura.transports.mcp.schemas import (
    CATALOG_OUTPUT,
    EMPTY_INPUT,
    OUTCOME_OUTPUT,
    QUESTION_INPUT,
)

DESCRIBE_CATALOG: Final = "describe_catalog"
ASK_METRIC: Final = "ask_metric"
RUN_SQL: Final = "run_sql"

# Every tool reads pinned definitions and data it cannot change, and nothing beyond them.
_READ_ONLY: Final = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

_DESCRIBE_CATALOG_TOOL: Final = types.Tool(
    name=DESCRIBE_CATALOG,
    description=(
        "The certified metrics: grains, dimensions, allowed filter values, and the definitions "
        "version and digest. Read it before ask_metric."
    ),
    input_schema=EMPTY_INPUT,
    output_schema=CATALOG_OUTPUT,
    annotations=_READ_ONLY,
)

_ASK_METRIC_TOOL: Final = types.Tool(
    name=ASK_METRIC,
    description=(
        "Ask one question about certified metrics. Returns an answer with provenance, or a "
        "typed refusal, which is an answer too. There is no field for SQL, tables or columns."
    ),
    input_schema=QUESTION_INPUT,
    output_schema=OUTCOME_OUTPUT,
    annotations=_READ_ONLY,
)

RUN_SQL_NOT_SERVED: Final = (
    "settings: tools.run_sql.enabled: the run_sql tool is not served over MCP in this version; "
    "set it to false"
)


def tools_for(settings: ToolsSettings) -> Result[tuple[types.Tool, ...], list[str]]:
    """The tools ``settings`` turn on, in the order ``tools/list`` shows them.

    >>> [tool.name for tool in tools_for(ToolsSettings()).unwrap()]
    ['describe_catalog', 'ask_metric']
    """
    if settings.run_sql.enabled:
        return Failure([RUN_SQL_NOT_SERVED])
    return Success((_DESCRIBE_CATALOG_TOOL, _ASK_METRIC_TOOL))
