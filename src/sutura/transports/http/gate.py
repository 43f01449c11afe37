"""What a request must be before any route sees it: for a host this server is, and JSON.

* **Host.** A web page can point a name it controls at ``127.0.0.1`` (DNS rebinding) and then
  read a token-less loopback server as its own origin. So the ``Host`` header must name this
  server: one of ``server.allowed_hosts`` or, when that is not set and the server is bound to a
  loopback address, one of the loopback names (:data:`LOOPBACK_NAMES`). Anything else is
  ``403 host_not_allowed``. A server bound elsewhere needs a token (``sutura serve`` refuses to
  start without one), and accepts any ``Host`` unless ``server.allowed_hosts`` says otherwise.
  An entry ``*`` allows any host; ``*.example.org`` allows every name under ``example.org``.
* **JSON bodies.** A browser sends ``text/plain``, form and multipart bodies across sites
  without asking first; ``application/json`` needs a CORS preflight, which this server never
  grants. So a capability route with a body refuses one whose ``Content-Type`` is not
  ``application/json`` (parameters such as ``charset`` allowed), or that has none, with
  ``415 unsupported_media_type`` — after the token and the capability are checked
  (:func:`json_guard`), before any of the body is read.

>>> hosts = allowed_hosts_for("127.0.0.1", None)
>>> [host_allowed(hosts, h) for h in (b"localhost:8765", b"[::1]:1", b"evil.example:8765")]
[True, True, False]
>>> allowed_hosts_for("0.0.0.0", None) is None
True
>>> under = ("*.example.org",)
>>> host_allowed(under, b"api.Example.org"), host_allowed(under, b"example.org")
(True, False)
>>> is_json(b"application/json; charset=utf-8"), is_json(b"text/plain"), is_json(None)
(True, False, False)
"""

from collections.abc import Sequence
from typing import Any, Final

from litestar.connection import ASGIConnection
from litestar.enums import ScopeType
from litestar.handlers import BaseRouteHandler
from litestar.types import ASGIApp, Receive, Scope, Send

from sutura.transports.http.auth import is_loopback
from sutura.transports.http.errors import HttpFailureError
from sutura.transports.http.replies import NO_STORE
from sutura.transports.http.request_ids import header_of
from sutura.transports.http.wire import FailureCode, encode_wire, failure_body

LOOPBACK_NAMES: Final = ("localhost", "127.0.0.1", "::1")
"""The hosts a loopback-bound server answers to when ``server.allowed_hosts`` is not set."""


def allowed_hosts_for(bind_host: str, configured: Sequence[str] | None) -> tuple[str, ...] | None:
    """The hosts a server bound to ``bind_host`` answers to; ``None`` for any."""
    if configured is not None:
        return tuple(host.lower() for host in configured)
    return LOOPBACK_NAMES if is_loopback(bind_host) else None


def host_allowed(allowed: Sequence[str] | None, header: bytes | None) -> bool:
    """Whether a ``Host`` header (name and optional port) names one of ``allowed``."""
    if allowed is None:
        return True
    if header is None:
        return False
    name = _host_name(header.decode("latin-1").strip().lower())
    return any(_matches(pattern, name) for pattern in allowed)


def is_json(content_type: bytes | None) -> bool:
    """Whether a ``Content-Type`` header is ``application/json``."""
    if content_type is None:
        return False
    media = content_type.split(b";", 1)[0].strip().lower()
    return media == b"application/json"


def _host_name(host: str) -> str:
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _matches(pattern: str, name: str) -> bool:
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        return name.endswith(pattern[1:]) and len(name) > len(pattern) - 1
    return name == pattern


_DECIDED_HOSTS: Final = 64
"""``Host`` headers a gate keeps its decision on (a client sends the same one every time)."""


class HostDecisions:
    """Whether a ``Host`` header names this server, the decision kept per header (at most
    :data:`_DECIDED_HOSTS` of them, then forgotten all at once): it depends on the header's
    bytes alone. One is shared by the :class:`Gate` and ``POST /v1/query``'s own path."""

    def __init__(self, allowed: tuple[str, ...] | None) -> None:
        self.allowed = allowed
        self._decided: dict[bytes | None, bool] = {}

    def allows(self, host: bytes | None) -> bool:
        """Whether a request whose ``Host`` header is ``host`` (None: none) is answered."""
        if self.allowed is None:
            return True
        allowed = self._decided.get(host)
        if allowed is None:
            allowed = host_allowed(self.allowed, host)
            if len(self._decided) >= _DECIDED_HOSTS:
                self._decided.clear()
            self._decided[host] = allowed
        return allowed


class Gate:
    """ASGI middleware: refuses a ``Host`` that does not name this server (403)."""

    def __init__(self, app: ASGIApp, hosts: HostDecisions) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a refused request here; hand every other one on."""
        # The last Host header, as a mapping of the headers keeps (mapped in C, not looped over).
        if (
            scope["type"] == ScopeType.HTTP
            and self.hosts.allowed is not None
            and not self.hosts.allows(dict(scope["headers"]).get(b"host"))
        ):
            await send_failure(send, FailureCode.HOST_NOT_ALLOWED)
            return
        await self.app(scope, receive, send)


async def json_guard(connection: ASGIConnection[Any, Any, Any, Any], _h: BaseRouteHandler) -> None:
    """Refuse a body that is not declared ``application/json`` (415), before reading it."""
    if not is_json(header_of(connection.scope, b"content-type")):
        raise HttpFailureError.of(FailureCode.UNSUPPORTED_MEDIA_TYPE)


async def send_failure(send: Send, code: FailureCode, extra: dict[str, str] | None = None) -> None:
    """Answer with the failure for ``code`` below any route (and ``extra`` headers)."""
    body = failure_body(code)
    headers = [(b"content-type", b"application/json")]
    headers += [(k.lower().encode(), v.encode()) for k, v in {**NO_STORE, **(extra or {})}.items()]
    await send({"type": "http.response.start", "status": body.status, "headers": headers})
    await send({"type": "http.response.body", "body": encode_wire(body), "more_body": False})
