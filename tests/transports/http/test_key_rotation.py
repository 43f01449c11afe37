"""A key rotation at the issuer, against a real ``sutura serve`` reading the issuer's key set over
HTTP: once a key is removed from the set, tokens it signs — fresh ones and one already
verified and kept — are refused within ``jwks_max_age_seconds`` (docs/security.md), and a
token of the key that replaced it is accepted within the same time."""

import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Final

import anyio
import httpx
import pytest

from tests.transports.http.inbound_deployment import write_multi_user
from tests.transports.http.served import serving
from tests.transports.http.tokens import KeyPair, claims, jwks, mint

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

MAX_AGE: Final = 2
"""``jwks_max_age_seconds`` of the deployment: the documented time a revocation takes."""
READ_SLACK: Final = 1.5
"""What a revocation may take beyond it here: reading the set, and a busy machine."""
OLD, NEW = KeyPair("old"), KeyPair("new")


class _KeySet:
    """The issuer's JWKS endpoint: serves whatever set the test holds, counting reads."""

    def __init__(self) -> None:
        self.document = jwks(OLD).encode()
        self.reads = 0

    @contextmanager
    def served(self) -> Iterator[str]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.reads += 1
                body = owner.document
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                """Quiet."""

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/jwks.json"
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=10)


def _bearer(pair: KeyPair) -> dict[str, str]:
    """A fresh token (its own ``jti``, so never one kept) signed by ``pair``."""
    return {"Authorization": f"Bearer {mint(pair, claims(jti=uuid.uuid4().hex))}"}


async def _status(http: httpx.AsyncClient, headers: dict[str, str]) -> int:
    return (await http.get("/v1/catalog", headers=headers)).status_code


async def test_a_removed_key_opens_no_token_within_the_documented_time(
    tmp_path: Path, example_dir: Path
) -> None:
    keys = _KeySet()
    # When each was first seen after the rotation: the old key's tokens refused, the new
    # key's accepted.
    seen: dict[str, float] = {}
    with keys.served() as url:
        inbound = f"    jwks_max_age_seconds: {MAX_AGE}\n"
        config = write_multi_user(tmp_path, example_dir, None, jwks_url=url, inbound=inbound)
        async with (
            serving(config) as (host, port),
            httpx.AsyncClient(base_url=f"http://{host}:{port}", timeout=10) as http,
        ):
            kept = _bearer(OLD)
            with anyio.fail_after(30):
                assert await _status(http, kept) == 200
                assert await _status(http, kept) == 200  # now kept, not verified again
                keys.document = jwks(NEW).encode()  # the rotation: OLD leaves the set
                removed = time.monotonic()
                while len(seen) < 3 and time.monotonic() - removed < MAX_AGE * 4:
                    if await _status(http, kept) == 401:
                        seen.setdefault("kept token refused", time.monotonic() - removed)
                    if await _status(http, _bearer(OLD)) == 401:
                        seen.setdefault("fresh token refused", time.monotonic() - removed)
                    if await _status(http, _bearer(NEW)) == 200:
                        seen.setdefault("new key accepted", time.monotonic() - removed)
                    await anyio.sleep(0.05)
                after = [await _status(http, h) for h in (kept, _bearer(OLD), _bearer(NEW))]
    assert set(seen) == {"kept token refused", "fresh token refused", "new key accepted"}, seen
    assert max(seen.values()) < MAX_AGE + READ_SLACK, seen
    assert after == [401, 401, 200]
    assert keys.reads <= 2 + 4 + 1, keys.reads  # one read per max age, and the first
