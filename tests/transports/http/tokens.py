"""Hand-minted access tokens: an issuer's key pair, its JWKS, and tokens good and bad."""

import base64
import hashlib
import hmac
import json
import time
from typing import Any, Final

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from sutura.core.tool.capability import Scope

ISSUER: Final = "https://issuer.test"
RESOURCE: Final = "https://sutura.test/"
ALL_SCOPES: Final = " ".join(scope.value for scope in Scope)


class KeyPair:
    """An RSA key pair with a key id."""

    def __init__(self, kid: str) -> None:
        self.kid = kid
        self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def jwk(self) -> dict[str, Any]:
        """The public key as a JWK."""
        jwk: dict[str, Any] = json.loads(RSAAlgorithm.to_jwk(self.private.public_key()))
        return {**jwk, "kid": self.kid, "use": "sig", "alg": "RS256"}

    def public_pem(self) -> bytes:
        """The public key, PEM."""
        return self.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )


def jwks(*pairs: KeyPair) -> str:
    """A JWKS document of ``pairs``' public keys."""
    return json.dumps({"keys": [p.jwk() for p in pairs]})


def claims(**changes: Any) -> dict[str, Any]:
    """The claims of a good access token, with ``changes`` (a None value drops the claim)."""
    now = int(time.time())
    base: dict[str, Any] = {
        "iss": ISSUER,
        "aud": RESOURCE,
        "sub": "agent-7",
        "client_id": "agent",
        "iat": now,
        "exp": now + 600,
        "jti": "t1",
        "scope": ALL_SCOPES,
    }
    merged = {**base, **changes}
    return {k: v for k, v in merged.items() if v is not None}


def mint(pair: KeyPair, payload: dict[str, Any], **header: Any) -> str:
    """``payload`` signed RS256 by ``pair``, with ``typ: at+jwt`` and its kid unless changed."""
    headers = {"typ": "at+jwt", "kid": pair.kid, **header}
    headers = {k: v for k, v in headers.items() if v is not None}
    return jwt.encode(payload, pair.private, algorithm="RS256", headers=headers)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unsigned(payload: dict[str, Any]) -> str:
    """``alg: none``: no signature at all."""
    header = {"alg": "none", "typ": "at+jwt", "kid": "k1"}
    return f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(payload).encode())}."


def hmac_with(secret: bytes, payload: dict[str, Any], kid: str) -> str:
    """HS256 keyed with ``secret`` (the algorithm-confusion attack: the public key as secret)."""
    header = {"alg": "HS256", "typ": "at+jwt", "kid": kid}
    signing = f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(payload).encode())}"
    signature = hmac.new(secret, signing.encode("ascii"), hashlib.sha256).digest()
    return f"{signing}.{_b64(signature)}"


def with_payload(token: str, payload: dict[str, Any]) -> str:
    """``token`` with its payload replaced and its signature kept (a forged claim)."""
    header, _, signature = token.split(".")
    return f"{header}.{_b64(json.dumps(payload).encode())}.{signature}"
