"""Who calls over HTTP: a request in, a :class:`Caller` out, or ``401 unauthorized``.

This is the one place the HTTP surface decides who is calling; every route (and any other
HTTP surface, such as MCP over HTTP) reaches it through :meth:`Authentication.caller` or the
guard :meth:`Authentication.guard`, never on its own. Three ways, chosen by the settings:

- ``multi-user`` (``security.inbound``): a JWT access token verified per request
  (:mod:`sutura.boundary.inbound`), its scopes and groups becoming the caller's scopes and
  audiences; in ``behind-gateway`` mode the token is read from the gateway's forwarded header.
- a static ``security.access_token``, compared in constant time (``hmac.compare_digest`` over
  bytes): one identity holding every scope;
- neither, on a development deployment bound to a loopback address only (``sutura serve``
  refuses any other bind without one).

Every refused request — no token, a bad one, a token in the query string — gets the same
status, body and headers: ``401 unauthorized`` with a fixed sentence, never the token or a
library's words, and ``WWW-Authenticate: Bearer`` (with ``resource_metadata`` under
``multi-user``, RFC 9728).

>>> bind_problems(Environment.DEVELOPMENT, "127.0.0.1", token=None)
[]
>>> bind_problems(Environment.DEVELOPMENT, "0.0.0.0", token=None)
['server.host: binding 0.0.0.0 (not a loopback address) requires security.access_token']
"""

import hmac
import ipaddress
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, NamedTuple, assert_never

from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler
from returns.pipeline import is_successful

from sutura.boundary.inbound.keys import SigningKeys, read_file, read_url
from sutura.boundary.inbound.verify import TokenVerifier
from sutura.core.settings import Environment, InboundMode, InboundSettings, Settings
from sutura.core.tool.caller import Caller, EveryAudience
from sutura.core.tool.capability import Scope
from sutura.core.tool.grant import grant
from sutura.transports.http.discovery import metadata_url
from sutura.transports.http.errors import HttpFailureError
from sutura.transports.http.request_ids import header_of, request_id_of
from sutura.transports.http.wire import FailureCode

Guard = Callable[[ASGIConnection[Any, Any, Any, Any], BaseRouteHandler], Awaitable[None]]
Connection = ASGIConnection[Any, Any, Any, Any]

CALLER_KEY: Final = "sutura.caller"
"""Where the guard leaves the caller in the connection's scope state."""
_QUERY_TOKENS: Final = frozenset({"access_token", "token"})


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine (``localhost`` or a loopback address).

    >>> [is_loopback(h) for h in ("127.0.0.1", "::1", "localhost", "0.0.0.0", "example.org")]
    [True, True, True, False, False]
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind_problems(
    environment: Environment, host: str, *, token: str | None, inbound: bool = False
) -> list[str]:
    """Every reason a server must not start on ``host`` with this token, as operator sentences.

    A deployment that verifies access tokens (``inbound``) needs no static token.
    """
    if token or inbound:
        return []
    if environment is not Environment.DEVELOPMENT:
        return [f"security.access_token: required in the {environment.value} environment"]
    if not is_loopback(host):
        return [
            f"server.host: binding {host} (not a loopback address) requires security.access_token"
        ]
    return []


def _bearer(value: str) -> str | None:
    scheme, _, presented = value.partition(" ")
    if scheme.lower() != "bearer" or not presented.strip():
        return None
    return presented.strip()


class TokenCarried(NamedTuple):
    """The header a caller's token arrives in, and the longest token this deployment reads."""

    header: str
    max_bytes: int


