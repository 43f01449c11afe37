"""The MCP server of ``sutura mcp``: the low-level SDK ``Server``, composed from the settings.

Its tools are the capabilities this deployment lists to agents (:mod:`.tools`); a tool call
is one capability call (``Service.call``), and its reply is carried on the MCP channel
:func:`~sutura.core.tool.carriage.mcp_carriage` names: an answer or a refusal as a normal tool
result (``structured_content`` the structured half, ``content`` one text block holding the text
half, both built from one value); malformed arguments, or a tool not offered, as a JSON-RPC
invalid-params error naming the field, never the value sent; a capability the caller may not
use, or a failure, as a result with ``is_error`` and a fixed sentence (a failure's cause goes
to the log on stderr, never to the caller). Its ``initialize`` instructions are the caller's
agent prompt (:class:`~sutura.boundary.prompts.Prompts`).

With ``prompt.physical_schema: listed`` it also offers one resource, the physical schema
(:mod:`.resources`); it is not a capability, so no other surface has it.

The SDK's low-level server validates no arguments and turns a handler's exception into a
JSON-RPC error, so both are handled here.
"""

import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, assert_never

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura import __version__
from sutura.boundary.admission import SHED_SENTENCE, Shedding, ShedError
from sutura.boundary.generated_ids import generated_id
from sutura.boundary.loading import Loaded
from sutura.boundary.prompts import Prompts, agent_tools, shown_to
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Capability
from sutura.core.tool.carriage import (
    UNKNOWN_TOOL,
    ErrorResult,
    InvalidParams,
    ToolResult,
    mcp_carriage,
)
from sutura.core.tool.codec import Halves
from sutura.core.tool.reply import FAILURE_SENTENCE, Reply
from sutura.transports.mcp.encoded import stand_in
from sutura.transports.mcp.resources import physical_schema_resource
from sutura.transports.mcp.starting import lifespan_of
from sutura.transports.mcp.tools import tools_for

if TYPE_CHECKING:  # the service, and the compiler under it, load once the handshake is answered
    from sutura.boundary.service import Service

log = logging.getLogger("sutura.mcp")

NewCaller = Callable[[], Caller]
"""Who is calling: for stdio, the one local caller of the process, with a fresh request id."""


class ServiceHolder(Protocol):
    """Where a tool call finds the started service: begun on first use (stdio), or already
    open for the server's whole run (``/mcp`` on ``sutura serve``)."""

    def begin(self) -> None:
        """Let the start begin, if it has not (idempotent)."""
        ...

    async def service(self, capability: Capability) -> "Service":
        """The started service, ready for a call of ``capability``."""
        ...

    def served(self) -> None:
        """A call has been answered (a start may do what it left for after its first call)."""
        ...


@dataclass(frozen=True, slots=True)
class McpServer:
    """The composed server, and why its service did not start (filled during a run)."""

    server: Server[ServiceHolder]
    start_errors: list[str] = field(default_factory=list)
    longest_call: float = 30.0
    """The deadline of one call (``limits.deadline_seconds``): how long the end of input waits."""


def _invalid_params(sentence: str) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=sentence)


def tool_result(halves: Halves) -> types.CallToolResult:
    """A tool result carrying both halves of one value: the text, and the structured JSON (its
    bytes, spliced in by the transport where sutura's own transport writes the JSON)."""
    structured = stand_in(halves.structured)
    return types.CallToolResult(
        content=[types.TextContent(text=halves.text)],
        structured_content=halves.structured_object() if structured is None else structured,
    )


def _error_result(sentence: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=sentence)], is_error=True)


def result_of(reply: Reply) -> types.CallToolResult:
    """A reply as MCP carries it (raises the JSON-RPC error for a malformed call)."""
    carriage = mcp_carriage(reply)
    match carriage:
        case ToolResult(halves=halves):
            return tool_result(halves)
        case ErrorResult(sentence=sentence):
            return _error_result(sentence)
        case InvalidParams(message=message):
            raise _invalid_params(message)
        case _:
            assert_never(carriage)


def local_caller() -> Caller:
    """The caller of a stdio server: the user who started it, with a request id per call."""
    return Caller.local(request_id=generated_id(), surface="mcp")


Instructions = Callable[[Caller], str]
"""The ``initialize`` instructions a caller is given (the agent prompt, as far as it may act)."""


