"""The interpreter's switch interval while ``sutura serve`` serves: 0.1 ms, not Python's 5 ms.

Every statement on DuckDB runs in a worker thread (``boundary/sources/worker_threads.py``), and
the Python client of DuckDB takes the interpreter lock between the tasks of a query, to check
for signals. A thread that asks for the lock gets it when the event loop next waits for I/O, or,
while the loop is never idle, when the switch interval has passed and the loop is made to let
go. At Python's 5 ms, a flood of requests that cost the loop almost nothing (wrong tokens,
``503 at_capacity`` answered to clients that do not wait, ``GET /health``) kept it busy without
a pause, and each task of each statement waited up to 5 ms: in ``bench.http``, 16 clients
asking beside 16 sending a wrong token got 110–114 answers a second (p99 272–279 ms) where 16
alone got 764–776 (p99 27–28 ms); at 64 clients (past ``max_concurrent_queries``), 68–75.

At 0.1 ms the same flood leaves 509–519 answers a second (p99 47–49 ms), 64 clients get
568–570, and 16 alone 802–809 (p99 27–28 ms), at 1.90 ms of the server's CPU per answer
against 1.81–1.84 (two rounds each, in turns; 0.2 ms: 440–458 under the flood, 0.05 ms: 534–545
at 1.92–1.94 ms of CPU per answer). A shorter interval costs a thread-switch only when another
thread is waiting for the lock, so a server with nothing else to do pays nothing for it.
"""

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

SWITCH_INTERVAL_SECONDS: Final = 1e-4
"""How long the event loop may hold the interpreter lock while a worker thread waits for it."""


@contextmanager
def prompt_switches(seconds: float = SWITCH_INTERVAL_SECONDS) -> Iterator[None]:
    """The interpreter's switch interval at ``seconds`` in the block, as it was after."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(seconds)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)
