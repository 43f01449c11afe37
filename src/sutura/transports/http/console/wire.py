"""The console's agent view: a call as both surfaces carry it.

:class:`AgentView` puts side by side what an agent receives for one capability call: the MCP
tool result (its text block, and how MCP carries it, as
:func:`~sutura.core.tool.carriage.mcp_carriage` says) and the body the ``/v1`` route sends, byte
for byte (for an answer or a refusal that body is the structured half, the very bytes of MCP's
``structuredContent``).
"""

from enum import StrEnum
from typing import assert_never

from sutura.core.nouns.frozen import Frozen
from sutura.core.tool.carriage import ErrorResult, InvalidParams, ToolResult, mcp_carriage
from sutura.core.tool.reply import Reply, outcome_code
from sutura.transports.http.replies import response_of


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


def _mcp_side(reply: Reply) -> tuple[McpChannel, str]:
    carriage = mcp_carriage(reply)
    match carriage:
        case ToolResult(halves=halves):
            return McpChannel.RESULT, halves.text
        case ErrorResult(sentence=sentence):
            return McpChannel.ERROR_RESULT, sentence
        case InvalidParams(message=message):
            return McpChannel.INVALID_PARAMS, message
        case _:
            assert_never(carriage)


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
