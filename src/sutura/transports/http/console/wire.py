"""The console helpers' bodies: a call as both surfaces carry it, and a compiled question.

:class:`AgentView` puts side by side what an agent receives for one capability call: the MCP
tool result (its text block, and how MCP carries it) and the body the ``/v1`` route sends,
byte for byte (for an answer or a refusal that body is the structured half, the very bytes of
MCP's ``structuredContent``). :class:`CompiledView` is ``sutura compile``'s statement.
"""

import datetime
import decimal
from enum import StrEnum

import mcp_types as types
from mcp.shared.exceptions import MCPError

from sutura.core.nouns.frozen import Frozen
from sutura.core.sql.compiled import CompiledQuery
from sutura.core.text.escape import escape_text
from sutura.core.tool.reply import Reply, outcome_code
from sutura.transports.http.replies import response_of
from sutura.transports.mcp.server import result_of


class McpChannel(StrEnum):
    """How MCP carries a reply: a normal result, a result with ``isError``, or a JSON-RPC
    invalid-params error."""

    RESULT = "result"
    ERROR_RESULT = "error_result"
    INVALID_PARAMS = "invalid_params"


class AgentView(Frozen, frozen=True):
    """One call as the agent receives it over MCP and over HTTP."""

    capability: str
    outcome: str
    mcp_channel: McpChannel
    text: str
    """The MCP result's one text block (the text half), or the JSON-RPC error's message."""
    http_status: int
    http_body: str
    """The ``/v1`` route's body, byte for byte (UTF-8 by construction)."""


class CompiledParameter(Frozen, frozen=True):
    """One bound value: its placeholder number, its type and its exact text (escaped)."""

    position: int
    type: str
    text: str


class CompiledView(Frozen, frozen=True):
    """A question compiled as ``query`` would run it, touching no data."""

    dialect: str
    sql: str
    parameters: list[CompiledParameter]
    plan: list[str]
    columns: list[str]


def _mcp_side(reply: Reply) -> tuple[McpChannel, str]:
    try:
        result = result_of(reply)
    except MCPError as error:
        return McpChannel.INVALID_PARAMS, error.error.message
    (block,) = result.content
    text = block.text if isinstance(block, types.TextContent) else ""
    return (McpChannel.ERROR_RESULT if result.is_error else McpChannel.RESULT), text


def agent_view(reply: Reply) -> AgentView:
    """``reply`` as MCP and the HTTP API carry it."""
    channel, text = _mcp_side(reply)
    response = response_of(reply)
    body = response.content if isinstance(response.content, bytes) else b""
    return AgentView(
        capability=reply.capability.value,
        outcome=outcome_code(reply),
        mcp_channel=channel,
        text=text,
        http_status=response.status_code or 200,  # unset: the route's own 200
        http_body=body.decode("utf-8"),
    )


def _type_of(value: object) -> str:
    match value:
        case bool():
            return "boolean"
        case int():
            return "integer"
        case decimal.Decimal():
            return "decimal"
        case datetime.date():
            return "date"
        case str():
            return "text"
        case _:
            return type(value).__name__


def compiled_view(query: CompiledQuery) -> CompiledView:
    """The statement, its parameters (typed, exact text) and its plan."""
    parameters = [
        CompiledParameter(position=i, type=_type_of(p), text=escape_text(str(p)))
        for i, p in enumerate(query.params, 1)
    ]
    return CompiledView(
        dialect=query.dialect,
        sql=query.sql,
        parameters=parameters,
        plan=list(query.plan),
        columns=list(query.columns),
    )
