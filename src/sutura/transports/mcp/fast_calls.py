"""A well-formed call of one of sutura's tools over stdio, answered without the SDK's machinery.

The SDK hands every request through two tasks and three memory streams, a task group with
cancel scopes, a per-request session and context, a middleware chain, and validates it twice
more after reading it: about 8,000 bytecodes of Python per call, more than sutura's own
handler. A ``tools/call`` is served here instead when, and only when, every step the SDK would
take is known to give the very answer computed here:

* the line is a JSON-RPC request the SDK's own validator reads (the message is the one it
  would see: :func:`.unreadable.read_line`), ``tools/call`` of a tool this server offers, its
  params no more than ``name``, ``arguments`` (an object) and a ``_meta`` holding at most a
  ``progressToken`` (the tools never report progress) and, in the modern era, the request's
  envelope (protocol version, client capabilities, client info);
* the era is known, as the SDK's loop decides it from the first request: in the handshake
  era, ``initialize`` was answered by the SDK with the protocol version it then speaks; in the
  modern era (2026-07-28: the first request carried its envelope and was not ``initialize``),
  the call's envelope passes the SDK's own classification ladder, which gives its version,
  and its params the SDK's surface for that version;
  either way no ``initialize`` read since is unanswered;
* no request with the same id (as the SDK correlates ids) is in flight, the in-flight cap has
  room (else the request goes the SDK's way and is shed there), and the SDK has dispatched a
  call to the tools already (whose service holder the call needs);
* the SDK's middleware is its OpenTelemetry span alone, and no tracer provider is set (so that
  span records nothing), and no cache hint is set for ``tools/call``.

The answer is then the SDK's to the byte: the tool result is dumped, shaped by the protocol
version's result schema (in the modern era, marked ``resultType: complete`` where the shape
leaves it out and stamped with the server's info, as the SDK's runner does) and wrapped in a
JSON-RPC response by the SDK's own functions and models, with the structured half spliced in
as on the SDK's path (:mod:`.encoded`); an error is the one the SDK maps for that era.
``notifications/cancelled`` naming a call running here cancels it, and it is never answered
(as the SDK does); every other message, and every line not taken here, goes to the SDK
unchanged. The contract tests hold the two paths' answers equal, the hostile and odd requests
included, in both eras.
"""

import logging
from typing import Any, Final

import anyio
import anyio.abc
import mcp_types as types
from mcp.server import Server
from mcp.server._otel import OpenTelemetryMiddleware
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import InboundLadderRejection, classify_inbound_request
from mcp.shared.jsonrpc_dispatcher import (
    cancelled_request_id_from_params,
    handler_exception_to_error_data,
)
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    PROTOCOL_VERSION_META_KEY,
    SERVER_INFO_META_KEY,
    methods,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from opentelemetry import trace
from pydantic import ValidationError

from sutura.core.tool.capability import Capability
from sutura.transports.mcp.encoded import spliced_json
from sutura.transports.mcp.in_flight import InFlight
from sutura.transports.mcp.server import ServiceHolder, Tools, tools_of
from sutura.transports.mcp.wire_out import WireOut

log = logging.getLogger("sutura.mcp")

ENABLED: Final = True
"""Whether the path is taken at all (the tests compare it with the SDK's by turning it off)."""

_CALL: Final = "tools/call"
_PARAMS: Final = frozenset({"name", "arguments", "_meta"})
_META: Final = frozenset({"progressToken"})
_ENVELOPE: Final = frozenset(
    {PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY}
)
_SPAN_ONLY: Final = (OpenTelemetryMiddleware,)


class _Call:
    """One call running here: its id, and its scope while the tool runs."""

    __slots__ = ("cancelled", "request_id", "scope")

    def __init__(self, request_id: types.RequestId) -> None:
        self.request_id = request_id
        self.scope: anyio.CancelScope | None = None
        self.cancelled = False


