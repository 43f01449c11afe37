"""The console's two read helpers, behind the API's guards: no new capability, no new data.

- ``POST /console/agent/{tool}``: one route per capability, derived from the vocabulary like
  the ``/v1`` routes; the same one call (``Service.call``, audited), its reply shown as the
  agent receives it over MCP and over HTTP (:class:`~.wire.AgentView`). Its body is the
  tool's arguments, exactly as MCP and ``/v1`` take them.
- ``POST /console/compile``: a question's statement, parameters and plan without running it,
  as ``sutura compile`` prints them; it needs the scope ``ask_metric`` needs.
"""

from typing import Any, Final, assert_never

import msgspec
from litestar import Request, Response, post
from litestar.handlers import HTTPRouteHandler
from litestar.middleware import DefineMiddleware
from returns.pipeline import is_successful

from sutura.core.nouns.answer import Refused
from sutura.core.nouns.question import QuestionError, decode_question_json
from sutura.core.tool.capability import Capability
from sutura.core.tool.codec import halves_of
from sutura.core.tool.reply import Declined, Malformed, NotPermitted, Reply
from sutura.transports.http.console.wire import agent_view, compiled_view
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


def _question_problem(problem: QuestionError | Refused) -> Response[Any]:
    match problem:
        case QuestionError():
            malformed = Malformed(
                capability=Capability.ASK_METRIC, field=problem.field, problem=problem.problem
            )
            return response_of(malformed)
        case Refused():
            declined = Declined(
                capability=Capability.ASK_METRIC, halves=halves_of(problem), value=problem
            )
            return response_of(declined)
        case _:
            assert_never(problem)


def compile_route(calls: Calls) -> HTTPRouteHandler:
    """``POST /console/compile``: the question's statement, without running it."""

    @post(
        "/console/compile",
        guards=calls.guards,
        status_code=200,
        include_in_schema=False,
        name="console-compile",
    )
    async def compile_question(request: Request[Any, Any, Any]) -> Response[Any]:
        caller = calls.caller(request)
        if not caller.permits(Capability.ASK_METRIC):
            return response_of(NotPermitted(capability=Capability.ASK_METRIC))
        question = decode_question_json(await request.body())
        if not is_successful(question):
            return _question_problem(question.failure())
        planned = calls.service.plan(question.unwrap(), caller)
        if not is_successful(planned):
            failed = planned.failure()
            if isinstance(failed, QuestionError):
                return _question_problem(failed)
            return _question_problem(Refused(reason=failed))
        body = msgspec.json.encode(compiled_view(planned.unwrap()[1]))
        return Response(body, media_type=JSON, headers=NO_STORE)

    return compile_question


def console_routes(calls: Calls) -> list[HTTPRouteHandler]:
    """Every console helper: one agent view per capability, and the compiler."""
    return [*(agent_route(capability, calls) for capability in Capability), compile_route(calls)]
