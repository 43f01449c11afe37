"""A capability's reply as an HTTP response: one mapping, for every route.

- an answer: 200 and the structured half;
- a refusal: the refusal's own status and its structured half (``Retry-After`` when asking
  again may work: the data system could not be reached);
- malformed arguments: 400 with the field and the problem (``not_a_question``,
  ``not_a_statement``, ``bad_request``);
- a capability the caller may not use: 403 ``insufficient_scope`` naming the scope (and
  ``WWW-Authenticate: Bearer error="insufficient_scope", scope="…"``);
- a capability this deployment does not offer: 403 ``tool_not_enabled``;
- a failure: 500 ``internal``, a fixed sentence.

Every body is sent with ``Cache-Control: private, no-store``.
"""

from typing import Any, Final, assert_never

from litestar import Response

from sutura.core.tool.capability import scope_of
from sutura.core.tool.reply import (
    Answered,
    Declined,
    Failed,
    Malformed,
    NotOffered,
    NotPermitted,
    Reply,
)
from sutura.transports.http.wire import (
    RETRY_AFTER_SECONDS,
    FailureBody,
    FailureCode,
    encode_wire,
    failure_body,
    insufficient_scope,
    malformed_body,
)

JSON: Final = "application/json"
NO_STORE: Final = {"Cache-Control": "private, no-store"}
RETRY: Final = {"Retry-After": str(RETRY_AFTER_SECONDS)}


class ReplyError(Exception):
    """Raised where the reply is known before a handler runs: a body that is not the
    capability's input, a capability the deployment does not offer. Answered by
    :func:`response_of`, like every reply."""

    def __init__(self, reply: Reply) -> None:
        super().__init__(type(reply).__name__)
        self.reply = reply


def failure_response(body: FailureBody, headers: dict[str, str] | None = None) -> Response[Any]:
    """The response for one failure body."""
    return Response(
        encode_wire(body),
        status_code=body.status,
        media_type=JSON,
        headers={**NO_STORE, **(headers or {})},
    )


ANSWER_HEADERS: Final = (
    *(
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in NO_STORE.items()
    ),
    (b"content-type", JSON.encode("latin-1")),
)
"""An answer's headers but its length, encoded, in the order litestar sends
:func:`response_of`'s (the route's own headers, then the media type, then the length)."""


def response_of(reply: Reply) -> Response[Any]:
    """The HTTP response that carries ``reply``."""
    match reply:
        case Answered():
            return Response(reply.halves.structured, media_type=JSON, headers=NO_STORE)
        case Declined():
            headers = {**NO_STORE, **RETRY} if reply.retryable else NO_STORE
            body = reply.halves.structured
            return Response(body, status_code=reply.status, media_type=JSON, headers=headers)
        case Malformed():
            return failure_response(malformed_body(reply))
        case NotPermitted():
            scope = scope_of(reply.capability).value
            challenge = f'Bearer error="insufficient_scope", scope="{scope}"'  # RFC 6750 §3.1
            return failure_response(insufficient_scope(reply), {"WWW-Authenticate": challenge})
        case NotOffered():
            return failure_response(failure_body(FailureCode.TOOL_NOT_ENABLED))
        case Failed():
            return failure_response(failure_body(FailureCode.INTERNAL))
        case _:
            assert_never(reply)
