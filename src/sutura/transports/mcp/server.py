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
from contextlib import AbstractAsyncContextManager, AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol, assert_never

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura import __version__
from sutura.boundary.loading import Loaded
from sutura.core.prompt import render_prompt
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Capability, offered_by
from sutura.core.tool.codec import Halves
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
from sutura.transports.mcp.encoded import stand_in
from sutura.transports.mcp.resources import physical_schema_resource
from sutura.transports.mcp.starting import lifespan_of
from sutura.transports.mcp.tools import tools_for

if TYPE_CHECKING:  # the service, and the compiler under it, load once the handshake is answered
    from sutura.boundary.service import Service

UNKNOWN_TOOL: Final = "unknown tool: tools/list names the tools this server offers"

log = logging.getLogger("sutura.mcp")

NewCaller = Callable[[], Caller]
"""Who is calling: for stdio, the one local caller of the process, with a fresh request id."""


class ServiceHolder(Protocol):
    """Where a tool call finds the started service: begun on first use (stdio), or already
    open for the server's whole run (``/mcp`` on ``sutura serve``)."""

    def begin(self) -> None:
        """Let the start begin, if it has not (idempotent)."""
        ...

    async def service(self) -> "Service":
        """The started service."""
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


Instructions = Callable[[Caller], str]
"""The ``initialize`` instructions a caller is given (the agent prompt, as far as it may act)."""


def permitted(offered: frozenset[Capability], caller: Caller) -> frozenset[Capability]:
    """The offered capabilities ``caller`` holds the scopes for: the tools it is shown."""
    return frozenset(capability for capability in offered if caller.permits(capability))


class Shedding(Protocol):
    """Admission of a tool call that runs a query: a slot for the block, or ``Shed``."""

    def slot(self) -> AbstractContextManager[None]:
        """Hold one slot for the block; raises :class:`ShedError` when none is free."""
        ...


class ShedError(Exception):
    """No slot was free: the call is answered ``isError``, "ask again shortly"."""


SHED_SENTENCE: Final = "The server is at capacity: ask again shortly."


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
        self._new_caller = new_caller
        self._admission = admission
        self._listed: dict[frozenset[Capability], types.ListToolsResult] = {}

    def listed(self, caller: Caller) -> types.ListToolsResult:
        """The tools ``caller`` is shown (built once per set of scopes)."""
        shown = permitted(self._offered, caller)
        if shown not in self._listed:
            self._listed[shown] = types.ListToolsResult(tools=list(tools_for(shown)))
        return self._listed[shown]

    async def list_tools(
        self, ctx: ServerRequestContext[ServiceHolder], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        ctx.lifespan_context.begin()  # the handshake needs no data; the calls after it will
        return self.listed(self._new_caller())

    async def call_tool(
        self, ctx: ServerRequestContext[ServiceHolder], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        capability = next((c for c in self._offered if c.value == params.name), None)
        if capability is None:
            raise _invalid_params(UNKNOWN_TOOL)
        try:
            with self._admitted(capability):
                service = await ctx.lifespan_context.service()
                caller = self._new_caller()
                deadline = service.settings.limits.deadline_seconds
                reply = await service.call(capability, params.arguments, caller, deadline)
        except ShedError:
            return _error_result(SHED_SENTENCE)
        except Exception:
            log.exception("%s failed", params.name)
            return _error_result(FAILURE_SENTENCE)
        return result_of(reply)

    def _admitted(self, capability: Capability) -> AbstractContextManager[None]:
        """A slot for a call that runs a query; the catalog needs none."""
        if self._admission is None or capability is Capability.DESCRIBE_CATALOG:
            return nullcontext()
        return self._admission.slot()


class _CallerServer(Server[ServiceHolder]):
    """The SDK's server, whose ``initialize`` (and ``server/discover``) instructions are the
    current caller's: the SDK reads ``instructions`` when it answers either."""

    def __init__(
        self, *args: Any, instructions_for: Instructions, new_caller: NewCaller, **kwargs: Any
    ) -> None:
        self._instructions_for = instructions_for
        self._caller_of_request = new_caller
        super().__init__(*args, **kwargs)

    @property
    def instructions(self) -> str:
        """The instructions of whoever is calling now."""
        return self._instructions_for(self._caller_of_request())

    @instructions.setter
    def instructions(self, _value: str | None) -> None:
        """Set by the SDK's constructor; the caller's instructions replace it."""


def instructions_of(context: Loaded) -> Instructions:
    """The agent prompt as ``caller`` may act on it: a caller without the raw SQL tool's scope
    is not told about it (built once per set of scopes)."""
    settings = context.loaded.settings
    prompts: dict[bool, str] = {}

    def instructions(caller: Caller) -> str:
        run_sql = settings.tools.run_sql.enabled and caller.permits(Capability.RUN_SQL)
        if run_sql not in prompts:
            prompts[run_sql] = render_prompt(
                context.pinned,
                prose=settings.prompt.catalog_prose,
                limits=settings.limits,
                run_sql_enabled=run_sql,
                operator_instructions=context.instructions,
            )
        return prompts[run_sql]

    return instructions


def tool_server(
    context: Loaded,
    tools: Tools,
    new_caller: NewCaller,
    lifespan: Callable[[Any], AbstractAsyncContextManager[ServiceHolder]],
    instructions_for: Instructions | None = None,
) -> Server[ServiceHolder]:
    """The SDK server over ``tools``: one handler table, whatever transport serves it.

    ``instructions_for`` says what a caller is told at ``initialize`` (by default the
    deployment's prompt, without the raw SQL tool for a caller not holding its scope)."""
    resource = physical_schema_resource(context)
    return _CallerServer(
        "sutura",
        version=__version__,
        instructions_for=instructions_of(context) if instructions_for is None else instructions_for,
        new_caller=new_caller,
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
    tools = Tools(offered_by(settings.tools.run_sql.enabled), new_caller, admission)
    errors: list[str] = []
    server = tool_server(context, tools, new_caller, lifespan_of(context, errors))
    longest = settings.limits.deadline_seconds
    return Success(McpServer(server=server, start_errors=errors, longest_call=longest))
