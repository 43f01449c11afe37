"""Driving ``sutura mcp`` as a host does: a spawned process, JSON-RPC lines on its stdio.

:class:`RawSession` reads every line the process writes to stdout and fails on any line that
is not one JSON-RPC 2.0 message, so a test that uses it checks stdout hygiene as it goes.
"""

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

SUTURA = Path(sys.executable).with_name("sutura")
MAX_LINE = 64 * 1024 * 1024
INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "sutura-tests", "version": "0"},
    },
}
INITIALIZED: dict[str, Any] = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def server_environment(config: Path, **extra: str) -> dict[str, str]:
    """This process's environment without any ``SUTURA`` setting, plus the config dir."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("SUTURA")}
    return {**base, "SUTURA_CONFIG_DIR": str(config), **extra}


def json_rpc(line: bytes) -> dict[str, Any]:
    """``line`` as one JSON-RPC 2.0 message; fails the test on anything else."""
    message = json.loads(line)
    assert isinstance(message, dict), line[:200]
    assert message.get("jsonrpc") == "2.0", line[:200]
    assert {"result", "error", "method"} & message.keys(), line[:200]
    return message


@dataclass
class RawSession:
    """One spawned server: lines in, JSON-RPC messages out, every stdout line checked."""

    process: Process
    stdout: BufferedByteReceiveStream
    seen: list[dict[str, Any]] = field(default_factory=list)
    raw: list[bytes] = field(default_factory=list)
    stderr_chunks: list[bytes] = field(default_factory=list)

    @property
    def stderr(self) -> str:
        """What the server wrote to stderr so far."""
        return b"".join(self.stderr_chunks).decode("utf-8", "replace")

    async def send(self, message: dict[str, Any]) -> None:
        """Write one message as one line."""
        await self.send_bytes(json.dumps(message).encode("utf-8") + b"\n")

    async def send_bytes(self, data: bytes) -> None:
        """Write raw bytes to the server's stdin."""
        assert self.process.stdin is not None
        await self.process.stdin.send(data)

    async def receive(self) -> dict[str, Any]:
        """The next stdout line, as a JSON-RPC message."""
        line = await self.stdout.receive_until(b"\n", MAX_LINE)
        self.raw.append(line)
        self.seen.append(json_rpc(line))
        return self.seen[-1]

    async def response(self, request_id: int | None) -> dict[str, Any]:
        """The response to ``request_id``, whether it came already or comes next."""
        for message in self.seen:
            if "method" not in message and message.get("id") == request_id:
                return message
        while True:
            message = await self.receive()
            if "method" not in message and message.get("id") == request_id:
                return message

    async def request(self, request_id: int, method: str, **params: Any) -> dict[str, Any]:
        """Send a request and wait for its response."""
        await self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return await self.response(request_id)

    async def handshake(self) -> dict[str, Any]:
        """``initialize`` and ``notifications/initialized``; the initialize result."""
        await self.send(INITIALIZE)
        result = await self.response(0)
        await self.send(INITIALIZED)
        return result

    async def finish(self) -> int:
        """Close stdin, read stdout to its end (each line checked), and wait for the exit code."""
        assert self.process.stdin is not None
        await self.process.stdin.aclose()
        while True:
            try:
                await self.receive()
            except (anyio.IncompleteRead, anyio.EndOfStream):
                break
        assert not self.stdout.buffer, f"stdout ended inside a line: {self.stdout.buffer[:200]!r}"
        return await self.process.wait()


async def _drain(session: RawSession) -> None:
    """Keep reading stderr, so a chatty server never blocks on a full pipe."""
    assert session.process.stderr is not None
    async for chunk in session.process.stderr:
        session.stderr_chunks.append(chunk)


@asynccontextmanager
async def spawned(config: Path, *flags: str, **env: str) -> AsyncIterator[RawSession]:
    """``sutura [FLAGS] mcp`` on ``config``; killed if the test leaves it running."""
    process = await anyio.open_process(
        [str(SUTURA), *flags, "mcp"],
        env=server_environment(config, **env),
        stderr=subprocess.PIPE,
    )
    async with process, anyio.create_task_group() as group:
        assert process.stdout is not None
        session = RawSession(process, BufferedByteReceiveStream(process.stdout))
        group.start_soon(_drain, session)
        try:
            yield session
        finally:
            if process.returncode is None:
                process.kill()
