"""The cost of verifying an access token: ``POST /v1/query`` p50 with and without the check.

Two ``sutura serve`` processes over the example, measured at concurrency 1 in alternating
quarter-second slices (so both see the same machine): one that checks no token (a development
deployment on loopback), one under ``multi-user`` checking a JWT access token (RS256, key set
in a file) on every request (a token seen before is not verified twice; see
:mod:`sutura.boundary.inbound.verify`). Beside them, the verification
alone, in process, against the answer time. Goal: verification ≤ 5 % of the answer time.
``python -m bench.identity`` prints this section alone.
"""

import contextlib
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from bench.http import QUESTION, SECONDS, Tally, _worker, serving_directory
from bench.table import Figure, median_seconds, short

ISSUER = "https://issuer.bench"
RESOURCE = "https://sutura.bench/"
_PLAIN = "security:\n  identity: single-user\n  single_user_because: the bench, on loopback\n"
_MULTI = (
    "security:\n  identity: multi-user\n  inbound:\n"
    f"    issuer: {ISSUER}\n    resource: {RESOURCE}\n    jwks_file: jwks.json\n"
)


def _key() -> tuple[rsa.RSAPrivateKey, str]:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(RSAAlgorithm.to_jwk(private.public_key()))
    return private, json.dumps({"keys": [{**jwk, "kid": "bench", "use": "sig", "alg": "RS256"}]})


def _token(private: rsa.RSAPrivateKey) -> str:
    now = int(time.time())
    claims = {
        "iss": ISSUER,
        "aud": RESOURCE,
        "sub": "bench-agent",
        "iat": now,
        "exp": now + 3600,
        "scope": "sutura:catalog.read sutura:metrics.ask sutura:values.read",
    }
    headers = {"typ": "at+jwt", "kid": "bench"}
    return jwt.encode(claims, private, algorithm="RS256", headers=headers)


def _write(directory: Path, security: str, keys: str) -> None:
    from sutura.boundary.example import write_example

    write_example(directory)
    settings = (directory / "base.yaml").read_text(encoding="utf-8")
    settings = settings[: settings.index("security:\n")] + security
    (directory / "base.yaml").write_text(settings, encoding="utf-8")
    (directory / "jwks.json").write_text(keys, encoding="utf-8")


@contextlib.contextmanager
def _served(directory: Path) -> Iterator[tuple[str, int]]:
    with serving_directory(directory) as (address, _process):
        yield address


def _payload(address: tuple[str, int], token: str | None) -> bytes:
    host, port = address
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    head = (
        f"POST /v1/query HTTP/1.1\r\nHost: {host}:{port}\r\n{auth}"
        f"Content-Type: application/json\r\nContent-Length: {len(QUESTION)}\r\n\r\n"
    )
    return head.encode("ascii") + QUESTION


def _p50s_ms(plain: Path, multi: Path, token: str, seconds: float) -> tuple[float, float]:
    """p50 of each deployment, measured in alternating slices so both see the same load."""
    with _served(plain) as without, _served(multi) as checked:
        runs = [(without, _payload(without, None)), (checked, _payload(checked, token))]
        tallies = [Tally(seconds), Tally(seconds)]

        async def slice_of(index: int, span: float) -> None:
            address, payload = runs[index]
            await _worker(address, payload, time.perf_counter() + span, tallies[index])

        async def alternate() -> None:
            for index in (0, 1):
                await slice_of(index, 0.5)  # warm-up, dropped below
            for tally in tallies:
                tally.latencies.clear()
                tally.statuses.clear()
            for _ in range(max(1, int(seconds / _SLICE))):
                for index in (0, 1):
                    await slice_of(index, _SLICE)

        anyio.run(alternate)
    for tally in tallies:
        if set(tally.statuses) != {200}:
            raise RuntimeError(f"unexpected statuses {dict(tally.statuses)}")
    return tallies[0].percentile_ms(0.5), tallies[1].percentile_ms(0.5)


_SLICE = 0.25


def _verify_ms(keys: str, token: str, repeat: int) -> tuple[float, float]:
    """Milliseconds per verification: of a token new to the verifier, of one seen before."""
    from sutura.boundary.inbound.keys import SigningKeys
    from sutura.boundary.inbound.verify import TokenVerifier
    from sutura.core.settings import InboundSettings

    async def read() -> bytes:
        return keys.encode()

    inbound = InboundSettings(issuer=ISSUER, resource=RESOURCE, jwks_file="jwks.json")
    held = SigningKeys(read, max_age=3600, refetch=30, clock=time.monotonic)

    def verifier() -> TokenVerifier:
        return TokenVerifier(inbound, held, clock=time.time)

    async def first() -> None:
        for _ in range(100):
            assert (await verifier().verify(token)).unwrap().subject == "bench-agent"

    again_verifier = verifier()

    async def again() -> None:
        for _ in range(100):
            assert (await again_verifier.verify(token)).unwrap().subject == "bench-agent"

    per_call = 1e3 / 100
    return (
        median_seconds(lambda: anyio.run(first), repeat) * per_call,
        median_seconds(lambda: anyio.run(again), repeat) * per_call,
    )


def measure() -> list[Figure]:
    """p50 with and without the token check; the check alone against the answer time."""
    seconds = 1.0 if short() else SECONDS
    private, keys = _key()
    token = _token(private)
    with tempfile.TemporaryDirectory() as temporary:
        plain, multi = Path(temporary) / "plain", Path(temporary) / "multi"
        _write(plain, _PLAIN, keys)
        _write(multi, _MULTI, keys)
        without, checked = _p50s_ms(plain, multi, token, seconds)
    first, again = _verify_ms(keys, token, 3 if short() else 7)
    no_check = "POST /v1/query c=1 p50, no token check"
    return [
        Figure(
            "identity",
            "POST /v1/query c=1 p50, JWT checked",
            checked,
            without,
            "ms",
            "≤ 1.05×",
            no_check,
        ),
        Figure(
            "identity",
            "a token seen before, checked (in process)",
            again,
            without,
            "ms",
            "≤ 0.05×",
            no_check,
        ),
        Figure(
            "identity",
            "a new token verified, RS256 (in process)",
            first,
            without,
            "ms",
            "report",
            no_check,
        ),
    ]


def main() -> int:
    """Print this section's figures."""
    from bench.table import render

    print(render(measure()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
