"""The MCP server of ``sutura mcp``: the low-level SDK ``Server``, composed from the settings.

Its tools are the capabilities (:mod:`.tools`); a tool call is one capability call
(``Service.call``), and its reply is mapped to MCP's channels, as the spec names them:

- an answer or a refusal is a normal tool result: ``structured_content`` is the structured half
  (it carries ``outcome``) and ``content`` one text block holding the text half, both built
  from one value;
- malformed arguments are a JSON-RPC error, invalid params (-32602), whose message names the
  field and never the value the caller sent; so is a tool this deployment does not offer;
- a capability the caller may not use, and a failure, are results with ``is_error`` and a fixed
  sentence; a failure's cause goes to the log on stderr, never to the caller.

With ``prompt.physical_schema: listed`` it also offers one resource, the physical schema
(:mod:`.resources`); it is not a capability, so no other surface has it.

The SDK's low-level server validates no arguments and turns a handler's exception into a
JSON-RPC error, so both are handled here.
"""

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, assert_never

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura import __version__
from sutura.boundary.startup import Loaded
from sutura.core.codec import Halves
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Capability, offered_by
from sutura.core.tool.reply import (
    FAILURE_SENTENCE,
    Answered,
    Declined,
    Failed,
    Malformed,
    NotOffered,
    NotPermitted,
    Reply,
)
from sutura.transports.mcp.resources import physical_schema_resource
from sutura.transports.mcp.starting import Starting, lifespan_of
from sutura.transports.mcp.tools import tools_for

UNKNOWN_TOOL: Final = "unknown tool: tools/list names the tools this server offers"

log = logging.getLogger("sutura.mcp")

NewCaller = Callable[[], Caller]
"""Who is calling: for stdio, the one local caller of the process, with a fresh request id."""


@dataclass(frozen=True, slots=True)
class McpServer:
    """The composed server, and why its service did not start (filled during a run)."""

    server: Server[Starting]
    start_errors: list[str] = field(default_factory=list)
    longest_call: float = 30.0
    """The deadline of one call (``limits.deadline_seconds``): how long the end of input waits."""


def _invalid_params(sentence: str) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=sentence)


def tool_result(halves: Halves) -> types.CallToolResult:
    """A tool result carrying both halves of one value: the text, and the structured JSON."""
    return types.CallToolResult(
        content=[types.TextContent(text=halves.text)],
        structured_content=halves.structured_object(),
    )


def _error_result(sentence: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=sentence)], is_error=True)


def result_of(reply: Reply) -> types.CallToolResult:
    """A reply as MCP carries it (raises the JSON-RPC error for a malformed call)."""
    match reply:
        case Answered() | Declined():
            return tool_result(reply.halves)
        case Malformed():
            raise _invalid_params(reply.sentence())
        case NotOffered():
            raise _invalid_params(UNKNOWN_TOOL)
        case NotPermitted():
            return _error_result(reply.sentence())
        case Failed():
            return _error_result(reply.sentence())
        case _:
            assert_never(reply)


def local_caller() -> Caller:
    """The caller of a stdio server: the user who started it, with a request id per call."""
    return Caller.local(request_id=uuid.uuid4().hex, surface="mcp")


class _Tools:
    """The tool list of one deployment, and the one handler of every call."""

    def __init__(self, offered: frozenset[Capability], new_caller: NewCaller) -> None:
        self._offered = offered
        self._listed = types.ListToolsResult(tools=list(tools_for(offered)))
        self._new_caller = new_caller

    async def list_tools(
        self, ctx: ServerRequestContext[Starting], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        ctx.lifespan_context.begin()  # the handshake needs no data; the calls after it will
        return self._listed

    async def call_tool(
        self, ctx: ServerRequestContext[Starting], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        capability = next((c for c in self._offered if c.value == params.name), None)
        if capability is None:
            raise _invalid_params(UNKNOWN_TOOL)
        try:
            service = await ctx.lifespan_context.service()
            caller = self._new_caller()
            deadline = service.settings.limits.deadline_seconds
            reply = await service.call(capability, params.arguments, caller, deadline)
        except Exception:
            log.exception("%s failed", params.name)
            return _error_result(FAILURE_SENTENCE)
        return result_of(reply)


def mcp_server(
    loaded: Result[Loaded, list[str]], new_caller: NewCaller = local_caller
) -> Result[McpServer, list[str]]:
    """The server ``sutura mcp`` serves: settings and catalog loaded, the service not yet started.

    Every problem with the settings or the catalog is returned as operator sentences before
    anything is served; problems opening sources or reproducing anchors stop the run they
    happen in (see :mod:`sutura.transports.mcp.starting`).
    """
    if not is_successful(loaded):
        return Failure(loaded.failure())
    context = loaded.unwrap()
    settings = context.loaded.settings
    tools = _Tools(offered_by(settings.tools.run_sql.enabled), new_caller)
    resource = physical_schema_resource(context)
    errors: list[str] = []
    server: Server[Starting] = Server(
        "sutura",
        version=__version__,
        instructions=context.prompt(),
        lifespan=lifespan_of(context, errors),
        on_list_tools=tools.list_tools,
        on_call_tool=tools.call_tool,
        on_list_resources=None if resource is None else resource.list_resources,
        on_read_resource=None if resource is None else resource.read_resource,
    )
    longest = settings.limits.deadline_seconds
    return Success(McpServer(server=server, start_errors=errors, longest_call=longest))
