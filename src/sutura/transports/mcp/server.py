"""The MCP server of ``sutura mcp``: the low-level SDK ``Server``, composed from the settings.

Three channels, as the spec names them:

- an answer or a refusal is a normal tool result: ``structured_content`` is the structured half
  (it carries ``outcome``) and ``content`` one text block holding the text half, both built
  from one value;
- malformed arguments are a JSON-RPC error, invalid params (-32602), whose message names the
  field and never the value the caller sent;
- a failure (anything unexpected) is a result with ``is_error`` and a fixed sentence; its cause
  goes to the log on stderr, never to the caller.

The SDK's low-level server validates no arguments and turns a handler's exception into a
JSON-RPC error, so both are handled here.
"""

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura import __version__
from sutura.core.codec import convert_statement, halves_of, raw_halves
from sutura.core.question.model import QuestionError, convert_question
from sutura.transports.mcp.starting import Starter, Starting, lifespan_of
from sutura.transports.mcp.surface import Surface, surface_of, tool_result
from sutura.transports.mcp.tools import ASK_METRIC, DESCRIBE_CATALOG, RUN_SQL

FAILURE_SENTENCE: Final = (
    "sutura failed: something broke while answering, and nothing was answered. The operator's "
    "log has the cause; the same question may work later."
)
UNKNOWN_TOOL: Final = "unknown tool: tools/list names the tools this server offers"
NO_ARGUMENTS: Final = "malformed arguments: $: describe_catalog takes no arguments"

log = logging.getLogger("sutura.mcp")

Arguments = Mapping[str, Any] | None
Handler = Callable[[Starting, Arguments], Awaitable[types.CallToolResult]]


@dataclass(frozen=True, slots=True)
class McpServer:
    """The composed server, and why its service did not start (filled during a run)."""

    server: Server[Starting]
    start_errors: list[str] = field(default_factory=list)


def _invalid_params(sentence: str) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=sentence)


class _Tools:
    """The tool handlers of one surface: ``run_sql`` only when the surface lists it."""

    def __init__(self, surface: Surface) -> None:
        self._surface = surface
        self._handlers: dict[str, Handler] = {
            DESCRIBE_CATALOG: self._describe_catalog,
            ASK_METRIC: self._ask_metric,
        }
        if any(tool.name == RUN_SQL for tool in surface.tools.tools):
            self._handlers[RUN_SQL] = self._run_sql

    async def list_tools(
        self, ctx: ServerRequestContext[Starting], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        ctx.lifespan_context.begin()  # the handshake needs no data; the calls after it will
        return self._surface.tools

    async def call_tool(
        self, ctx: ServerRequestContext[Starting], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        handler = self._handlers.get(params.name)
        if handler is None:
            raise _invalid_params(UNKNOWN_TOOL)
        try:
            return await handler(ctx.lifespan_context, params.arguments)
        except MCPError:
            raise
        except Exception:
            log.exception("%s failed", params.name)
            return types.CallToolResult(
                content=[types.TextContent(text=FAILURE_SENTENCE)], is_error=True
            )

    async def _describe_catalog(
        self, starting: Starting, arguments: Arguments
    ) -> types.CallToolResult:
        if arguments:
            raise _invalid_params(NO_ARGUMENTS)
        await starting.service()  # nothing is told before the service has started
        return self._surface.catalog

    async def _ask_metric(self, starting: Starting, arguments: Arguments) -> types.CallToolResult:
        question = convert_question(arguments if arguments is not None else {})
        if not is_successful(question):
            raise _invalid_params(question.failure().sentence())
        service = await starting.service()
        outcome = await service.ask(question.unwrap())
        if isinstance(outcome, QuestionError):
            raise _invalid_params(outcome.sentence())
        return tool_result(halves_of(outcome))

    async def _run_sql(self, starting: Starting, arguments: Arguments) -> types.CallToolResult:
        statement = convert_statement(arguments if arguments is not None else {})
        if not is_successful(statement):
            failure = statement.failure()
            raise _invalid_params(f"malformed arguments: {failure.path}: {failure.problem}")
        service = await starting.service()
        outcome = await service.run_sql(statement.unwrap().statement)
        return tool_result(raw_halves(outcome))


def mcp_server(starter: Starter) -> Result[McpServer, list[str]]:
    """The server ``sutura mcp`` serves: settings and catalog loaded, the service not yet started.

    Every problem with the settings or the catalog is returned as operator sentences before
    anything is served; problems opening sources or reproducing anchors stop the run they
    happen in (see :mod:`sutura.transports.mcp.starting`).
    """
    loaded = starter.load()
    if not is_successful(loaded):
        return Failure(loaded.failure())
    surface = surface_of(loaded.unwrap())
    if not is_successful(surface):
        return Failure(surface.failure())
    tools = _Tools(surface.unwrap())
    errors: list[str] = []
    server: Server[Starting] = Server(
        "sutura",
        version=__version__,
        instructions=surface.unwrap().instructions,
        lifespan=lifespan_of(starter, loaded.unwrap(), errors),
        on_list_tools=tools.list_tools,
        on_call_tool=tools.call_tool,
    )
    return Success(McpServer(server=server, start_errors=errors))