class FastCalls:
    """The calls taken off the SDK's path, and what the SDK's path has said so far."""

    def __init__(
        self, tools: Tools, wire: WireOut, flight: InFlight, server_info: dict[str, Any]
    ) -> None:
        self._tools = tools
        self._wire = wire
        self._flight = flight
        self._server_info = server_info
        """The server's info as the SDK stamps it on a modern-era result (written, never
        changed)."""
        self._modern: bool | None = None
        """Whether the connection is in the modern era, as the SDK's loop decided it from the
        first request (None: no request yet)."""
        self._version: str | None = None
        """The protocol version the SDK's last ``initialize`` answer agreed (None: not now)."""
        self._initializing: set[types.RequestId] = set()
        self._calls: dict[types.RequestId, _Call] = {}
        self._group: anyio.abc.TaskGroup | None = None

    def serving(self, group: anyio.abc.TaskGroup) -> None:
        """Run the calls taken in ``group`` (cancelled once the SDK's server has stopped)."""
        self._group = group

    def took(self, message: types.JSONRPCMessage) -> bool:
        """Whether ``message`` (as the SDK read it) is a call taken here, and started; when not,
        what it means for the calls here is noted, and it goes to the SDK."""
        if isinstance(message, types.JSONRPCRequest):
            if self._modern is None:  # the first request decides, and goes to the SDK
                self._modern = opens_modern(message)
            elif message.method == _CALL and self._start(message):
                return True
            self._routed_to_sdk(message)
        elif (
            isinstance(message, types.JSONRPCNotification)
            and message.method == "notifications/cancelled"
        ):
            self._cancel(message.params)
        return False

    def answered_by_sdk(self, message: types.JSONRPCMessage) -> None:
        """The SDK wrote ``message``: an answer to an ``initialize`` sets the version spoken."""
        if not self._initializing or not isinstance(
            message, types.JSONRPCResponse | types.JSONRPCError
        ):
            return
        request_id = message.id
        if request_id not in self._initializing:
            return
        self._initializing.discard(request_id)
        if self._initializing or not isinstance(message, types.JSONRPCResponse):
            return
        version = message.result.get("protocolVersion")
        if isinstance(version, str) and version not in MODERN_PROTOCOL_VERSIONS:
            self._version = version

    def _routed_to_sdk(self, request: types.JSONRPCRequest) -> None:
        if request.method == "initialize":
            self._version = None  # until the SDK answers it: it may agree another version
            self._initializing.add(request.id)
        # The SDK's dispatcher correlates a cancellation with the latest request of an id.
        self._calls.pop(coerce_request_id(request.id), None)

    def _cancel(self, params: dict[str, Any] | None) -> None:
        request_id = cancelled_request_id_from_params(params)
        if request_id is None:
            return
        call = self._calls.get(coerce_request_id(request_id))
        if call is not None:
            call.cancelled = True
            if call.scope is not None:
                call.scope.cancel()

    def _start(self, request: types.JSONRPCRequest) -> bool:
        holder = self._tools.holder
        group = self._group
        if holder is None or group is None or not ENABLED or self._initializing:
            return False
        modern = bool(self._modern)
        capability = plain_call(self._tools, request.params, envelope=modern)
        if capability is None or not span_records_nothing():
            return False
        # The SDK's ladder and surface validation, only for a call the cheap checks took.
        version = modern_version(request.params) if modern else self._version
        if version is None:
            return False
        key = coerce_request_id(request.id)
        if key in self._calls or self._flight.owes(key, coerce_request_id):
            return False
        if not self._flight.take(request.id):
            return False  # the SDK's path sheds it
        call = _Call(request.id)
        self._calls[key] = call
        params = request.params or {}
        group.start_soon(self._run, call, key, holder, capability, params.get("arguments"), version)
        return True

    async def _run(
        self,
        call: _Call,
        key: types.RequestId,
        holder: ServiceHolder,
        capability: Capability,
        arguments: dict[str, Any] | None,
        version: str,
    ) -> None:
        text: str | None = None
        with anyio.CancelScope() as scope:
            call.scope = scope
            if call.cancelled:
                scope.cancel()
            try:
                text = await answer_text(
                    self._tools,
                    holder,
                    capability,
                    arguments,
                    call.request_id,
                    version,
                    self._server_info,
                )
            finally:
                if self._calls.get(key) is call:
                    del self._calls[key]
        try:
            # A cancelled call is never answered, as on the SDK's path.
            if not call.cancelled and text is not None:
                await self._wire.write(text + "\n")
        finally:
            # Answered or settled unanswered, its place is freed (:mod:`.in_flight`).
            self._flight.answered(call.request_id)


def fast_calls_for(server: Server[Any], wire: WireOut | None, flight: InFlight) -> FastCalls | None:
    """The path for ``server``'s tool calls, where its answers are the SDK's (None where not:
    another server, stdout left to the SDK, middleware of its own, a cache hint)."""
    tools = answerable_tools(server)
    if tools is None or wire is None:
        return None
    return FastCalls(tools, wire, flight, server.server_info_stamp)


def answerable_tools(server: Server[Any]) -> Tools | None:
    """The tools of ``server`` when a call of them is answered here as the SDK would (None for
    another server, middleware of its own, a cache hint for ``tools/call``)."""
    tools = tools_of(server)
    if tools is None or _CALL in server.cache_hints:
        return None
    if len(server.middleware) != 1 or type(server.middleware[0]) not in _SPAN_ONLY:
        return None
    return tools


