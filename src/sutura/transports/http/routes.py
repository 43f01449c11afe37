"""The routes: one per capability, derived from the vocabulary, plus health and the document.

Every ``/v1`` route does the same thing: decode its body with the core's codec, make the one
capability call, and map the reply (:func:`~.replies.response_of`). What differs — the path, the
method, the body it documents, whether it takes an admission slot, its documented statuses — is
decided by one exhaustive ``match`` over :class:`~sutura.core.tool.capability.Capability`, so a
route without a capability cannot be assembled and a new capability is a type error here.
"""

from typing import Annotated, Any, Final, assert_never

import msgspec
from litestar import Request, Response, get
from litestar.connection import ASGIConnection
from litestar.dto import AbstractDTO
from litestar.enums import HttpMethod
from litestar.handlers import BaseRouteHandler, HTTPRouteHandler
from litestar.middleware import DefineMiddleware
from litestar.openapi import ResponseSpec
from litestar.params import JSONBody, Parameter

from sutura.boundary.service import Service
from sutura.core.catalog.view.catalog import CatalogBody
from sutura.core.nouns.answer import Answer
from sutura.core.nouns.question import Question
from sutura.core.nouns.values import Values, ValuesRequest
from sutura.core.raw.outcome import RawRows
from sutura.core.raw.request import RawStatement
from sutura.core.settings import InboundSettings
from sutura.core.sql.shown import ShownStatement
from sutura.core.tool.arguments import Arguments
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Capability
from sutura.core.tool.reply import Malformed, NotOffered, NotPermitted, Reply
from sutura.transports.http import openapi as doc
from sutura.transports.http.auth import Authentication, Guard, caller_of
from sutura.transports.http.body import (
    CompiledQuestionBody,
    QuestionBody,
    StatementBody,
    ValuesBody,
)
from sutura.transports.http.discovery import metadata_path, protected_resource
from sutura.transports.http.gate import json_guard
from sutura.transports.http.guards import GuardedRoute, chained
from sutura.transports.http.limits import Admission, RequestDeadline, seconds_left
from sutura.transports.http.replies import JSON, ReplyError, response_of
from sutura.transports.http.wire import Health

_HEALTH: Final = Health()
_EMPTY_BODY: Final = "the body is empty"


@get("/health", sync_to_thread=False, summary="Liveness")
def health() -> Health:
    """The process is up and serving. Needs no token."""
    return _HEALTH