class Tools:
    """The tool list of one deployment, and the one handler of every call, on every transport.

    ``new_caller`` says who is calling (the local user on stdio; the authenticated caller of
    the HTTP request on ``/mcp``); the tools listed are those the caller holds the scopes for,
    and a call to another is refused (``is_error``, naming the scope).
    """

    def __init__(
        self,
        offered: frozenset[Capability],
        new_caller: NewCaller,
        admission: Shedding | None = None,
    ) -> None:
        self._offered = offered
        self._by_name = {capability.value: capability for capability in offered}
        self._new_caller = new_caller
        self._admission = admission
        self._listed: dict[frozenset[Capability], types.ListToolsResult] = {}
        self.holder: ServiceHolder | None = None
        """The service holder the SDK handed the last call it dispatched (None before one)."""

    def listed(self, caller: Caller) -> types.ListToolsResult:
        """The tools ``caller`` is shown (built once per set of scopes)."""
        shown = shown_to(self._offered, caller)
        if shown not in self._listed:
            self._listed[shown] = types.ListToolsResult(tools=list(tools_for(shown)))
        return self._listed[shown]

    def offered(self, name: str) -> Capability | None:
        """The capability offered under the tool name ``name``, if any."""
        return self._by_name.get(name)

    async def list_tools(
        self, ctx: ServerRequestContext[ServiceHolder], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        self.holder = ctx.lifespan_context
        ctx.lifespan_context.begin()  # the handshake needs no data; the calls after it will
        return self.listed(self._new_caller())

    async def call_tool(
        self, ctx: ServerRequestContext[ServiceHolder], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        self.holder = ctx.lifespan_context
        capability = self.offered(params.name)
        if capability is None:
            raise _invalid_params(UNKNOWN_TOOL)
        return await self.call(ctx.lifespan_context, capability, params.arguments)

    async def call(
        self, holder: ServiceHolder, capability: Capability, arguments: dict[str, Any] | None
    ) -> types.CallToolResult:
        """One call of an offered tool: its result (raises the JSON-RPC error for a malformed
        call). The SDK's handler runs it, and so does the stdio transport's own path for a
        well-formed call (:mod:`.fast_calls`)."""
        try:
            with self._admitted(capability):
                service = await holder.service(capability)
                try:
                    reply = await service.call(capability, arguments, self._new_caller())
                finally:
                    holder.served()
        except ShedError:
            return _error_result(SHED_SENTENCE)
        except Exception:
            log.exception("%s failed", capability.value)
            return _error_result(FAILURE_SENTENCE)
        return result_of(reply)

    def _admitted(self, capability: Capability) -> AbstractContextManager[None]:
        """A slot for a call that runs a query; the catalog and a compilation need none."""
        if self._admission is None or not _runs_a_query(capability):
            return nullcontext()
        return self._admission.slot()


def _runs_a_query(capability: Capability) -> bool:
    """Whether ``capability`` runs a statement on a source (and so takes an admission slot)."""
    match capability:
        case Capability.ASK_METRIC | Capability.RUN_SQL | Capability.LIST_VALUES:
            return True
        case Capability.DESCRIBE_CATALOG | Capability.COMPILE_QUESTION:
            return False
        case _:
            assert_never(capability)


class _CallerServer(Server[ServiceHolder]):
    """The SDK's server, whose ``initialize`` (and ``server/discover``) instructions are the
    current caller's: the SDK reads ``instructions`` when it answers either."""

    def __init__(
        self,
        *args: Any,
        instructions_for: Instructions,
        new_caller: NewCaller,
        tools: Tools,
        **kwargs: Any,
    ) -> None:
        self._instructions_for = instructions_for
        self.tools = tools
        """The tools whose calls the server's handler runs."""
        self._caller_of_request = new_caller
        super().__init__(*args, **kwargs)

    @property
    def instructions(self) -> str:
        """The instructions of whoever is calling now."""
        return self._instructions_for(self._caller_of_request())

    @instructions.setter
    def instructions(self, _value: str | None) -> None:
        """Set by the SDK's constructor; the caller's instructions replace it."""


def tool_server(
    context: Loaded,
    tools: Tools,
    new_caller: NewCaller,
    lifespan: Callable[[Any], AbstractAsyncContextManager[ServiceHolder]],
    instructions_for: Instructions,
) -> Server[ServiceHolder]:
    """The SDK server over ``tools``: one handler table, whatever transport serves it.

    ``instructions_for`` says what a caller is told at ``initialize``: its agent prompt, from
    the one builder (:class:`~sutura.boundary.prompts.Prompts`)."""
    resource = physical_schema_resource(context)
    return _CallerServer(
        "sutura",
        version=__version__,
        instructions_for=instructions_for,
        new_caller=new_caller,
        tools=tools,
        lifespan=lifespan,
        on_list_tools=tools.list_tools,
        on_call_tool=tools.call_tool,
        on_list_resources=None if resource is None else resource.list_resources,
        on_read_resource=None if resource is None else resource.read_resource,
    )


def mcp_server(
    loaded: Result[Loaded, list[str]],
    new_caller: NewCaller = local_caller,
    admission: Shedding | None = None,
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
    tools = Tools(agent_tools(settings), new_caller, admission)
    errors: list[str] = []
    # The handshake is answered before any service is opened: its prompts are built from the
    # loaded definitions, by the builder a service uses for /mcp.
    prompts = Prompts(context.pinned, settings, context.instructions)
    lifespan = lifespan_of(context, errors)
    server = tool_server(context, tools, new_caller, lifespan, prompts.for_caller)
    longest = settings.limits.deadline_seconds
    return Success(McpServer(server=server, start_errors=errors, longest_call=longest))


def tools_of(server: Server[Any]) -> Tools | None:
    """The tools of a server :func:`tool_server` composed (None for any other server)."""
    return server.tools if isinstance(server, _CallerServer) else None
