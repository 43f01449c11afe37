"""``sutura mcp`` spawned by a host that never reads its stderr: the audit line of every call
goes there, and a pipe nobody reads holds 64 KiB (about two hundred calls' worth). The server
keeps answering; what it could not write is kept or counted, and reaches stderr once it is
read (:mod:`sutura.boundary.log_stream`)."""

import json
import os
import select
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.transports.mcp.spawned import INITIALIZE, SUTURA, server_environment

pytestmark = pytest.mark.slow

CALLS = 400
TIMEOUT = 120
QUESTION = {
    "metrics": ["revenue"],
    "grain": "month",
    "range": {"start": "2024-01-01", "end": "2024-03-01"},
}


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode("utf-8") + b"\n"


class _Replies:
    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        self._fd = process.stdout.fileno()
        self._pending = b""

    def until(self, request_id: int, deadline: float) -> dict[str, Any]:
        while True:
            while b"\n" in self._pending:
                line, self._pending = self._pending.split(b"\n", 1)
                message: dict[str, Any] = json.loads(line)
                if message.get("id") == request_id:
                    return message
            ready, _, _ = select.select([self._fd], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"no answer to request {request_id}: the server is held up"
            chunk = os.read(self._fd, 1 << 20)
            assert chunk, "the server ended"
            self._pending += chunk


def test_a_host_that_never_reads_stderr_is_answered_all_the_same(example_dir: Path) -> None:
    with subprocess.Popen(
        [str(SUTURA), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_environment(example_dir),
    ) as process:
        assert process.stdin is not None and process.stderr is not None
        try:
            deadline = time.monotonic() + TIMEOUT
            replies = _Replies(process)
            process.stdin.write(_line(INITIALIZE))
            process.stdin.flush()
            replies.until(0, deadline)
            for request_id in range(1, CALLS + 1):
                params = {"name": "ask_metric", "arguments": QUESTION}
                call = {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "method": "tools/call",
                    "params": params,
                }
                process.stdin.write(_line(call))
                process.stdin.flush()
                answer = replies.until(request_id, deadline)
                assert not answer["result"]["isError"], answer
            # The host reads stderr at last: every call's audit line is there, in order.
            logged = bytearray()
            reader = threading.Thread(
                target=lambda: logged.extend(process.stderr.read() if process.stderr else b""),
                daemon=True,
            )
            reader.start()
            process.stdin.close()
            process.wait(timeout=TIMEOUT)
            reader.join(TIMEOUT)
        finally:
            process.kill()
    audited = [
        line for line in logged.decode().splitlines() if line.startswith("INFO sutura.audit")
    ]
    assert len(audited) == CALLS
