"""The route handlers: decode → service → encode, nothing more.

Each handler is built by a function that receives what it needs (the service, the operator's
prose setting, the admission counter, the guards), so no handler reads a setting on its own and
none can fall back to a default. Bodies are encoded by the core's codec: a value strict UTF-8
JSON cannot carry becomes the refusal ``value_not_representable``, never a replacement character
or a 500.
"""

from collections.abc import Sequence
from typing import Any, Final

import anyio
import msgspec
from litestar import Request, Response, get, post
from litestar.handlers import HTTPRouteHandler
from litestar.middleware import DefineMiddleware
from litestar.params import JSONBody
from returns.result import Success

from sutura.boundary.answering import Service
from sutura.core.catalog.prose import CatalogProse
from sutura.core.catalog.view import CatalogBody, CatalogView
from sutura.core.codec import catalog_halves, encode
from sutura.core.outcome.answer import Answer, Outcome, Refused
from sutura.core.outcome.refusal import Refusal, RefusalCode, refusal
from sutura.core.question.model import Question, QuestionError
from sutura.transports.http import openapi as doc
from sutura.transports.http.auth import Guard
from sutura.transports.http.body import QuestionBody
from sutura.transports.http.errors import (
    JSON,
    NO_STORE,
    MalformedQuestionError,
)
from sutura.transports.http.limits import Admission, RequestDeadline, seconds_left
from sutura.transports.http.wire import Health

_HEALTH: Final = Health()
_DEADLINE_EXCEEDED: Final = refusal(RefusalCode.DEADLINE_EXCEEDED)


@get("/health", sync_to_thread=False, summary="Liveness")
def health() -> Health:
    """The process is up and serving. Needs no token."""
    return _HEALTH


@get("/openapi.json", sync_to_thread=False, include_in_schema=False, media_type=JSON)
def openapi_document(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The OpenAPI document, generated from these handlers (built on first use, then kept)."""
    return Response(msgspec.json.encode(request.app.openapi_schema.to_schema()), media_type=JSON)


def _encoded(outcome: Outcome) -> Response[Any]:
    """An answer (200) or a refusal (its own status), encoded by the core's codec."""
    data = encode(outcome)
    if isinstance(data, Success):
        status = 200 if isinstance(outcome, Answer) else outcome.reason.status
        return Response(data.unwrap(), status_code=status, media_type=JSON, headers=NO_STORE)
    return _refused(data.failure())


def _refused(reason: Refusal) -> Response[Any]:
    body = msgspec.json.encode(Refused(reason=reason))
    return Response(body, status_code=reason.status, media_type=JSON, headers=NO_STORE)


def catalog_route(
    service: Service, prose: CatalogProse, guards: Sequence[Guard]
) -> HTTPRouteHandler:
    """``GET /v1/catalog`` under the operator's prose setting, encoded once."""
    halves = catalog_halves(CatalogView.of(service.pinned, prose))
    if isinstance(halves, Success):
        body, status = halves.unwrap().structured, 200
    else:
        body, status = msgspec.json.encode(Refused(reason=halves.failure())), 422

    @get(
        "/v1/catalog",
        guards=list(guards),
        security=doc.SECURED,
        sync_to_thread=False,
        summary="The catalog",
        responses={
            401: doc.failure("No valid bearer token."),
            422: doc.refusal("The catalog holds a value strict UTF-8 JSON cannot carry."),
            500: doc.failure("Something broke; the cause is in the operator's log."),
        },
        operation_class=doc.SuturaOperation,
    )
    def catalog() -> Response[CatalogBody]:
        """The certified metrics an agent may ask for: grains, dimensions, allowed values and
        (unless the operator omits it, as `catalog_prose` says) the authors' descriptions.
        Descriptions are untrusted content. Sent with `Cache-Control: private, no-store`."""
        return Response(body, status_code=status, media_type=JSON, headers=NO_STORE)

    return catalog


async def _ask(service: Service, question: Question, seconds: float) -> Outcome | QuestionError:
    """The service's outcome, or the deadline refusal once ``seconds`` have passed."""
    with anyio.move_on_after(seconds):
        return await service.ask(question)
    return Refused(reason=_DEADLINE_EXCEEDED)


_QUERY_RESPONSES: Final = {
    400: doc.failure("not_a_question: the body is not a question (the field is named)."),
    401: doc.failure("No valid bearer token."),
    403: doc.refusal("A dimension, filter or value the metric does not permit."),
    404: doc.refusal("metric_unknown."),
    408: doc.failure("timeout: the body did not arrive before the request deadline."),
    413: doc.refusal_or_failure("result_too_large (a refusal), or too_large (the body)."),
    422: doc.refusal("A bound, a deadline or an unrepresentable value."),
    500: doc.failure("Something broke; the cause is in the operator's log."),
    503: doc.refusal_or_failure("source_unavailable, unavailable, or at_capacity."),
}


def query_route(
    service: Service, admission: Admission, timeout: float, guards: Sequence[Guard]
) -> HTTPRouteHandler:
    """``POST /v1/query``: admission, the request deadline, then the service."""

    @post(
        "/v1/query",
        guards=list(guards),
        security=doc.SECURED,
        dto=QuestionBody,
        return_dto=None,
        status_code=200,
        middleware=[DefineMiddleware(RequestDeadline, seconds=timeout)],
        summary="Ask a certified question",
        responses=_QUERY_RESPONSES,
        operation_class=doc.SuturaOperation,
    )
    async def query(data: JSONBody[Question], request: Request[Any, Any, Any]) -> Response[Answer]:
        """Answer a question about certified metrics with provenance, or refuse it with a
        typed reason at the reason's status. Cells are text; null is SQL NULL."""
        with admission.slot():
            outcome = await _ask(service, data, seconds_left(request.scope, timeout))
        if isinstance(outcome, QuestionError):
            raise MalformedQuestionError(outcome)
        return _encoded(outcome)

    return query
