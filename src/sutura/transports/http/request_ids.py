"""Request ids: taken from ``X-Request-Id`` when it is a plausible id, otherwise generated;
returned on every response; held for every log line of the request.

A caller's id is kept only if it is 1 to :data:`MAX_REQUEST_ID` characters of letters, digits
and ``. _ : - / + = @``: anything else (too long, a space, a control character, a quote) is
replaced by a generated id — never echoed, so no header can smuggle text into a log line or
the audit record.

>>> accepted("trace-01HX.42"), accepted(""), accepted("a b"), accepted("x" * 129)
(True, False, False, False)
"""

import operator
import re
from collections.abc import Awaitable, Callable
from typing import Any, Final

from litestar.types import ASGIApp, Message, Receive, Scope, Send

from sutura.boundary.generated_ids import generated_id
from sutura.boundary.logs import request_scope

MAX_REQUEST_ID: Final = 128
HEADER: Final = "x-request-id"
_HEADER_BYTES: Final = HEADER.encode()
_ID: Final = re.compile(rf"[A-Za-z0-9._:/+=@-]{{1,{MAX_REQUEST_ID}}}")
_STATE_KEY: Final = "sutura.request_id"
_HEADERS_KEY: Final = "sutura.headers"
_NAME: Final = operator.itemgetter(0)


def accepted(candidate: str) -> bool:
    """Whether a caller's ``X-Request-Id`` is kept as the request's id."""
    return _ID.fullmatch(candidate) is not None


def header_of(scope: Scope, name: bytes) -> bytes | None:
    """The first value of the request header ``name`` (lowercase, as ASGI servers give header
    names), read from the scope itself: building litestar's header mapping cost a question
    more than every guard reading it. The headers are mapped once per request (in C, the
    last pair of a name read first so that its first value is the one kept), for every
    reader after."""
    state: dict[str, Any] = scope.setdefault("state", {})
    headers: dict[bytes, bytes] | None = state.get(_HEADERS_KEY)
    if headers is None:
        headers = state[_HEADERS_KEY] = dict(reversed([*scope.get("headers", ())]))
    return headers.get(name)


def _from_headers(scope: Scope) -> str | None:
    value = header_of(scope, _HEADER_BYTES)
    if value is None:
        return None
    text = value.decode("latin-1")
    return text if accepted(text) else None


def request_id_of(scope: Scope) -> str:
    """The request's id: the one already chosen for it, else the caller's, else a new one."""
    state: dict[str, Any] = scope.setdefault("state", {})
    chosen = state.get(_STATE_KEY)
    if isinstance(chosen, str):
        return chosen
    request_id = _from_headers(scope) or generated_id()
    state[_STATE_KEY] = request_id
    return request_id


async def stamp_response(message: Message, scope: Scope) -> None:
    """``before_send``: every response carries ``X-Request-Id`` (even one no route made)."""
    if message["type"] == "http.response.start":
        request_id = request_id_of(scope).encode("latin-1")
        headers = message.get("headers", ())
        # A route's own X-Request-Id is replaced; looked for in C first (a route sets none).
        if _HEADER_BYTES in map(bytes.lower, map(_NAME, headers)):
            headers = [(k, v) for k, v in headers if k.lower() != _HEADER_BYTES]
        message["headers"] = [*headers, (_HEADER_BYTES, request_id)]


class RequestIds:
    """ASGI middleware: chooses the request's id first and holds it for every log line."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request inside its id's scope."""
        with request_scope(request_id_of(scope)):
            await self.app(scope, receive, send)


StampResponse = Callable[[Message, Scope], Awaitable[None]]
