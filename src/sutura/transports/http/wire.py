"""The HTTP surface's own wire shapes: the closed failure channel, and health.

Answers, refusals and the catalog are the core's structured halves (``sutura.core.nouns.answer``,
``sutura.core.catalog.view.catalog``); this module adds what only HTTP has. A failure is
``{code, status, detail}`` with a fixed sentence per code, so nothing a driver, a library or a
caller wrote can reach a failure body. The exceptions are ``not_a_question`` and
``not_a_statement``, whose details are the decoders' sentences: they name a field and never a
value.

>>> failure_body(FailureCode.AT_CAPACITY).status
503
"""

from enum import StrEnum
from typing import Final, Literal, assert_never

import msgspec

from sutura.core.nouns.frozen import Frozen
from sutura.core.tool.capability import Capability
from sutura.core.tool.reply import Malformed, NotPermitted

RETRY_AFTER_SECONDS: Final = 1
"""What ``Retry-After`` says: at capacity, or a data system that could not be reached."""


class FailureCode(StrEnum):
    """Every way an HTTP request fails without an outcome."""

    UNAUTHORIZED = "unauthorized"
    NOT_A_QUESTION = "not_a_question"
    NOT_A_STATEMENT = "not_a_statement"
    NOT_A_MESSAGE = "not_a_message"
    BAD_REQUEST = "bad_request"
    TOOL_NOT_ENABLED = "tool_not_enabled"
    INSUFFICIENT_SCOPE = "insufficient_scope"
    HOST_NOT_ALLOWED = "host_not_allowed"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_ACCEPTABLE = "not_acceptable"
    TIMEOUT = "timeout"
    TOO_LARGE = "too_large"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    INTERNAL = "internal"
    UNAVAILABLE = "unavailable"
    AT_CAPACITY = "at_capacity"
    RATE_LIMITED = "rate_limited"


# One flat arm per status reads best; its branches are the vocabulary's, not logic.
def failure_status(code: FailureCode) -> int:  # noqa: C901
    """The HTTP status of a failure code."""
    match code:
        case FailureCode.UNAUTHORIZED:
            return 401
        case (
            FailureCode.NOT_A_QUESTION
            | FailureCode.NOT_A_STATEMENT
            | FailureCode.NOT_A_MESSAGE
            | FailureCode.BAD_REQUEST
        ):
            return 400
        case (
            FailureCode.TOOL_NOT_ENABLED
            | FailureCode.INSUFFICIENT_SCOPE
            | FailureCode.HOST_NOT_ALLOWED
        ):
            return 403
        case FailureCode.NOT_FOUND:
            return 404
        case FailureCode.METHOD_NOT_ALLOWED:
            return 405
        case FailureCode.NOT_ACCEPTABLE:
            return 406
        case FailureCode.TIMEOUT:
            return 408
        case FailureCode.TOO_LARGE:
            return 413
        case FailureCode.UNSUPPORTED_MEDIA_TYPE:
            return 415
        case FailureCode.RATE_LIMITED:
            return 429
        case FailureCode.INTERNAL:
            return 500
        case FailureCode.UNAVAILABLE | FailureCode.AT_CAPACITY:
            return 503
        case _:
            assert_never(code)


FAILURE_DETAILS: Final[dict[FailureCode, str]] = {
    FailureCode.UNAUTHORIZED: (
        "A valid bearer token is required: send the header Authorization: Bearer <token>."
    ),
    FailureCode.NOT_A_QUESTION: "The body is not a question; read the catalog and the API schema.",
    FailureCode.NOT_A_STATEMENT: (
        'The body is not {"statement": "<one SQL query>"}; see the API schema at /openapi.json.'
    ),
    FailureCode.NOT_A_MESSAGE: (
        "The body of a request to /mcp must be one JSON-RPC message (a request, a notification "
        "or a response; not a batch)."
    ),
    FailureCode.BAD_REQUEST: "The request is malformed; see the API schema at /openapi.json.",
    FailureCode.TOOL_NOT_ENABLED: (
        "The raw SQL tool is not enabled on this deployment; ask a certified question instead."
    ),
    FailureCode.INSUFFICIENT_SCOPE: (
        "The caller's token does not grant the scope this operation needs; ask the operator."
    ),
    FailureCode.HOST_NOT_ALLOWED: (
        "The Host header (or, on /mcp, the Origin header) does not name this server; the "
        "operator lists the names it answers to in server.allowed_hosts."
    ),
    FailureCode.UNSUPPORTED_MEDIA_TYPE: (
        "The request body must be sent with Content-Type: application/json."
    ),
    FailureCode.NOT_FOUND: "There is no such route; see the API schema at /openapi.json.",
    FailureCode.METHOD_NOT_ALLOWED: (
        "The route does not accept this method; see the API schema at /openapi.json."
    ),
    FailureCode.NOT_ACCEPTABLE: (
        "The request's Accept header must admit application/json (on /mcp, send "
        "Accept: application/json, text/event-stream)."
    ),
    FailureCode.TIMEOUT: "The request body did not arrive before the request deadline.",
    FailureCode.TOO_LARGE: "The request body is larger than this deployment accepts.",
    FailureCode.INTERNAL: (
        "Something broke inside sutura; nothing was answered. The operator's log has the cause."
    ),
    FailureCode.UNAVAILABLE: "The service is not available right now; try again later.",
    FailureCode.AT_CAPACITY: (
        "The service is answering as many questions as it allows at once; retry after the "
        "number of seconds in the Retry-After header."
    ),
    FailureCode.RATE_LIMITED: (
        "This caller has made more requests than this deployment allows; retry after the "
        "number of seconds in the Retry-After header."
    ),
}


class FailureBody(Frozen, frozen=True):
    """A failure: the code, its HTTP status and a fixed sentence (never a cause)."""

    code: FailureCode
    status: int
    detail: str


class Health(Frozen, frozen=True):
    """``GET /health``: the process is up and serving."""

    status: Literal["ok"] = "ok"


def failure_body(code: FailureCode) -> FailureBody:
    """The failure body for ``code``, with its status and fixed sentence."""
    return FailureBody(code=code, status=failure_status(code), detail=FAILURE_DETAILS[code])


def malformed_body(reply: Malformed) -> FailureBody:
    """The failure body for malformed arguments: the field and the problem, never the value."""
    code = _malformed_code(reply.capability)
    return FailureBody(code=code, status=failure_status(code), detail=reply.sentence())


def insufficient_scope(reply: NotPermitted) -> FailureBody:
    """The failure body naming the scope the caller lacks."""
    code = FailureCode.INSUFFICIENT_SCOPE
    return FailureBody(code=code, status=failure_status(code), detail=reply.sentence())


def _malformed_code(capability: Capability) -> FailureCode:
    match capability:
        case Capability.DESCRIBE_CATALOG | Capability.LIST_VALUES:
            return FailureCode.BAD_REQUEST
        case Capability.ASK_METRIC | Capability.COMPILE_QUESTION:
            return FailureCode.NOT_A_QUESTION
        case Capability.RUN_SQL:
            return FailureCode.NOT_A_STATEMENT
        case _:
            assert_never(capability)


_ENCODER: Final = msgspec.json.Encoder()


def encode_wire(body: Frozen) -> bytes:
    """JSON bytes of one of this module's bodies (all text here is ours, so it always encodes)."""
    return _ENCODER.encode(body)
