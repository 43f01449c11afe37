"""One access token verified: RFC 9068 JWT access tokens, with PyJWT.

In order: its size; its header (the algorithm one of the pinned asymmetric ones, ``typ``
``at+jwt``, no header that names a key elsewhere — ``jku``, ``x5u``, ``jwk``, ``x5c`` — and no
``crit``); the issuer's key for its ``kid`` (see :mod:`.keys`); then the signature, ``iss``,
``aud`` (this resource), ``exp``, ``nbf`` and ``iat`` within the leeway, and ``sub``. A token
that fails any of them is a :class:`Rejection`, named in the ``sutura.inbound`` log and never
to the caller; the token itself is logged nowhere.

An agent sends the same token with every request for its lifetime, and checking its
signature costs more than the rest of a small answer, so a token once verified is kept (at
most ``_KEPT`` of them, each at most ``_KEPT_SECONDS``): the same bytes are accepted again
only while ``exp`` and ``nbf`` still hold, within the leeway, at the moment of use.
"""

import logging
from collections.abc import Callable
from enum import StrEnum
from typing import Any, Final

import jwt
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.inbound.keys import SigningKeys
from sutura.core.nouns.frozen import Frozen
from sutura.core.settings import InboundSettings

log = logging.getLogger("sutura.inbound")

_TYPES: Final = frozenset({"at+jwt", "application/at+jwt"})
_FOREIGN_KEY_HEADERS: Final = frozenset({"jku", "x5u", "jwk", "x5c", "crit"})
_REQUIRED: Final = ["exp", "iat", "iss", "aud", "sub"]
_KEPT: Final = 4096
_KEPT_SECONDS: Final = 60.0

Clock = Callable[[], float]
"""Seconds since the epoch (the clock ``exp`` and ``nbf`` are read against)."""


class Rejection(StrEnum):
    """Why a token was not accepted (for the operator's log)."""

    TOO_LARGE = "too_large"
    MALFORMED = "malformed"
    ALGORITHM = "algorithm_not_pinned"
    KEY_ELSEWHERE = "header_names_a_key_elsewhere"
    TYPE = "not_an_access_token"
    UNKNOWN_KEY = "unknown_key"
    SIGNATURE = "bad_signature"
    EXPIRED = "expired"
    NOT_YET_VALID = "not_yet_valid"
    ISSUER = "wrong_issuer"
    AUDIENCE = "wrong_audience"
    CLAIMS = "claims"


class Verified(Frozen, frozen=True):
    """What a verified token says about its holder, and when it holds."""

    subject: str
    scopes: tuple[str, ...]
    groups: tuple[str, ...]
    expires: float
    not_before: float | None = None


class TokenVerifier:
    """Verifies tokens against one issuer's keys, as ``security.inbound`` says."""

    def __init__(self, inbound: InboundSettings, keys: SigningKeys, *, clock: Clock) -> None:
        self._inbound = inbound
        self._keys = keys
        self._clock = clock
        self._algorithms = frozenset(a.value for a in inbound.algorithms)
        self._kept: dict[str, tuple[Verified, float]] = {}

    async def verify(self, token: str) -> Result[Verified, Rejection]:
        """The token's holder, or why it is not accepted."""
        now = self._clock()
        kept = self._kept.get(token)
        if kept is not None and now - kept[1] <= _KEPT_SECONDS:
            result: Result[Verified, Rejection] = self._still_valid(kept[0], now)
        else:
            result = await self._verify(token)
            if is_successful(result):
                if len(self._kept) >= _KEPT:
                    self._kept.clear()
                self._kept[token] = (result.unwrap(), now)
        if not is_successful(result):
            log.info("access token refused: %s", result.failure().value)
        return result

    def _still_valid(self, verified: Verified, now: float) -> Result[Verified, Rejection]:
        leeway = self._inbound.leeway_seconds
        if now > verified.expires + leeway:
            return Failure(Rejection.EXPIRED)
        if verified.not_before is not None and now < verified.not_before - leeway:
            return Failure(Rejection.NOT_YET_VALID)
        return Success(verified)

    async def _verify(self, token: str) -> Result[Verified, Rejection]:
        if len(token) > self._inbound.max_token_bytes:
            return Failure(Rejection.TOO_LARGE)
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError:
            return Failure(Rejection.MALFORMED)
        problem = self._header_problem(header)
        if problem is not None:
            return Failure(problem)
        kid = header.get("kid")
        if kid is not None and not isinstance(kid, str):
            return Failure(Rejection.MALFORMED)
        key = await self._keys.key(kid, header["alg"])
        if key is None:
            return Failure(Rejection.UNKNOWN_KEY)
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=[header["alg"]],
                audience=self._inbound.resource,
                issuer=self._inbound.issuer,
                leeway=self._inbound.leeway_seconds,
                options={"require": _REQUIRED, "verify_signature": True},
            )
        except jwt.InvalidTokenError as err:
            return Failure(_rejection_of(err))
        return _verified(claims, self._inbound.groups_claim)

    def _header_problem(self, header: dict[str, Any]) -> Rejection | None:
        if header.get("alg") not in self._algorithms:
            return Rejection.ALGORITHM
        if not _FOREIGN_KEY_HEADERS.isdisjoint(header):
            return Rejection.KEY_ELSEWHERE
        typ = header.get("typ")
        if not isinstance(typ, str) or typ.lower() not in _TYPES:
            return Rejection.TYPE
        return None


def _rejection_of(err: jwt.InvalidTokenError) -> Rejection:
    match err:
        case jwt.ExpiredSignatureError():
            return Rejection.EXPIRED
        case jwt.ImmatureSignatureError():
            return Rejection.NOT_YET_VALID
        case jwt.InvalidIssuerError():
            return Rejection.ISSUER
        case jwt.InvalidAudienceError():
            return Rejection.AUDIENCE
        case jwt.InvalidSignatureError():
            return Rejection.SIGNATURE
        case jwt.DecodeError():
            return Rejection.MALFORMED
        case _:
            return Rejection.CLAIMS


def _verified(claims: dict[str, Any], groups_claim: str) -> Result[Verified, Rejection]:
    subject = claims.get("sub")
    scopes = _strings(claims.get("scope"), claims.get("scp"))
    group = claims.get(groups_claim)
    groups = (group,) if isinstance(group, str) else _strings(None, group)
    if not isinstance(subject, str) or not subject or scopes is None or groups is None:
        return Failure(Rejection.CLAIMS)
    expires, not_before = claims["exp"], claims.get("nbf")
    if not isinstance(expires, int | float) or not isinstance(not_before, int | float | None):
        return Failure(Rejection.CLAIMS)
    return Success(
        Verified(
            subject=subject,
            scopes=scopes,
            groups=groups,
            expires=float(expires),
            not_before=None if not_before is None else float(not_before),
        )
    )


def _strings(spaced: object, listed: object) -> tuple[str, ...] | None:
    """A space-separated string (RFC 9068's ``scope``) or a list of strings; None if neither
    is well formed."""
    if spaced is None and listed is None:
        return ()
    value = spaced if spaced is not None else listed
    if isinstance(value, str):
        return tuple(value.split(" "))
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None
