"""The issuer's key set: kept, read again for an unknown key id at most once per interval."""

import json

import pytest

from sutura.boundary.inbound.keys import SigningKeys, parse_keys
from tests.transports.http.tokens import KeyPair, jwks

pytestmark = pytest.mark.anyio

FIRST, SECOND = KeyPair("k1"), KeyPair("k2")


class _Issuer:
    """A key set that changes when the test says, counting reads; and a clock the test moves."""

    def __init__(self, document: str) -> None:
        self.document = document
        self.reads = 0
        self.now = 1000.0
        self.fail = False

    async def read(self) -> bytes:
        self.reads += 1
        if self.fail:
            raise OSError("unreachable")
        return self.document.encode()

    def keys(self) -> SigningKeys:
        return SigningKeys(self.read, max_age=3600, refetch=30, clock=lambda: self.now)


async def test_keys_are_read_once_and_kept() -> None:
    issuer = _Issuer(jwks(FIRST))
    keys = issuer.keys()
    for _ in range(5):
        assert await keys.key("k1", "RS256") is not None
    assert issuer.reads == 1


async def test_unknown_key_ids_read_the_set_again_at_most_once_per_interval() -> None:
    issuer = _Issuer(jwks(FIRST))
    keys = issuer.keys()
    await keys.key("k1", "RS256")
    for n in range(50):
        assert await keys.key(f"made-up-{n}", "RS256") is None
    assert issuer.reads == 1  # the first read was within the interval
    issuer.now += 31
    assert await keys.key("made-up", "RS256") is None
    assert issuer.reads == 2


async def test_a_rotated_key_is_found_on_its_first_use() -> None:
    issuer = _Issuer(jwks(FIRST))
    keys = issuer.keys()
    await keys.key("k1", "RS256")
    issuer.document = jwks(FIRST, SECOND)
    issuer.now += 31
    assert await keys.key("k2", "RS256") is not None
    assert issuer.reads == 2


async def test_an_unreadable_set_keeps_the_keys_held() -> None:
    issuer = _Issuer(jwks(FIRST))
    keys = issuer.keys()
    await keys.key("k1", "RS256")
    issuer.fail = True
    issuer.now += 4000  # stale: read again, which fails
    assert await keys.key("k1", "RS256") is not None
    assert issuer.reads == 2


async def test_a_key_is_only_used_with_the_algorithm_it_declares() -> None:
    keys = _Issuer(jwks(FIRST)).keys()
    assert await keys.key("k1", "RS256") is not None
    assert await keys.key("k1", "PS256") is None


async def test_a_token_without_a_kid_needs_an_issuer_with_one_key() -> None:
    assert await _Issuer(jwks(FIRST)).keys().key(None, "RS256") is not None
    assert await _Issuer(jwks(FIRST, SECOND)).keys().key(None, "RS256") is None


def test_symmetric_private_and_encryption_keys_are_never_kept() -> None:
    public = FIRST.jwk()
    document = {
        "keys": [
            {"kty": "oct", "k": "c2VjcmV0", "kid": "h"},
            {**public, "kid": "enc", "use": "enc"},
            {**public, "kid": "private", "d": "AQAB"},
            public,
        ]
    }
    assert list(parse_keys(json.dumps(document).encode())) == ["k1"]


async def test_a_set_past_its_age_is_read_again_whatever_the_refetch_interval() -> None:
    issuer = _Issuer(jwks(FIRST))
    keys = SigningKeys(issuer.read, max_age=60, refetch=300, clock=lambda: issuer.now)
    assert await keys.key("k1", "RS256") is not None
    issuer.document = jwks(SECOND)  # the issuer removed k1
    issuer.now += 59
    assert await keys.key("k1", "RS256") is not None  # not yet past its age
    issuer.now += 2
    assert await keys.key("k1", "RS256") is None
    assert issuer.reads == 2


async def test_a_failed_read_of_a_set_past_its_age_is_retried_at_most_once_per_interval() -> None:
    issuer = _Issuer(jwks(FIRST))
    keys = SigningKeys(issuer.read, max_age=10, refetch=30, clock=lambda: issuer.now)
    await keys.key("k1", "RS256")
    issuer.fail = True
    issuer.now += 11
    for _ in range(20):
        assert await keys.key("k1", "RS256") is not None  # kept while unreadable
    assert issuer.reads == 2
    issuer.now += 10  # min(refetch, max_age) later
    issuer.fail = False
    issuer.document = jwks(SECOND)
    assert await keys.key("k1", "RS256") is None
    assert issuer.reads == 3
