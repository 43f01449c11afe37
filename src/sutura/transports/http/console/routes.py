"""The console's two read helpers, behind the API's guards: no new capability, no new data.

- ``POST /console/agent/{tool}``: one route per tool an agent may be given (``compile_question``
  only when ``tools.compile_question.enabled``), derived from the vocabulary like the ``/v1``
  routes; the same one call (``Service.call``, audited),
  its reply shown as the agent receives it over MCP and over HTTP (:class:`~.wire.AgentView`).
  Its body is the tool's arguments, exactly as MCP and ``/v1`` take them.
- ``POST /console/compile``: a question's statement, parameters and plan without running it
  (the ``compile_question`` call, audited like any other, needing its scope
  ``sutura:metrics.compile``).
"""

from typing import Any, Final

import msgspec
from litestar import Request, Response, post
from litestar.handlers import HTTPRouteHandler
from litestar.middleware import DefineMiddleware

from sutura.core.tool.capability import Capability
from sutura.core.tool.reply import Malformed, Reply
from sutura.transports.http.console.wire import agent_view
from sutura.transports.http.limits import RequestDeadline
from sutura.transports.http.replies import JSON, NO_STORE, response_of
from sutura.transports.http.routes import Calls

AGENT_PREFIX: Final = "/console/agent"


def _view_response(reply: Reply) -> Response[bytes]:
    return Response(msgspec.json.encode(agent_view(reply)), media_type=JSON, headers=NO_STORE)


_NOT_JSON: Final = "not a JSON object"


def agent_route(capability: Capability, calls: Calls) -> HTTPRouteHandler:
    """The console route showing ``capability``'s reply as the agent receives it."""

    @post(
        f"{AGENT_PREFIX}/{capability.value}",
        guards=calls.guards,
        status_code=200,
        include_in_schema=False,
        name=f"console-{capability.value}",
        middleware=[DefineMiddleware(RequestDeadline, seconds=calls.timeout)],
    )
    async def agent(request: Request[Any, Any, Any]) -> Response[bytes]:
        body = await request.body()
        try:
            # An empty body is no arguments, as MCP's describe_catalog takes them.
            arguments = msgspec.json.decode(body) if body.strip() else None
        except msgspec.DecodeError:
            return _view_response(Malformed(capability=capability, field="$", problem=_NOT_JSON))
        with calls.admission.slot():
            return _view_response(await calls.call(capability, arguments, request))

    return agent


def compile_route(calls: Calls) -> HTTPRouteHandler:
    """``POST /console/compile``: ``compile_question``'s structured half (or its refusal, its
    malformation, or the missing scope), exactly as ``POST /v1/compile`` sends it."""

    @post(
        "/console/compile",
        guards=calls.guards,
        status_code=200,
        include_in_schema=False,
        name="console-compile",
    )
    async def compile_question(request: Request[Any, Any, Any]) -> Response[Any]:
        body = await request.body()
        return response_of(await calls.call(Capability.COMPILE_QUESTION, body, request))

    return compile_question


def console_routes(calls: Calls, tools: frozenset[Capability]) -> list[HTTPRouteHandler]:
    """Every console helper: one agent view per capability in ``tools``, in the vocabulary's
    order, and the compiler."""
    views = [agent_route(capability, calls) for capability in Capability if capability in tools]
    return [*views, compile_route(calls)]