def plain_call(
    tools: Tools, params: dict[str, Any] | None, *, envelope: bool = False
) -> Capability | None:
    """The tool a well-formed call names (None for any other params): no more than ``name``,
    ``arguments`` (an object) and a ``_meta`` holding at most a ``progressToken`` (and, with
    ``envelope``, the modern era's envelope keys)."""
    if params is None or not params.keys() <= _PARAMS:
        return None
    name = params.get("name")
    arguments = params.get("arguments", {})
    meta = params.get("_meta")
    if not isinstance(name, str) or type(arguments) is not dict:
        return None
    if "_meta" in params and not _plain_meta(meta, _META | _ENVELOPE if envelope else _META):
        return None
    return tools.offered(name)


def opens_modern(request: types.JSONRPCRequest) -> bool:
    """Whether ``request``, a connection's first, opens it in the modern era, as the SDK's
    loop decides: anything but ``initialize`` whose ``_meta`` names a protocol version."""
    meta = (request.params or {}).get("_meta")
    return (
        request.method != "initialize"
        and isinstance(meta, dict)
        and PROTOCOL_VERSION_META_KEY in meta
    )


def modern_version(params: dict[str, Any] | None) -> str | None:
    """The protocol version of a modern-era call whose envelope passes the SDK's own
    classification ladder, and whose params its surface for that version validates (client
    info and capabilities of the shapes it names); None for any other: the SDK answers it."""
    route = classify_inbound_request({"method": _CALL, "params": params})
    if isinstance(route, InboundLadderRejection):
        return None
    try:
        methods.validate_client_request(_CALL, route.protocol_version, params)
    except (ValidationError, ValueError, KeyError):
        return None
    return route.protocol_version


async def answer_text(
    tools: Tools,
    holder: ServiceHolder,
    capability: Capability,
    arguments: dict[str, Any] | None,
    request_id: types.RequestId,
    version: str,
    server_info: dict[str, Any] | None = None,
) -> str:
    """The SDK's JSON-RPC answer to a call of ``capability``, run now: its result shaped for
    ``version`` (a modern one stamped with ``server_info``, which it needs), or the error the
    SDK maps a failure to in that version's era."""
    try:
        result = await tools.call(holder, capability, arguments)
        return _response_text(request_id, result, version, server_info)
    except Exception as failure:  # as the SDK's dispatcher maps a handler's failure
        return _error_text(request_id, failure, modern=version in MODERN_PROTOCOL_VERSIONS)


def _plain_meta(meta: object, allowed: frozenset[str]) -> bool:
    if not isinstance(meta, dict) or not meta.keys() <= allowed:
        return False
    token = meta.get("progressToken")
    return "progressToken" not in meta or (
        isinstance(token, str | int) and not isinstance(token, bool)
    )


def span_records_nothing() -> bool:
    """Whether the SDK's OpenTelemetry span would record nothing: no provider is set."""
    return isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def _response_text(
    request_id: types.RequestId,
    result: types.CallToolResult,
    version: str,
    server_info: dict[str, Any] | None,
) -> str:
    """The SDK's JSON for ``result`` at ``version``, as its runner shapes it (a modern
    version's ``resultType`` where the shape leaves it out, and the server's info stamped in
    ``_meta``) and its stdio transport writes it (the structured half spliced in, as on its
    path)."""
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    try:
        shaped = methods.serialize_server_result(_CALL, version, dumped)
    except ValidationError:
        log.exception("handler for %r returned an invalid result", _CALL)
        raise MCPError(
            code=types.INTERNAL_ERROR, message="Handler returned an invalid result"
        ) from None
    if version in MODERN_PROTOCOL_VERSIONS:
        if server_info is None:
            raise RuntimeError("a modern-era result is stamped with the server's info")
        if shaped.get("resultType") is None:
            shaped["resultType"] = "complete"
        meta = shaped.get("_meta")
        if meta is None:
            shaped["_meta"] = {SERVER_INFO_META_KEY: server_info}
        elif isinstance(meta, dict) and meta.get(SERVER_INFO_META_KEY) is None:
            shaped["_meta"] = {**meta, SERVER_INFO_META_KEY: server_info}
    response = types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result=shaped)
    return spliced_json(response)


def _error_text(request_id: types.RequestId, failure: Exception, *, modern: bool) -> str:
    error = handler_exception_to_error_data(failure)
    if error is None and modern:  # as the SDK's modern entries map what nothing else does
        log.exception("modern request handler raised", exc_info=failure)
        error = types.ErrorData(code=types.INTERNAL_ERROR, message="Internal server error")
    elif error is None:
        log.error("handler for %r raised", _CALL, exc_info=failure)
        error = types.ErrorData(code=0, message=str(failure))
    message = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
    return message.model_dump_json(by_alias=True, exclude_unset=True)
