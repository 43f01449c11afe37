"""The issuer's signing keys (a JWKS), read from a file or fetched over HTTPS, and kept.

A set older than ``jwks_max_age_seconds`` is read again on the next use, before any key of it
is used — so a key removed from the issuer's set opens no token (new, or verified before and
kept, see :mod:`.verify`) once that long has passed since its removal. A token naming a key
id not held makes the set be read again too — at most once every ``jwks_refetch_seconds``, so
a stream of tokens with made-up key ids cannot turn this deployment into a client hammering
the issuer; that bound never delays the read of a set past its age. A set that cannot be read
(unreachable, not JSON, too large) keeps the keys held before, is tried again at most once
every ``jwks_refetch_seconds`` (or ``jwks_max_age_seconds``, if shorter), and the reason goes
to the ``sutura.inbound`` log. Only keys for signature use with an asymmetric key type are
kept.
"""

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Final

import anyio
import httpx
import msgspec
from jwt import PyJWK
from jwt.exceptions import PyJWKError

log = logging.getLogger("sutura.inbound")

MAX_JWKS_BYTES: Final = 256 * 1024
FETCH_SECONDS: Final = 5.0
_ASYMMETRIC: Final = frozenset({"RSA", "EC", "OKP"})

Read = Callable[[], Awaitable[bytes]]
"""Reads the key set document once (raises on any failure)."""
Clock = Callable[[], float]


class _Document(msgspec.Struct):
    keys: list[dict[str, object]]


def read_url(url: str) -> Read:
    """A reader of the JWKS at ``url``: no redirects, a deadline, a size cap."""

    async def read() -> bytes:
        async with (
            httpx.AsyncClient(timeout=FETCH_SECONDS, follow_redirects=False) as client,
            client.stream("GET", url, headers={"Accept": "application/json"}) as response,
        ):
            if response.status_code != 200:
                raise OSError(f"the key set answered HTTP {response.status_code}")
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_JWKS_BYTES:
                    raise OSError(f"the key set is over {MAX_JWKS_BYTES} bytes")
            return bytes(body)

    return read


def read_file(path: Path) -> Read:
    """A reader of the JWKS file at ``path``."""

    async def read() -> bytes:
        data = await anyio.Path(path).read_bytes()
        if len(data) > MAX_JWKS_BYTES:
            raise OSError(f"the key set is over {MAX_JWKS_BYTES} bytes")
        return data

    return read


def parse_keys(data: bytes) -> dict[str, dict[str, object]]:
    """The signing keys of a JWKS document by key id (``""`` for a key without one).

    >>> parse_keys(b'{"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "h"}]}')
    {}
    """
    document = msgspec.json.decode(data, type=_Document)
    kept: dict[str, dict[str, object]] = {}
    for key in document.keys:
        if key.get("kty") not in _ASYMMETRIC or key.get("use", "sig") != "sig":
            continue
        if "d" in key:  # a private key published by mistake is not one to trust
            continue
        kid = key.get("kid", "")
        if isinstance(kid, str) and kid not in kept:
            kept[kid] = key
    return kept


class SigningKeys:
    """The key set, kept, read again when a token names a key id not held (bounded)."""

    def __init__(self, read: Read, *, max_age: float, refetch: float, clock: Clock) -> None:
        self._read = read
        self._max_age = max_age
        self._refetch = refetch
        self._clock = clock
        self._keys: dict[str, dict[str, object]] = {}
        self._read_at: float | None = None
        self._tried_at: float | None = None
        self._prepared: dict[tuple[str, str], PyJWK] = {}
        self._lock = anyio.Lock()

    async def key(self, kid: str | None, algorithm: str) -> PyJWK | None:
        """The key ``kid`` prepared for ``algorithm``, or None when the issuer has no such key
        (or it is not one for that algorithm). The same key, while the set is not read again,
        is the same object."""
        if self._stale(self._clock()):
            await self._refresh(self._stale)
        elif self._pick(kid) is None:
            await self._refresh(self._may_refetch)
        found = self._pick(kid)
        if found is None:
            return None
        name, jwk = found
        prepared = self._prepared.get((name, algorithm))
        if prepared is None:
            prepared = _prepare(jwk, algorithm)
            if prepared is None:
                return None
            self._prepared[(name, algorithm)] = prepared
        return prepared

    def _pick(self, kid: str | None) -> tuple[str, dict[str, object]] | None:
        if kid is not None:
            key = self._keys.get(kid)
            return None if key is None else (kid, key)
        # A token without a key id is verified only against an issuer with a single key.
        return next(iter(self._keys.items())) if len(self._keys) == 1 else None

    def _stale(self, now: float) -> bool:
        """The set is past its age (a failed read is not tried again sooner than the interval)."""
        if self._read_at is not None and now - self._read_at <= self._max_age:
            return False
        tried = self._tried_at
        if tried is None or tried == self._read_at:
            return True
        return now - tried >= min(self._refetch, self._max_age)

    def _may_refetch(self, now: float) -> bool:
        """A key id not held may read the set again: once per interval."""
        return self._tried_at is None or now - self._tried_at >= self._refetch

    async def _refresh(self, due: Callable[[float], bool]) -> None:
        async with self._lock:
            now = self._clock()
            if not due(now):  # another caller read it while this one waited
                return
            self._tried_at = now
            try:
                keys = parse_keys(await self._read())
            except (OSError, httpx.HTTPError, msgspec.DecodeError, msgspec.ValidationError) as err:
                log.warning("the issuer's key set could not be read: %s", err)
                return
            self._keys, self._read_at, self._prepared = keys, now, {}


def _prepare(jwk: dict[str, object], algorithm: str) -> PyJWK | None:
    declared = jwk.get("alg")
    if declared is not None and declared != algorithm:
        return None
    try:
        return PyJWK(jwk, algorithm=algorithm)
    except (PyJWKError, ValueError, TypeError) as err:
        log.warning("a key of the issuer's set is not one for %s: %s", algorithm, err)
        return None
