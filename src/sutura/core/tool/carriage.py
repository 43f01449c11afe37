"""How MCP carries each reply, as a value: the one mapping the MCP server sends and the web
console shows (so the console need not import the MCP server to say what an agent receives).

- an answer or a refusal is a normal tool result (:class:`ToolResult`): the structured half,
  and one text block holding the text half;
- malformed arguments, and a tool this deployment does not offer, are a JSON-RPC error,
  invalid params (-32602) (:class:`InvalidParams`), naming the field (never the value) or
  saying the tool is unknown;
- a capability the caller may not use, and a failure, are results with ``isError`` and one
  fixed sentence (:class:`ErrorResult`).

>>> from sutura.core.tool.capability import Capability
>>> from sutura.core.tool.reply import NotOffered
>>> mcp_carriage(NotOffered(capability=Capability.RUN_SQL)).message == UNKNOWN_TOOL
True
"""

from typing import Final, assert_never

from sutura.core.nouns.frozen import Frozen
from sutura.core.tool.codec import Halves
from sutura.core.tool.reply import (
    Answered,
    Declined,
    Failed,
    Malformed,
    NotOffered,
    NotPermitted,
    Reply,
)

UNKNOWN_TOOL: Final = "unknown tool: tools/list names the tools this server offers"
"""The message of a call to a tool this server does not list."""


class ToolResult(Frozen, frozen=True):
    """A normal tool result carrying both halves of one value."""

    halves: Halves


class ErrorResult(Frozen, frozen=True):
    """A tool result with ``isError``: one sentence."""

    sentence: str


class InvalidParams(Frozen, frozen=True):
    """A JSON-RPC invalid-params error (-32602) with its message."""

    message: str


Carriage = ToolResult | ErrorResult | InvalidParams
"""How MCP carries one reply."""


def mcp_carriage(reply: Reply) -> Carriage:
    """How MCP carries ``reply``."""
    match reply:
        case Answered() | Declined():
            return ToolResult(halves=reply.halves)
        case Malformed():
            return InvalidParams(message=reply.sentence())
        case NotOffered():
            return InvalidParams(message=UNKNOWN_TOOL)
        case NotPermitted() | Failed():
            return ErrorResult(sentence=reply.sentence())
        case _:
            assert_never(reply)