class Authentication:
    """request → :class:`Caller`, or the one ``401`` (its ``challenge`` is the
    ``WWW-Authenticate`` value; ``carried`` says where a token arrives, None without one)."""

    def __init__(self, challenge: str, carried: TokenCarried | None = None) -> None:
        self.challenge = challenge
        self.carried = carried
        self._refused = HttpFailureError.of(
            FailureCode.UNAUTHORIZED, {"WWW-Authenticate": challenge}
        )

    async def caller(self, connection: Connection) -> Caller:
        """The caller of ``connection``'s request; raises the ``401`` failure otherwise."""
        # A token in a URL ends up in logs and histories (an empty query holds none).
        if connection.scope.get("query_string") and not _QUERY_TOKENS.isdisjoint(
            connection.query_params
        ):
            raise self.refusal()
        found = await self._caller(connection, request_id_of(connection.scope))
        if found is None:
            raise self.refusal()
        return found

    def refusal(self) -> HttpFailureError:
        """The one failure every refused request gets."""
        return HttpFailureError(self._refused.body, dict(self._refused.headers))

    async def _caller(self, connection: Connection, request_id: str) -> Caller | None:
        raise NotImplementedError

    @property
    def guard(self) -> Guard:
        """A route guard leaving the caller in the connection's state (see :func:`caller_of`)."""

        # async on purpose: litestar runs a synchronous guard in a worker thread.
        async def guard(connection: Connection, _handler: BaseRouteHandler) -> None:
            connection.scope.setdefault("state", {})[CALLER_KEY] = await self.caller(connection)

        return guard


def caller_of(connection: Connection) -> Caller:
    """The caller the guard established for this request."""
    found: Caller = connection.scope["state"][CALLER_KEY]
    return found


class _Loopback(Authentication):
    """No token: whoever reaches a development deployment's loopback address."""

    async def _caller(self, connection: Connection, request_id: str) -> Caller | None:
        return _everything("local:http", request_id)


class _StaticToken(Authentication):
    def __init__(self, token: str) -> None:
        self._expected = token.encode("utf-8")
        super().__init__("Bearer", TokenCarried("authorization", len(self._expected)))

    async def _caller(self, connection: Connection, request_id: str) -> Caller | None:
        header = header_of(connection.scope, b"authorization")
        # Header values are latin-1 on the wire; compare their bytes, whatever they hold.
        presented = None if header is None else _bearer(header.decode("latin-1"))
        given = (presented or "").encode("latin-1", errors="replace")
        if not hmac.compare_digest(given, self._expected):
            return None
        return _everything("static-token", request_id)


class _AccessTokens(Authentication):
    def __init__(
        self,
        verifier: TokenVerifier,
        inbound: InboundSettings,
        mapping: Mapping[str, Sequence[str]],
    ) -> None:
        self._verifier = verifier
        self._mapping = mapping
        match inbound.mode:
            case InboundMode.DIRECT:
                self._header = "authorization"
            case InboundMode.BEHIND_GATEWAY:
                self._header = inbound.forwarded_header.lower()
            case _:
                assert_never(inbound.mode)
        self._header_bytes = self._header.encode("latin-1")
        super().__init__(
            f'Bearer resource_metadata="{metadata_url(inbound.resource)}"',
            TokenCarried(self._header, inbound.max_token_bytes),
        )

    async def _caller(self, connection: Connection, request_id: str) -> Caller | None:
        values = [v for k, v in connection.scope["headers"] if k == self._header_bytes]
        token = _bearer(values[0].decode("latin-1")) if len(values) == 1 else None
        if token is None:
            return None
        verified = await self._verifier.verify(token)
        if not is_successful(verified):
            return None
        holder = verified.unwrap()
        return grant(
            subject=holder.subject,
            scopes=holder.scopes,
            groups=holder.groups,
            mapping=self._mapping,
            request_id=request_id,
        )


_EVERY_SCOPE: Final = frozenset(Scope)


def _everything(subject: str, request_id: str) -> Caller:
    """The one identity a single-user deployment knows, holding every scope."""
    return Caller(
        subject=subject,
        scopes=_EVERY_SCOPE,
        audiences=EveryAudience.EVERY,
        request_id=request_id,
    )


def authentication_of(settings: Settings, base_dir: Path) -> Authentication:
    """The authentication ``settings`` ask for (relative key-set paths against ``base_dir``)."""
    security = settings.security
    inbound = security.inbound
    if inbound is not None:
        read = (
            read_url(inbound.jwks_url)
            if inbound.jwks_url is not None
            else read_file(base_dir / (inbound.jwks_file or ""))
        )
        keys = SigningKeys(
            read,
            max_age=inbound.jwks_max_age_seconds,
            refetch=inbound.jwks_refetch_seconds,
            clock=time.monotonic,
        )
        verifier = TokenVerifier(inbound, keys, clock=time.time)
        return _AccessTokens(verifier, inbound, security.audience_mapping)
    if security.access_token:
        return _StaticToken(security.access_token)
    return _Loopback("Bearer")
