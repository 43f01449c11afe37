"""A server started for the bench, found by the address it announces on stderr.

The rest of its stderr (``sutura serve`` writes an audit line per answer) is read by a process
of its own (:data:`DRAIN`), as a deployment's log collector is (journald, a container runtime):
a pipe nobody reads would stall the server, and a thread of the bench's own process reading it
would take the load generator's interpreter lock for each line, and so slow what it measures.
"""

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

DRAIN: Final = [
    sys.executable,
    "-c",
    "import shutil, sys; shutil.copyfileobj(sys.stdin.buffer, sys.stdout.buffer)",
]
"""The log collector, to nowhere."""

_ADDRESS: Final = re.compile(rb"http://([0-9.]+):([0-9]+)")


@contextmanager
def announced(
    command: list[str], environ: dict[str, str] | None = None
) -> Iterator[tuple[tuple[str, int], subprocess.Popen[bytes]]]:
    """``command`` started in ``environ`` (this process's environment by default), until it
    announces ``http://host:port`` on stderr; its address and its process, stopped after the
    block."""
    environ = dict(os.environ) if environ is None else environ
    process = subprocess.Popen(command, env=environ, stderr=subprocess.PIPE, bufsize=0)
    drain: subprocess.Popen[bytes] | None = None
    try:
        assert process.stderr is not None
        line = b""
        found = None
        while found is None and (line := _line(process.stderr.fileno())):
            found = _ADDRESS.search(line)
        if found is None:
            raise RuntimeError(f"{command[:2]} did not start; its last line: {line!r}")
        drain = subprocess.Popen(DRAIN, stdin=process.stderr, stdout=subprocess.DEVNULL)
        process.stderr.close()
        yield (found.group(1).decode("ascii"), int(found.group(2))), process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        if drain is not None:
            drain.wait(timeout=10)


def _line(fd: int) -> bytes:
    """One line of stderr (empty at its end), read a byte at a time, so that nothing after it
    is taken from the collector."""
    line = bytearray()
    while not line.endswith(b"\n") and (byte := os.read(fd, 1)):
        line += byte
    return bytes(line)
