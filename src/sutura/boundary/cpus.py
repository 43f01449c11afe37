"""The processors this process may run on: what the batch renderer's default ``--jobs`` and a
DuckDB source's default statements at once are counted in."""

import os


def available_cpus() -> int:
    """The processors this process may run on (its affinity where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)
