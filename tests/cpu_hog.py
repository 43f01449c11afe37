"""``pytest --cpu-hog``: the suite run while every core is kept busy by processes the run starts
itself (and stops at its end), so a test that only passes on an idle machine — a race lost
under contention, a wait without a bound — fails here first.

One busy-looping process per CPU, at the same priority as the tests. Hypothesis's per-example
deadline is lifted for the run: it measures speed, which a loaded machine does not have.
"""

import os
import subprocess
import sys
from typing import Final

from hypothesis import settings

_SPIN: Final = "while True:\n    pass\n"


class CpuHog:
    """The busy processes of one run."""

    def __init__(self) -> None:
        self._processes: list[subprocess.Popen[bytes]] = []

    def start(self, count: int | None = None) -> int:
        """Start ``count`` busy processes (one per CPU by default); how many were started."""
        for _ in range(count or os.cpu_count() or 2):
            spin = subprocess.Popen(
                [sys.executable, "-c", _SPIN],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            self._processes.append(spin)
        current = settings.get_current_profile_name()
        settings.register_profile("cpu-hog", settings.get_profile(current), deadline=None)
        settings.load_profile("cpu-hog")
        return len(self._processes)

    def stop(self) -> None:
        """Kill every busy process this run started, by its own id, and reap it."""
        for spin in self._processes:
            spin.kill()
        for spin in self._processes:
            spin.wait(timeout=10)
        self._processes.clear()
