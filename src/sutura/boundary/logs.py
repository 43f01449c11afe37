"""The operator's log: every line of a request names its request id; JSON lines on request.

A request id is held in a context variable for the length of a request (set by the HTTP
surface as soon as it has one, and by :meth:`~sutura.boundary.service.Service.call` for every
call on every surface), so every log line written meanwhile — by sutura, a driver or a library
— carries it: ``request_id`` in a JSON line, ``[<id>]`` after the logger's name in text.

>>> with request_scope("r-1"):
...     current_request_id()
'r-1'
>>> current_request_id() is None
True
"""

import datetime
import json
import logging
from contextvars import ContextVar, Token
from typing import Final

from sutura.boundary.log_stream import UnheldStderr, unheld_stderr
from sutura.core.text.escape import escape_text

_REQUEST_ID: Final[ContextVar[str | None]] = ContextVar("sutura.request_id", default=None)

TEXT_FORMAT: Final = "%(levelname)s %(name)s%(request_mark)s: %(message)s"
"""A text line: level, logger, ``[<request id>]`` within a request, message."""


def current_request_id() -> str | None:
    """The id of the request being served here, if any."""
    return _REQUEST_ID.get()


class RequestScope:
    """The block of one request: its id held as the current request's (a class, not a
    generator: every call on every surface enters one)."""

    __slots__ = ("_request_id", "_token")

    def __init__(self, request_id: str) -> None:
        self._request_id = request_id
        self._token: Token[str | None] | None = None

    def __enter__(self) -> None:
        self._token = _REQUEST_ID.set(self._request_id)

    def __exit__(self, *_exc: object) -> None:
        if self._token is not None:
            _REQUEST_ID.reset(self._token)
            self._token = None


class _Unchanged:
    """The block of a request whose id is already the current one (the HTTP surface holds it
    before the service's call does): nothing to set, nothing to restore."""

    __slots__ = ()

    def __enter__(self) -> None:
        pass

    def __exit__(self, *_exc: object) -> None:
        pass


_UNCHANGED: Final = _Unchanged()


def request_scope(request_id: str) -> RequestScope | _Unchanged:
    """Hold ``request_id`` as the current request's for the block."""
    if _REQUEST_ID.get() == request_id:
        return _UNCHANGED
    return RequestScope(request_id)


class RequestIdFilter(logging.Filter):
    """Stamps every record with the current request id (``request_id``; ``request_mark`` is
    `` [<id>]``, escaped, or empty outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Stamp and keep ``record``."""
        request_id = current_request_id()
        record.request_id = request_id
        record.request_mark = "" if request_id is None else f" [{escape_text(request_id)}]"
        return True


class JsonLines(logging.Formatter):
    """One JSON object per record, on one line: ``time`` (UTC, ISO 8601), ``level``,
    ``logger``, ``request_id`` (within a request), ``message``, ``exception`` (when one was
    logged). Non-ASCII is escaped, so no character can break the line."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as one JSON line."""
        moment = datetime.datetime.fromtimestamp(record.created, tz=datetime.UTC)
        line: dict[str, object] = {
            "time": moment.isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
        }
        request_id = getattr(record, "request_id", None)
        if request_id is not None:
            line["request_id"] = request_id
        line["message"] = record.getMessage()
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=True)


def configure_server_log(*, json_lines: bool) -> None:
    """Stamp request ids on every handler of the root log, write JSON lines if asked, and
    let the audit records through (a server's stderr is its operator's log). A log written
    to a pipe or a socket never holds the server up when nobody reads it (:mod:`.log_stream`)."""
    # Neither format names a record's source line, thread or process: a record no longer looks
    # them up (the logging HOWTO's "Optimization"): about half of what an audit line costs.
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    audit = logging.getLogger("sutura.audit")
    if audit.level == logging.NOTSET:
        audit.setLevel(logging.INFO)
    formatter = JsonLines() if json_lines else logging.Formatter(TEXT_FORMAT)
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler) and not isinstance(
            handler.stream, UnheldStderr
        ):
            handler.setStream(unheld_stderr(handler.stream))
        if not any(isinstance(f, RequestIdFilter) for f in handler.filters):
            handler.addFilter(RequestIdFilter())
        handler.setFormatter(formatter)