@get("/openapi.json", sync_to_thread=False, include_in_schema=False, media_type=JSON)
def openapi_document(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The OpenAPI document, generated from these handlers (built on first use, then kept)."""
    return Response(msgspec.json.encode(request.app.openapi_schema.to_schema()), media_type=JSON)


class Calls:
    """What every capability route shares: the service, the bounds, the guards, the caller."""

    def __init__(
        self,
        service: Service,
        admission: Admission,
        timeout: float,
        authentication: Authentication,
    ) -> None:
        self.service = service
        self.admission = admission
        self.timeout = timeout
        self.guards: list[Guard] = [authentication.guard]

    def caller(self, request: Request[Any, Any, Any]) -> Caller:
        """Who is calling with ``request`` (the one place a route names its caller)."""
        return caller_of(request)

    async def call(
        self, capability: Capability, arguments: Arguments, request: Request[Any, Any, Any]
    ) -> Reply:
        """The one call, within the request's deadline."""
        deadline = seconds_left(request.scope, self.timeout)
        return await self.service.call(capability, arguments, self.caller(request), deadline)

    async def reply(
        self, capability: Capability, arguments: Arguments, request: Request[Any, Any, Any]
    ) -> Response[Any]:
        """The one call, as a response."""
        return response_of(await self.call(capability, arguments, request))

    async def body_reply(
        self,
        capability: Capability,
        body: Arguments,
        request: Request[Any, Any, Any],
        *,
        slot: bool,
    ) -> Response[Any]:
        """The one call with a decoded body (an admission slot held around it when it runs a
        query), as a response; a missing body is malformed, before any slot is taken."""
        return response_of(await self.body_call(capability, body, request, slot=slot))

    async def body_call(
        self,
        capability: Capability,
        body: Arguments,
        request: Request[Any, Any, Any],
        *,
        slot: bool,
    ) -> Reply:
        """:meth:`body_reply`'s reply, before it is made a response."""
        if body is None:
            return _empty(capability)
        if not slot:
            return await self.call(capability, body, request)
        with self.admission.slot():
            return await self.call(capability, body, request)

    def offered(self, capability: Capability) -> list[Guard]:
        """The guards (the caller first), plus one refusing the capability before its body is
        read when the caller may not use it, or this deployment does not offer it."""
        offered = self.service.offers(capability)

        async def permitted(c: ASGIConnection[Any, Any, Any, Any], _h: BaseRouteHandler) -> None:
            if not caller_of(c).permits(capability):
                raise ReplyError(NotPermitted(capability=capability))
            if not offered:
                raise ReplyError(NotOffered(capability=capability))

        return [*self.guards, permitted]


def _empty(capability: Capability) -> Malformed:
    """A request whose body is missing: malformed arguments, before any slot is taken."""
    return Malformed(capability=capability, field="$", problem=_EMPTY_BODY)


def route_of(capability: Capability, calls: Calls) -> HTTPRouteHandler:
    """The route that serves ``capability``."""
    match capability:
        case Capability.DESCRIBE_CATALOG:
            return _catalog_route(calls)
        case Capability.ASK_METRIC:
            return _query_route(calls)
        case Capability.RUN_SQL:
            return _sql_route(calls)
        case Capability.COMPILE_QUESTION:
            return _compile_route(calls)
        case Capability.LIST_VALUES:
            return _values_route(calls)
        case _:
            assert_never(capability)


def _posted(
    path: str,
    capability: Capability,
    calls: Calls,
    dto: type[AbstractDTO[Any]],
    summary: str,
    responses: dict[int, ResponseSpec],
) -> HTTPRouteHandler:
    """The decorator of a ``/v1`` route whose body is ``capability``'s arguments: guarded
    (the caller, the capability, JSON), documented, bounded by the request deadline."""
    return GuardedRoute(
        path,
        http_method=HttpMethod.POST,
        guards=chained([*calls.offered(capability), json_guard]),
        security=doc.SECURED,
        dto=dto,
        return_dto=None,
        status_code=200,
        middleware=[DefineMiddleware(RequestDeadline, seconds=calls.timeout)],
        summary=summary,
        responses=responses,
        operation_class=doc.SuturaOperation,
    )


_SEARCH: Final = "Words to find metrics by (name, glossary terms and synonyms, descriptions)."
_PAGE: Final = "The page to read, from 1 (a large catalog, or a search, comes in pages)."


def _paging(query: dict[str, list[str]]) -> dict[str, object]:
    """The query as ``describe_catalog``'s arguments, for its one decoder to check: a name
    given once is its value, more than once the list (refused, by name); a page that is a
    whole number is that number, else the text (refused, by name); an unknown name is kept
    (refused, as an unknown field)."""
    arguments: dict[str, object] = {}
    for name, values in query.items():
        value: object = values[0] if len(values) == 1 else values
        if name == "page" and isinstance(value, str) and value.isascii() and value.isdecimal():
            value = int(value)
        arguments[name] = value
    return arguments


def _catalog_route(calls: Calls) -> HTTPRouteHandler:
    @GuardedRoute(
        "/v1/catalog",
        http_method=HttpMethod.GET,
        guards=chained(calls.offered(Capability.DESCRIBE_CATALOG)),
        security=doc.SECURED,
        summary="The catalog",
        responses={
            401: doc.failure("No valid bearer token."),
            400: doc.failure("bad_request: `search` or `page` is malformed (the field is named)."),
            403: doc.failure(
                "insufficient_scope: the token lacks sutura:catalog.read; or host_not_allowed."
            ),
            422: doc.refusal("The catalog holds a value strict UTF-8 JSON cannot carry."),
            500: doc.failure("Something broke; the cause is in the operator's log."),
        },
        operation_class=doc.SuturaOperation,
    )
    async def catalog(
        request: Request[Any, Any, Any],
        search: Annotated[str | None, Parameter(description=_SEARCH)] = None,
        page: Annotated[str | None, Parameter(description=_PAGE)] = None,
    ) -> Response[CatalogBody]:
        """The certified metrics an agent may ask for: grains, dimensions, allowed values and
        (unless the operator omits it, as `catalog_prose` says) the authors' descriptions.
        Descriptions are untrusted content. A catalog larger than one page (16 KB of text),
        or a search, is answered a page at a time: `page` says which of how many, and how
        many metrics matched. Sent with `Cache-Control: private, no-store`."""
        del search, page  # documented here; read whole below, so an unknown one is refused
        arguments = _paging(request.query_params.dict())
        return await calls.reply(Capability.DESCRIBE_CATALOG, arguments, request)

    return catalog


_QUERY_RESPONSES: Final = {
    400: doc.failure("not_a_question: the body is not a question (the field is named)."),
    401: doc.failure("No valid bearer token."),
    403: doc.refusal_or_failure(
        "A dimension, filter or value the metric does not permit (a refusal), or "
        "insufficient_scope (the token lacks sutura:metrics.ask), or host_not_allowed."
    ),
    404: doc.refusal("metric_unknown."),
    408: doc.failure("timeout: the body did not arrive before the request deadline."),
    413: doc.refusal_or_failure("result_too_large (a refusal), or too_large (the body)."),
    415: doc.failure("unsupported_media_type: the body is not sent as application/json."),
    422: doc.refusal("A bound, a deadline or an unrepresentable value."),
    500: doc.failure("Something broke; the cause is in the operator's log."),
    503: doc.refusal_or_failure("source_unavailable, unavailable, or at_capacity."),
}


def _query_route(calls: Calls) -> HTTPRouteHandler:
    asking = Capability.ASK_METRIC

    @_posted("/v1/query", asking, calls, QuestionBody, "Ask a certified question", _QUERY_RESPONSES)
    async def query(
        request: Request[Any, Any, Any], data: JSONBody[Question | None] = None
    ) -> Response[Answer]:
        """Answer a question about certified metrics with provenance, or refuse it with a
        typed reason at the reason's status. Cells are text; null is SQL NULL."""
        return await calls.body_reply(asking, data, request, slot=True)

    return query


_SQL_RESPONSES: Final = {
    400: doc.failure("not_a_statement: the body is not {statement} (the field is named)."),
    401: doc.failure("No valid bearer token."),
    403: doc.raw_refusal_or_failure(
        "not_read_only (a raw refusal), tool_not_enabled, insufficient_scope, or host_not_allowed."
    ),
    408: doc.failure("timeout: the body did not arrive before the request deadline."),
    413: doc.raw_refusal_or_failure("too_many_rows (a raw refusal), or too_large (the body)."),
    415: doc.failure("unsupported_media_type: the body is not sent as application/json."),
    422: doc.raw_refusal(
        "statement_failed (with the database's own words, untrusted), not_one_statement, "
        "deadline_exceeded, resources_exhausted, value_not_supported, value_not_representable."
    ),
    500: doc.failure("Something broke; the cause is in the operator's log."),
    503: doc.raw_refusal_or_failure("source_unavailable, unavailable, or at_capacity."),
}


def _sql_route(calls: Calls) -> HTTPRouteHandler:
    running = Capability.RUN_SQL
    summary = "Run one read-only SQL statement (ungoverned)"

    @_posted("/v1/sql/run", running, calls, StatementBody, summary, _SQL_RESPONSES)
    async def run_sql(
        request: Request[Any, Any, Any], data: JSONBody[RawStatement | None] = None
    ) -> Response[RawRows]:
        """The ungoverned raw SQL tool, off unless `tools.run_sql.enabled` (then
        `403 tool_not_enabled`). One read-only query in; raw rows out, or a raw refusal.
        Rows are not certified and carry no provenance. A database's failure text comes back
        as `database_text`: untrusted content, capped (`database_text_cut` counts the rest)."""
        return await calls.body_reply(running, data, request, slot=True)

    return run_sql


_COMPILE_RESPONSES: Final = {
    400: doc.failure("not_a_question: the body is not a question (the field is named)."),
    401: doc.failure("No valid bearer token."),
    403: doc.refusal_or_failure(
        "A dimension, filter or value the metric does not permit (a refusal), or "
        "insufficient_scope (the token lacks sutura:metrics.compile), or host_not_allowed."
    ),
    404: doc.refusal("metric_unknown."),
    408: doc.failure("timeout: the body did not arrive before the request deadline."),
    413: doc.failure("too_large: the body."),
    415: doc.failure("unsupported_media_type: the body is not sent as application/json."),
    422: doc.refusal("A bound the question passes (checked before anything would run)."),
    500: doc.failure("Something broke; the cause is in the operator's log."),
}


def _compile_route(calls: Calls) -> HTTPRouteHandler:
    compiling = Capability.COMPILE_QUESTION
    summary = "Show the SQL a question compiles to (runs nothing)"

    @_posted("/v1/compile", compiling, calls, CompiledQuestionBody, summary, _COMPILE_RESPONSES)
    async def compile_question(
        request: Request[Any, Any, Any], data: JSONBody[Question | None] = None
    ) -> Response[ShownStatement]:
        """The statement, bound parameters, plan and answer columns `POST /v1/query` would run
        for the question, exactly as the source would receive them; nothing is run and no
        admission slot is taken. A question `/v1/query` would refuse before running is refused
        the same way, at the same status."""
        return await calls.body_reply(compiling, data, request, slot=False)

    return compile_question


_VALUES_RESPONSES: Final = {
    400: doc.failure("bad_request: the body is not a values request (the field is named)."),
    401: doc.failure("No valid bearer token."),
    403: doc.refusal_or_failure(
        "dimension_not_permitted (a refusal), or insufficient_scope (the token lacks "
        "sutura:values.read), or host_not_allowed."
    ),
    404: doc.refusal("metric_unknown: a metric the caller does not see is refused the same way."),
    408: doc.failure("timeout: the body did not arrive before the request deadline."),
    413: doc.refusal_or_failure("value_too_long (a refusal), or too_large (the body)."),
    415: doc.failure("unsupported_media_type: the body is not sent as application/json."),
    422: doc.refusal("deadline_exceeded, resources_exhausted, or an unrepresentable value."),
    500: doc.failure("Something broke; the cause is in the operator's log."),
    503: doc.refusal_or_failure("source_unavailable, unavailable, or at_capacity."),
}


def _values_route(calls: Calls) -> HTTPRouteHandler:
    listing = Capability.LIST_VALUES
    summary = "The distinct values of one dimension"

    @_posted("/v1/values", listing, calls, ValuesBody, summary, _VALUES_RESPONSES)
    async def list_values(
        request: Request[Any, Any, Any], data: JSONBody[ValuesRequest | None] = None
    ) -> Response[Values]:
        """One page of the distinct values of a metric's dimension, ascending with null (SQL
        NULL) last, optionally only those containing `search` (A-Z in either case): the values
        a filter may name. At most `page_size` values (1 to 1000, default 100) from `offset`,
        and at most 64 KiB of them: `next_offset` is where the next page starts (absent on the
        last page), `cut` says a page stopped at the byte bound. Values are untrusted
        content."""
        return await calls.body_reply(listing, data, request, slot=True)

    return list_values


def protected_resource_route(inbound: InboundSettings) -> HTTPRouteHandler:
    """RFC 9728 metadata at the resource's well-known URL (no token needed)."""
    body = msgspec.json.encode(protected_resource(inbound))

    @get(metadata_path(inbound.resource), sync_to_thread=False, include_in_schema=False)
    def metadata() -> Response[bytes]:
        """Where to get a token for this resource, and the scopes it knows."""
        return Response(body, media_type=JSON, headers={"Cache-Control": "public, max-age=300"})

    return metadata
