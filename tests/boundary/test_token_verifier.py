"""A token verified once is kept, and still refused the moment it expires."""

import time

import pytest
from returns.pipeline import is_successful

from sutura.boundary.inbound.keys import SigningKeys
from sutura.boundary.inbound.verify import Rejection, TokenVerifier
from sutura.core.settings import InboundSettings
from tests.transports.http.tokens import ISSUER, RESOURCE, KeyPair, claims, jwks, mint

pytestmark = pytest.mark.anyio

PAIR = KeyPair("k1")


class _World:
    def __init__(self) -> None:
        self.now = time.time()
        self.reads = 0

    async def read(self) -> bytes:
        self.reads += 1
        return jwks(PAIR).encode()

    def verifier(self) -> TokenVerifier:
        inbound = InboundSettings(issuer=ISSUER, resource=RESOURCE, jwks_file="x", leeway_seconds=0)
        keys = SigningKeys(self.read, max_age=3600, refetch=30, clock=lambda: self.now)
        return TokenVerifier(inbound, keys, clock=lambda: self.now)


async def test_a_kept_token_is_refused_once_it_expires() -> None:
    world = _World()
    verifier = world.verifier()
    world.now = float(int(world.now))
    token = mint(PAIR, claims(exp=int(world.now) + 20))
    assert is_successful(await verifier.verify(token))
    world.now += 10
    assert is_successful(await verifier.verify(token))  # kept: not verified again
    world.now += 11
    assert (await verifier.verify(token)).failure() is Rejection.EXPIRED
    assert world.reads == 1


async def test_a_kept_token_is_verified_again_after_a_minute() -> None:
    world = _World()
    verifier = world.verifier()
    token = mint(PAIR, claims())
    for _ in range(3):
        assert is_successful(await verifier.verify(token))
    world.now += 61
    assert (await verifier.verify(token)).unwrap().subject == "agent-7"


async def test_a_refused_token_is_never_kept() -> None:
    verifier = _World().verifier()
    token = mint(PAIR, claims(aud="https://elsewhere.test/"))
    for _ in range(2):
        assert (await verifier.verify(token)).failure() is Rejection.AUDIENCE


async def test_a_kept_token_is_refused_once_its_key_left_the_set_and_the_set_was_read() -> None:
    world = _World()
    document = [jwks(PAIR)]

    async def read() -> bytes:
        world.reads += 1
        return document[0].encode()

    inbound = InboundSettings(issuer=ISSUER, resource=RESOURCE, jwks_file="x")
    keys = SigningKeys(read, max_age=20, refetch=30, clock=lambda: world.now)
    verifier = TokenVerifier(inbound, keys, clock=lambda: world.now)
    token = mint(PAIR, claims())
    assert is_successful(await verifier.verify(token))
    document[0] = jwks(KeyPair("k2"))  # the issuer removed k1
    world.now += 21  # within the minute a token is kept, past the set's age
    assert (await verifier.verify(token)).failure() is Rejection.UNKNOWN_KEY
    assert (await verifier.verify(mint(PAIR, claims(jti="t2")))).failure() is Rejection.UNKNOWN_KEY
