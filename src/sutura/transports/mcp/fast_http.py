"""A well-formed call of one of sutura's tools on ``/mcp``, answered without the SDK's machinery.

For each POST the SDK's stateless transport builds a transport and a server task, four memory
streams, a dispatcher with its task group and about a dozen cancel scopes, a session and a
context: about 15,000 bytecodes of Python per request (measured inside ``sutura serve``), more
than the rest of the HTTP stack. The request is answered here instead when, and only when,
every step the SDK would take is known to give the very response written here. By then the
route has refused every method but ``POST``, checked ``Origin``, authenticated the caller (its
scopes and audiences are the SDK path's too: the tool runs for the caller the route set), checked
that the client accepts JSON, read the whole body within ``server.max_body_bytes`` (the limit
the SDK is given) and checked it is one JSON-RPC message by the SDK's validator. Then:

* the SDK's manager is running, the server is the one :func:`~.server.tool_server` composed, with
  the SDK's OpenTelemetry span as its only middleware, no tracer provider set (so that span
  records nothing), no cache hint for ``tools/call``, and the SDK's loggers on the path not at
  ``DEBUG`` (so they would have written nothing);
* the request carries one ``MCP-Protocol-Version``, of the handshake era (so the SDK serves it
  on its stateless handshake path, with that version), one ``Content-Type`` of exactly
  ``application/json`` (the SDK's own two checks pass), and no ``Content-Length`` that is not
  digits within the limit (the SDK's body limit passes);
* the body's message, read by the route as the SDK reads it, is a ``tools/call`` request of
  a tool this server offers, its params no more than ``name``, ``arguments`` (an object) and a
  ``_meta`` holding at most a ``progressToken`` (:func:`.fast_calls.plain_call`).

The answer is then the SDK's to the byte: the result is shaped and wrapped by
:func:`.fast_calls.answer_text` (the SDK's own functions and models, as the stdio path does) and
sent as the SDK's transport sends it, a starlette ``Response`` built with the SDK's arguments,
through the same splice of the structured half (:mod:`.encoded`). Every other request goes to the
SDK unchanged, its body replayed. ``tests/transports/mcp/test_fast_http.py`` holds the two
paths' responses equal: status, every header in order, and the body.
"""

import logging
from http import HTTPStatus
from typing import Any, Final

import mcp_types as types
from mcp.server import Server
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from sutura.transports.mcp.fast_calls import (
    answer_text,
    answerable_tools,
    plain_call,
    span_records_nothing,
)
from sutura.transports.mcp.server import ServiceHolder, Tools

ENABLED: Final = True
"""Whether the path is taken at all (the tests compare it with the SDK's by turning it off)."""

_VERSION: Final = MCP_PROTOCOL_VERSION_HEADER.lower().encode("ascii")
_HANDSHAKE: Final = frozenset(HANDSHAKE_PROTOCOL_VERSIONS)
_JSON: Final = "application/json"
_SDK_LOGGERS: Final = tuple(
    logging.getLogger(name)
    for name in (
        "mcp.server.streamable_http_manager",
        "mcp.server.streamable_http",
        "mcp.server.runner",
        "mcp.shared.jsonrpc_dispatcher",
    )
)


class FastHttp:
    """The calls on ``/mcp`` taken off the SDK's path."""

    def __init__(self, tools: Tools, holder: ServiceHolder, max_body_bytes: int) -> None:
        self._tools = tools
        self._holder = holder
        self._limit = max_body_bytes

    async def answered(
        self, scope: Scope, message: types.JSONRPCMessage, send: Send, receive: Receive
    ) -> bool:
        """Whether the request (``message``: what its body holds, as the SDK reads it) was a
        call taken here, and answered; when not, nothing was read or sent, and it goes to the
        SDK."""
        taken = self._taken(scope, message)
        if taken is None:
            return False
        request, capability, version = taken
        arguments = (request.params or {}).get("arguments")
        text = await answer_text(
            self._tools, self._holder, capability, arguments, request.id, version
        )
        # As the SDK's transport answers in JSON-response mode (_create_json_response).
        response = Response(text, status_code=HTTPStatus.OK, headers={"Content-Type": _JSON})
        await response(scope, receive, send)
        return True

    def _taken(
        self, scope: Scope, message: types.JSONRPCMessage
    ) -> tuple[types.JSONRPCRequest, Any, str] | None:
        if not ENABLED or not span_records_nothing():
            return None
        if any(logger.isEnabledFor(logging.DEBUG) for logger in _SDK_LOGGERS):
            return None
        version = self._plain_headers(scope)
        if version is None:
            return None
        if not isinstance(message, types.JSONRPCRequest) or message.method != "tools/call":
            return None
        capability = plain_call(self._tools, message.params)
        if capability is None:
            return None
        return message, capability, version

    def _plain_headers(self, scope: Scope) -> str | None:
        """The handshake-era version a request with the plain headers names (None otherwise)."""
        versions: list[bytes] = []
        types_: list[bytes] = []
        for name, value in scope["headers"]:
            if name == _VERSION:
                versions.append(value)
            elif name == b"content-type":
                types_.append(value)
            elif name == b"content-length" and not _within(value, self._limit):
                return None
        if len(versions) != 1 or types_ != [b"application/json"]:
            return None
        version = versions[0].decode("latin-1")
        return version if version in _HANDSHAKE else None


def _within(length: bytes, limit: int) -> bool:
    return length.isdigit() and int(length) <= limit


def fast_http_for(
    server: Server[Any], holder: ServiceHolder, max_body_bytes: int
) -> FastHttp | None:
    """The path for ``server``'s tool calls on ``/mcp``, where its answers are the SDK's (None
    where not: another server, middleware of its own, a cache hint)."""
    tools = answerable_tools(server)
    return None if tools is None else FastHttp(tools, holder, max_body_bytes)
