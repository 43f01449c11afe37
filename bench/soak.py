"""A soak: ``POST /v1/query`` at concurrency 64 against ``sutura serve`` for a long while, and
the server's resident memory at the end against what it was after the first minute.

``BENCH_SOAK_SECONDS`` sets the length (default 60 s in ``make bench``; the issue's figure is
``BENCH_SOAK_SECONDS=600``); the baseline is taken after the first tenth of the run, at most one
minute in. Goal: the RSS at the end within 10 % of the baseline (no steady growth). Run alone
with ``python -m bench.soak``.
"""

import os
import sys
from pathlib import Path

from bench.http import QUERY, drive, served_process
from bench.table import Figure, short

CONCURRENCY = 64
SECONDS = float(os.environ.get("BENCH_SOAK_SECONDS", "6" if short() else "60"))
SLICES = 10


def rss_mib(pid: int) -> float:
    """The resident memory of ``pid`` in MiB (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def soak() -> tuple[float, float, int, int]:
    """(baseline RSS, final RSS, answers, errors) of one soak run (the kinds of error go to
    stderr)."""
    baseline_after = min(SECONDS / SLICES, 60.0)
    with served_process() as (address, process):
        drive(address, QUERY, 4, 1.0)  # warm-up
        first = drive(address, QUERY, CONCURRENCY, baseline_after)
        baseline = rss_mib(process.pid)
        rest = drive(address, QUERY, CONCURRENCY, SECONDS - baseline_after)
        final = rss_mib(process.pid)
    answers = first.statuses[200] + rest.statuses[200]
    kinds = first.failures + rest.failures
    odd = {k: v for k, v in (first.statuses + rest.statuses).items() if k not in (200, 503)}
    if kinds or odd:
        print(f"soak: failures {dict(kinds)}, other statuses {odd}", file=sys.stderr)
    return baseline, final, answers, first.errors + rest.errors


def measure() -> list[Figure]:
    """The project table's rows: RSS growth over the soak, and its errors."""
    baseline, final, answers, errors = soak()
    minutes = f"{SECONDS / 60:.1f} min"
    return [
        Figure(
            "soak",
            f"server RSS after {minutes} at c={CONCURRENCY}",
            final,
            baseline,
            "MiB",
            "ratio ≤ 1.10",
            "RSS after the first tenth (≤ 1 min)",
        ),
        Figure(
            "soak",
            "errors (timeouts, resets, other)",
            errors,
            answers or 1,
            "count",
            "0",
            "answers",
        ),
    ]


def main() -> int:
    """Run the soak and print its figures."""
    baseline, final, answers, errors = soak()
    growth = (final / baseline - 1) * 100
    print(
        f"soak {SECONDS:.0f} s at c={CONCURRENCY}: RSS {baseline:.1f} MiB after the first tenth, "
        f"{final:.1f} MiB at the end ({growth:+.1f} %); {answers} answers, {errors} errors"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
