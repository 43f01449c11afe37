"""MCP over streamable HTTP: the same tools as stdio, served at ``/mcp`` by ``sutura serve``.

Stateless: every POST carries its own JSON-RPC message and gets its own JSON reply; a session
id is neither issued nor read, so nothing a client sends can attach it to another's state. The
server is the one :func:`~sutura.transports.mcp.server.tool_server` stdio uses, over the one
:class:`~sutura.transports.mcp.server.Tools` table, with two differences only: the service is
the one ``sutura serve`` already opened, and the caller is the HTTP request's authenticated
caller (set by :meth:`RemoteMcp.serve` for the request it serves), so ``tools/list``, the
``initialize`` instructions and the refusal of a ``tools/call`` follow its scopes. A tool
result's structured half is written as the bytes msgspec encoded, spliced into the SDK's own
JSON body (:mod:`.encoded`).
"""

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any, Final

import mcp_types as types
from mcp.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import Receive, Scope, Send

from sutura.boundary.admission import Shedding
from sutura.boundary.loading import Loaded
from sutura.boundary.prompts import agent_tools
from sutura.boundary.service import Service
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Capability
from sutura.transports.mcp.encoded import kept_for_request, spliced_send
from sutura.transports.mcp.fast_http import fast_http_for
from sutura.transports.mcp.server import ServiceHolder, Tools, tool_server

_CALLER: Final[ContextVar[Caller]] = ContextVar("sutura.mcp.caller")


def _request_caller() -> Caller:
    """The caller of the HTTP request being served (the SDK handles it in a task started from
    the request's own, so the request's context is the handler's)."""
    return _CALLER.get()


class _Opened:
    """The service ``sutura serve`` opened, held for the server's whole run."""

    def __init__(self, service: Service) -> None:
        self._service = service

    def begin(self) -> None:
        """Nothing to begin: the service is open."""

    async def service(self, capability: Capability) -> Service:
        """The open service (ready for every capability: it started whole)."""
        return self._service

    def served(self) -> None:
        """Nothing waits for a first call: the service started whole."""


class RemoteMcp:
    """The ``/mcp`` endpoint: the tool server under the SDK's stateless streamable HTTP."""

    def __init__(
        self, server: Server[ServiceHolder], max_body_bytes: int, holder: ServiceHolder
    ) -> None:
        # The path answers as the SDK does in the mode set below: JSON responses, stateless.
        self._fast = fast_http_for(server, holder, max_body_bytes)
        self._running = False
        self._manager = StreamableHTTPSessionManager(
            server,
            json_response=True,
            stateless=True,
            # Host and Origin are checked before the SDK sees the request (403 host_not_allowed).
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=max_body_bytes,
        )

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serve requests for the block (the SDK's task group lives that long)."""
        async with self._manager.run():
            self._running = True
            try:
                yield
            finally:
                self._running = False

    async def serve(
        self,
        caller: Caller,
        scope: Scope,
        receive: Receive,
        send: Send,
        message: types.JSONRPCMessage,
    ) -> None:
        """Answer one HTTP request on behalf of ``caller`` (``message``: the one its body,
        which ``receive`` hands over first, holds, as the SDK reads it): a plain call of a tool
        on sutura's own path (:mod:`.fast_http`), every other request by the SDK's
        transport."""
        token = _CALLER.set(caller)
        try:
            with kept_for_request() as kept:
                spliced = spliced_send(scope, send, kept)
                fast = self._fast
                if (
                    fast is not None
                    and self._running
                    and await fast.answered(scope, message, spliced, receive)
                ):
                    return
                await self._manager.handle_request(scope, receive, spliced)
        finally:
            _CALLER.reset(token)


ServeMcp = Callable[[Caller, Scope, Receive, Send], Awaitable[None]]


def remote_mcp(context: Loaded, service: Service, admission: Shedding | None) -> RemoteMcp:
    """The ``/mcp`` endpoint over the started ``service``."""
    settings = context.loaded.settings
    tools = Tools(agent_tools(settings), _request_caller, admission)

    @asynccontextmanager
    async def lifespan(_server: Any) -> AsyncIterator[ServiceHolder]:
        yield _Opened(service)

    # Each caller is told about the catalog it sees (its audiences) and the tools its scopes
    # permit, by the service's prompts (one builder with stdio's).
    server = tool_server(context, tools, _request_caller, lifespan, service.prompt_for)
    return RemoteMcp(server, settings.server.max_body_bytes, _Opened(service))
