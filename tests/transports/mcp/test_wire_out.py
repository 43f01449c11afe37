"""The stdio wire's writing end (:mod:`sutura.transports.mcp.wire_out`), in a spawned process
(it moves fd 1, which the test runner's own capture holds): every message whole and in order
through a pipe a slow reader drains, whatever else writes to fd 1 meanwhile sent to stderr,
and fd 1 the wire again, blocking, at the end."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

TIMEOUT = 60
BIG = 3 * 1024 * 1024 + 17  # past a widened pipe's 1 MiB: written in several turns

_WRITER = """
import fcntl, os, sys
import anyio
from sutura.transports.mcp.wire_out import claimed_stdout

async def main():
    with claimed_stdout() as wire:
        print("claimed" if wire is not None else "left", file=sys.stderr, flush=True)
        if wire is None:
            return
        os.write(1, b"stray\\n")  # fd 1 is stderr while the wire is claimed
        await wire.write("é" * (%(big)d // 2) + "\\n")
        await wire.write("second\\n")
        await wire.flush()
    blocking = not fcntl.fcntl(1, fcntl.F_GETFL) & os.O_NONBLOCK
    os.write(1, b"after, blocking\\n" if blocking else b"after, non-blocking\\n")

anyio.run(main)
"""


def _writer(stdout: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER % {"big": BIG}],
        stdout=stdout,
        stderr=subprocess.PIPE,
    )


def test_a_slow_reader_gets_every_message_whole_and_in_order() -> None:
    with _writer(subprocess.PIPE) as process:
        assert process.stdout is not None
        received = bytearray()
        deadline = time.monotonic() + TIMEOUT
        while chunk := os.read(process.stdout.fileno(), 256 * 1024):
            received += chunk
            time.sleep(0.01)  # a reader slower than the writer: the pipe fills, again and again
            assert time.monotonic() < deadline, "the writer never finished"
        _, stderr = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, stderr
    assert stderr.splitlines()[:2] == [b"claimed", b"stray"]
    first = ("é" * (BIG // 2) + "\n").encode("utf-8")
    assert bytes(received) == first + b"second\n" + b"after, blocking\n"


def test_a_file_on_fd_1_is_left_to_the_sdk(tmp_path: Path) -> None:
    target = tmp_path / "out"
    with target.open("wb") as out, _writer(out.fileno()) as process:
        _, stderr = process.communicate(timeout=TIMEOUT)
    assert (process.returncode, stderr) == (0, b"left\n")
    assert target.read_bytes() == b""


def test_a_socket_on_fd_1_is_claimed_as_a_pipe_is() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs, _writer(theirs.fileno()) as process:
        theirs.close()
        received = bytearray()
        ours.settimeout(TIMEOUT)
        while chunk := ours.recv(1024 * 1024):
            received += chunk
        _, stderr = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, stderr
    assert received.endswith(b"second\nafter, blocking\n")
    assert len(received) == len(("é" * (BIG // 2)).encode()) + len(b"\nsecond\nafter, blocking\n")
