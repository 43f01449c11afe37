"""The closed error channel: every exception becomes a failure body with a fixed sentence.

Litestar's own errors (an unknown route, a wrong method, a body over the limit, a validation
error) are mapped here too, so no body litestar writes, and no message any library or driver
wrote, reaches a caller. The cause of an ``internal`` failure goes to the ``sutura.http`` log.
"""

import logging
from typing import Any, Final

from litestar import Request, Response
from litestar.exceptions import HTTPException
from litestar.types import ExceptionHandlersMap

from sutura.transports.http.replies import ReplyError, failure_response, response_of
from sutura.transports.http.wire import FailureBody, FailureCode, failure_body

log = logging.getLogger("sutura.http")

# Headers a failure may carry; anything else an exception holds is dropped.
_KEPT_HEADERS: Final = frozenset({"allow", "retry-after", "www-authenticate"})

_BY_STATUS: Final[dict[int, FailureCode]] = {
    400: FailureCode.BAD_REQUEST,
    401: FailureCode.UNAUTHORIZED,
    404: FailureCode.NOT_FOUND,
    405: FailureCode.METHOD_NOT_ALLOWED,
    406: FailureCode.NOT_ACCEPTABLE,
    408: FailureCode.TIMEOUT,
    413: FailureCode.TOO_LARGE,
    415: FailureCode.UNSUPPORTED_MEDIA_TYPE,
    503: FailureCode.UNAVAILABLE,
}


class HttpFailureError(Exception):
    """Raised inside the app to answer with one failure body (and, at capacity, Retry-After)."""

    def __init__(self, body: FailureBody, headers: dict[str, str] | None = None) -> None:
        super().__init__(body.code.value)
        self.body = body
        self.headers = headers or {}

    @classmethod
    def of(cls, code: FailureCode, headers: dict[str, str] | None = None) -> "HttpFailureError":
        """The failure for ``code`` with its fixed sentence."""
        return cls(failure_body(code), headers)


def failure_code_of(status: int) -> FailureCode:
    """The failure a status stands for; ``internal`` for one the channel has no code for."""
    return _BY_STATUS.get(status, FailureCode.INTERNAL)


def _on_failure(_request: Request[Any, Any, Any], exc: HttpFailureError) -> Response[bytes]:
    return failure_response(exc.body, exc.headers)


def _on_reply(_request: Request[Any, Any, Any], exc: ReplyError) -> Response[bytes]:
    return response_of(exc.reply)


def _on_http_exception(request: Request[Any, Any, Any], exc: HTTPException) -> Response[bytes]:
    code = _BY_STATUS.get(exc.status_code)
    if code is None:
        return _on_anything(request, exc)
    kept = {k: v for k, v in (exc.headers or {}).items() if k.lower() in _KEPT_HEADERS}
    return failure_response(failure_body(code), kept)


def _on_anything(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    log.error("internal failure on %s %s", request.method, request.url.path, exc_info=exc)
    return failure_response(failure_body(FailureCode.INTERNAL))


def response_to(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """The response litestar's exception handling gives ``exc`` with :func:`exception_handlers`
    (for a path answered beside litestar's routing, as ``POST /v1/query``'s own is): the
    handler of its nearest class the map holds, as litestar looks it up (the map keys no
    status)."""
    handlers = exception_handlers()
    kind = next(kind for kind in type(exc).__mro__ if kind in handlers)
    response: Response[Any] = handlers[kind](request, exc)
    return response


def exception_handlers() -> ExceptionHandlersMap:
    """The app's handlers: every exception ends in the closed channel."""
    return {
        HttpFailureError: _on_failure,
        ReplyError: _on_reply,
        HTTPException: _on_http_exception,
        Exception: _on_anything,
    }
