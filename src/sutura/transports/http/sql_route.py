"""``POST /v1/sql/run``: the raw SQL tool's route, refused until the tool is enabled.

One handler and one OpenAPI description whether the tool is on or off. Off (no raw runner was
started, because ``tools.run_sql.enabled`` is false), a guard answers ``403 tool_not_enabled``
after the token check and before the body is read. On, the body ``{"statement": "..."}`` is
decoded by the core's codec, admitted like a question, and run under the request's deadline (or
``limits.deadline_seconds``, if sooner). Raw rows are ``200``; a raw refusal is sent at its own
status (``raw_status``): ``403 not_read_only``, ``413 too_many_rows``, ``503
source_unavailable``, ``422`` for the rest. No answer's provenance appears in either body.
"""

from collections.abc import Sequence
from typing import Any, Final

import msgspec
from litestar import Request, Response, post
from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler, HTTPRouteHandler
from litestar.middleware import DefineMiddleware
from litestar.params import JSONBody
from returns.result import Success

from sutura.boundary.answering import Service
from sutura.core.codec import encode
from sutura.core.raw.outcome import (
    RawOutcome,
    RawRefusalCode,
    RawRows,
    raw_refusal,
    raw_status,
)
from sutura.core.raw.request import RawStatement
from sutura.transports.http import openapi as doc
from sutura.transports.http.auth import Guard
from sutura.transports.http.errors import JSON, NO_STORE, HttpFailureError
from sutura.transports.http.limits import Admission, RequestDeadline, seconds_left
from sutura.transports.http.statement_body import EMPTY_BODY, StatementBody
from sutura.transports.http.wire import FailureCode, not_a_statement

_RESPONSES: Final = {
    400: doc.failure("not_a_statement: the body is not {statement} (the field is named)."),
    401: doc.failure("No valid bearer token."),
    403: doc.raw_refusal_or_failure("not_read_only (a raw refusal), or tool_not_enabled."),
    408: doc.failure("timeout: the body did not arrive before the request deadline."),
    413: doc.raw_refusal_or_failure("too_many_rows (a raw refusal), or too_large (the body)."),
    422: doc.raw_refusal(
        "statement_failed (with the database's own words, untrusted), not_one_statement, "
        "deadline_exceeded, resources_exhausted, value_not_supported, value_not_representable."
    ),
    500: doc.failure("Something broke; the cause is in the operator's log."),
    503: doc.raw_refusal_or_failure("source_unavailable, unavailable, or at_capacity."),
}


async def _tool_not_enabled(
    _connection: ASGIConnection[Any, Any, Any, Any], _handler: BaseRouteHandler
) -> None:
    raise HttpFailureError.of(FailureCode.TOOL_NOT_ENABLED)


def _encoded(outcome: RawOutcome) -> Response[Any]:
    """Raw rows (200) or a raw refusal (its own status), encoded by the core's codec."""
    data = encode(outcome)
    if not isinstance(data, Success):
        outcome = raw_refusal(RawRefusalCode.VALUE_NOT_REPRESENTABLE)
    body = data.unwrap() if isinstance(data, Success) else msgspec.json.encode(outcome)
    status = 200 if isinstance(outcome, RawRows) else raw_status(outcome.code)
    return Response(body, status_code=status, media_type=JSON, headers=NO_STORE)


def run_sql_route(
    service: Service, admission: Admission, timeout: float, guards: Sequence[Guard]
) -> HTTPRouteHandler:
    """``POST /v1/sql/run`` over ``service``'s raw runner, or refused when it has none."""
    enabled = service.raw is not None

    @post(
        "/v1/sql/run",
        guards=[*guards] if enabled else [*guards, _tool_not_enabled],
        security=doc.SECURED,
        dto=StatementBody,
        return_dto=None,
        status_code=200,
        middleware=[DefineMiddleware(RequestDeadline, seconds=timeout)],
        summary="Run one read-only SQL statement (ungoverned)",
        responses=_RESPONSES,
        operation_class=doc.SuturaOperation,
    )
    async def run_sql(
        request: Request[Any, Any, Any], data: JSONBody[RawStatement | None] = None
    ) -> Response[RawRows]:
        """The ungoverned raw SQL tool, off unless `tools.run_sql.enabled` (then
        `403 tool_not_enabled`). One read-only query in; raw rows out, or a raw refusal.
        Rows are not certified and carry no provenance. A database's failure text comes back
        as `database_text`: untrusted content, capped (`database_text_cut` counts the rest)."""
        if data is None:
            raise HttpFailureError(not_a_statement(EMPTY_BODY))
        with admission.slot():
            left = seconds_left(request.scope, timeout)
            outcome = await service.run_sql(data.statement, deadline_seconds=left)
        return _encoded(outcome)

    return run_sql
